// No argument may stall zot: validating a long array under `uniqueItems` (Ajv compares items
// pairwise: 99,000 numbers are 4.9 billion comparisons), or under a schema that checks each
// item against 500 branches, must leave the event loop free, so that an RPC `ping` sent
// meanwhile is answered about as fast as one sent while idle.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { afterEach, beforeEach, test, type TestContext } from 'node:test';
import { MAX_TOOL_ARGS_VALUES } from '@zot/protocol';
import { expectNoLeftovers, FAST_TIMEOUTS, makeExtension } from './support/extensions.js';
import { fakeLlmFlags, startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { ZotRpc } from './support/rpc-client.js';
import { deadline, hangGuard } from './support/timing.js';
import { makeSandbox } from './support/zot.js';

// One model per test: replies a failed test left unread must not answer the next test's turn.
let llm: FakeLlm;
beforeEach(async () => {
  llm = await startFakeLlm();
});
afterEach(() => llm.close());

let pings = 0;

/** How long `ping` takes to be answered, in ms; Infinity when not within `limitMs`. */
async function pingMs(client: ZotRpc, limitMs = hangGuard(10_000)): Promise<number> {
  const id = `ping${++pings}`;
  const from = client.lines.length;
  const started = performance.now();
  client.send({ type: 'ping', id });
  try {
    await client.waitFor((line) => line.type === 'response' && line.id === id, limitMs, from);
  } catch {
    return Infinity;
  }
  return performance.now() - started;
}

/** zot in RPC mode with `tools` from one extension (with more fixture options), answering pings. */
async function startZot(
  t: TestContext,
  tools: unknown[],
  env: Record<string, string> = {},
  options: Record<string, unknown> = {},
) {
  const box = makeSandbox();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  makeExtension(join(box.home, 'extensions'), 'lists', 'well-behaved', { tools, ...options });
  const client = ZotRpc.start(fakeLlmFlags(llm.url), {
    home: box.home,
    cwd: box.project,
    env: { ...FAST_TIMEOUTS, ...env },
  });
  // A stalled zot would stay busy for minutes after the test gave up on it.
  t.after(() => void (client.child.exitCode === null && client.child.kill('SIGKILL')));
  await client.request('ping'); // answered once start-up is over
  return client;
}

/** Prompts, then pings until the turn is over; asserts that no ping waited for long. */
async function promptWhilePinging(client: ZotRpc): Promise<void> {
  // The baseline: the slowest of a few pings while idle, on this machine right now.
  let idle = 0;
  for (let i = 0; i < 5; i++) idle = Math.max(idle, await pingMs(client));
  // zot is answering a ping in a few ms; a blocked loop answers after the whole validation
  // (seconds, or minutes). The turn also holds work no ping can overtake: parsing the model's
  // 1 MB tool call and encoding it for the extension (150-260 ms of one core when idle),
  // which a machine shared with other work stretches far more than it stretches a ping.
  // The allowance grows with the machine's current slowness and stays below any stall.
  const allowed = Math.max(50 * idle, deadline(6, 750));

  await client.request('prompt', { message: 'lists' });
  // Ping after ping until the turn is over: every validation happens in between. (Not from the
  // call's event on: a stalled zot has not even flushed that event to its stdout.)
  const over = () => client.lines.some((line) => line.type === 'done');
  let slowest = 0;
  while (!over() && slowest <= allowed)
    slowest = Math.max(slowest, await pingMs(client, allowed + 1));
  assert.ok(
    slowest <= allowed,
    `a ping sent during the turn was not answered within ${allowed.toFixed(0)} ms (idle: ${idle.toFixed(0)} ms)`,
  );
  await client.doneCount(1);
}

type Result = { id: string; is_error: boolean; content: Array<{ text: string }> };
const resultsOf = (client: ZotRpc) =>
  client.lines.filter((line) => line.type === 'tool_result') as unknown as Result[];

test('a 99,000-item uniqueItems argument, and one past the bound, never hold up a ping', async (t) => {
  // Within the bound (the object, the array and its items are the values): validated; past it:
  // refused with an error naming the bound.
  const within = Array.from({ length: MAX_TOOL_ARGS_VALUES - 2 }, (_, i) => i);
  const past = Array.from({ length: MAX_TOOL_ARGS_VALUES }, (_, i) => ({ i }));
  llm.script(
    { toolCalls: [{ id: 'within', name: 'uniq', args: { xs: within } }] },
    { toolCalls: [{ id: 'past', name: 'uniq', args: { xs: past } }] },
    { text: 'done' },
  );
  const client = await startZot(t, [
    {
      name: 'uniq',
      schema: { type: 'object', properties: { xs: { type: 'array', uniqueItems: true } } },
    },
  ]);
  await promptWhilePinging(client);
  const results = resultsOf(client);
  assert.deepEqual(
    results.map((r) => [r.id, r.is_error]),
    [
      ['within', false],
      ['past', true],
    ],
  );
  assert.match(results[1]!.content[0]!.text, /made of more than 100000 values/);
  assert.equal((await client.close()).code, 0);
});

// Valid, and within every bound: each item is checked against up to 500 branches (99,000
// items are about 50 million checks: half a minute on an idle machine, on the event loop before).
const pick = {
  name: 'pick',
  schema: {
    type: 'object',
    properties: {
      xs: {
        type: 'array',
        items: { anyOf: Array.from({ length: 500 }, (_, i) => ({ const: i })) },
      },
    },
  },
};
/** Far below the work even on a fast machine (not scaled with the load: a slower machine only
 * makes the work longer still); compiling the schema may use it up already. */
const LIMIT_MS = 1000;
const costlyError = (tool: string) =>
  new RegExp(
    `^the arguments for tool "${tool}" could not be checked against its schema \\((compiling the schema|checking them) took longer than ${LIMIT_MS} ms, zot's limit \\(ZOT_VALIDATION_TIMEOUT_MS\\)\\), so the tool was not run`,
  );

test('a schema too costly to check against the arguments fails the call by name, and never holds up a ping', async (t) => {
  const uniq = {
    name: 'uniq',
    schema: { type: 'object', properties: { xs: { type: 'array', uniqueItems: true } } },
  };
  const client = await startZot(t, [pick, uniq], { ZOT_VALIDATION_TIMEOUT_MS: String(LIMIT_MS) });
  const xs = Array.from({ length: MAX_TOOL_ARGS_VALUES - 2 }, () => 499);
  llm.script(
    {
      toolCalls: [
        { id: 'costly', name: 'pick', args: { xs } },
        { id: 'after', name: 'uniq', args: { xs: [1, 2, 3] } },
      ],
    },
    { text: 'done' },
  );
  await promptWhilePinging(client);
  const results = resultsOf(client);
  assert.deepEqual(
    results.map((r) => [r.id, r.is_error]),
    [
      ['costly', true],
      ['after', false],
    ],
  );
  // Fail closed, named: the tool, what ran out, the limit and how to set it.
  assert.match(results[0]!.content[0]!.text, costlyError('pick'));
  assert.equal((await client.close()).code, 0);
});

test("an interceptor's modified_args too costly to check fail the call the same way", async (t) => {
  // 20,000 items (the rewrite travels on the fixture's command line): 10 million checks.
  const xs = Array.from({ length: 20_000 }, () => 499);
  const client = await startZot(
    t,
    [pick],
    { ZOT_VALIDATION_TIMEOUT_MS: String(LIMIT_MS) },
    {
      subscribe: { intercept: ['tool_call'] },
      intercept_responses: { tool_call: { modified_args: { xs } } },
    },
  );
  llm.script({ toolCalls: [{ id: 'small', name: 'pick', args: { xs: [1] } }] }, { text: 'done' });
  await promptWhilePinging(client);
  const results = resultsOf(client);
  assert.deepEqual(
    results.map((r) => [r.id, r.is_error]),
    [['small', true]],
  );
  assert.match(results[0]!.content[0]!.text, costlyError('pick'));
  assert.equal((await client.close()).code, 0);
});
