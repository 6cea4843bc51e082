// No argument may stall zot: validating a long array under `uniqueItems` (Ajv compares items
// pairwise: 99,000 numbers are 4.9 billion comparisons) must leave the event loop free, so that
// an RPC `ping` sent meanwhile is answered about as fast as one sent while idle.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { MAX_TOOL_ARGS_VALUES } from '@zot/protocol';
import { expectNoLeftovers, FAST_TIMEOUTS, makeExtension } from './support/extensions.js';
import { fakeLlmFlags, startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { RpcClient } from './support/rpc-client.js';
import { deadline, hangGuard } from './support/timing.js';
import { makeSandbox } from './support/zot.js';

let llm: FakeLlm;
before(async () => {
  llm = await startFakeLlm();
});
after(() => llm.close());

let pings = 0;

/** How long `ping` takes to be answered, in ms; Infinity when not within `limitMs`. */
async function pingMs(client: RpcClient, limitMs = hangGuard(10_000)): Promise<number> {
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

test('a 99,000-item uniqueItems argument, and one past the bound, never hold up a ping', async (t) => {
  const box = makeSandbox();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  makeExtension(join(box.home, 'extensions'), 'lists', 'well-behaved', {
    tools: [
      {
        name: 'uniq',
        schema: { type: 'object', properties: { xs: { type: 'array', uniqueItems: true } } },
      },
    ],
  });
  // Within the bound (the object, the array and its items are the values): validated; past it:
  // refused with an error naming the bound.
  const within = Array.from({ length: MAX_TOOL_ARGS_VALUES - 2 }, (_, i) => i);
  const past = Array.from({ length: MAX_TOOL_ARGS_VALUES }, (_, i) => ({ i }));
  llm.script(
    { toolCalls: [{ id: 'within', name: 'uniq', args: { xs: within } }] },
    { toolCalls: [{ id: 'past', name: 'uniq', args: { xs: past } }] },
    { text: 'done' },
  );
  const client = RpcClient.start(fakeLlmFlags(llm.url), {
    home: box.home,
    cwd: box.project,
    env: FAST_TIMEOUTS,
  });
  // A stalled zot would stay busy for minutes after the test gave up on it.
  t.after(() => void (client.child.exitCode === null && client.child.kill('SIGKILL')));
  await client.request({ type: 'ping' }); // answered once start-up is over
  // The baseline: the slowest of a few pings while idle, on this machine right now.
  let idle = 0;
  for (let i = 0; i < 5; i++) idle = Math.max(idle, await pingMs(client));
  // zot is answering a ping in a few ms; a blocked loop answers after the whole validation
  // (seconds, or minutes). The allowance grows with the machine's current slowness.
  const allowed = Math.max(50 * idle, deadline(2, 250));

  await client.request({ type: 'prompt', message: 'lists' });
  // Ping after ping until the turn is over: both validations happen in between. (Not from the
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
  const results = client.lines.filter((line) => line.type === 'tool_result') as unknown as Array<{
    id: string;
    is_error: boolean;
    content: Array<{ text: string }>;
  }>;
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
