// The MCP bridge with a server slow to start (test/fixtures/mcp-slow-server.mjs, which reads
// nothing for a while, as a server started by `npx` does): the built zot, the fake LLM, real
// processes. A tool that exists is never unknown because its server is slow: the first run waits
// for the listing, later runs register the cached list at once and a call waits for the server;
// runs that use no MCP tool do not wait for it; the cache follows the configuration and
// tools/list_changed; the start-up limit ends a start with an error that says what to change.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { expectNoLeftovers, processesMatching } from './support/extensions.js';
import {
  fakeLlmFlags,
  startFakeLlm,
  type FakeLlm,
  type ScriptedReply,
} from './support/fake-llm.js';
import { MCP_EXT, mcpEnv, writeMcpConfig } from './support/mcp.js';
import { deadline, hangGuard } from './support/timing.js';
import { jsonLines, makeSandbox, runZot } from './support/zot.js';

const SLOW = fileURLToPath(new URL('../../test/fixtures/mcp-slow-server.mjs', import.meta.url));

let llm: FakeLlm;
before(async () => {
  llm = await startFakeLlm();
});
after(() => llm.close());

type Event = Record<string, unknown> & { type: string };
type ToolResultEvent = Event & { id: string; is_error: boolean; content: Array<{ text?: string }> };

/** A start the fixture makes within a few interpreter start-ups: well inside the ready wait. */
const QUICK_DELAY_MS = () => deadline(3, 1000);
/** A start slow enough that a call made at once is made while the server is starting. */
const SLOW_DELAY_MS = () => deadline(10, 3000);
/** A server that never starts within a run. */
const NEVER_MS = () => hangGuard(120_000);
/** The start-up limit of these runs (the default, 30 s, is near SLOW_DELAY_MS on a loaded machine). */
const LIMIT_MS = () => deadline(40, 30_000);

function setup() {
  const box = makeSandbox();
  const base = join(box.home, '..');
  const control = join(base, 'control.json');
  const stampsFile = join(base, 'stamps.jsonl');
  const config = join(box.home, 'mcp.json');
  const set = (tools: string[], delayMs: number) =>
    writeFileSync(control, JSON.stringify({ tools, delayMs }));
  const configure = (entry: Record<string, unknown> = {}) =>
    writeMcpConfig(config, {
      slow: {
        command: process.execPath,
        args: [SLOW, '--control', control, '--stamps', stampsFile],
        ...entry,
      },
    });
  const stamps = () => {
    let text = '';
    try {
      text = readFileSync(stampsFile, 'utf8');
    } catch {
      // none yet
    }
    const lines = text.split('\n').filter(Boolean);
    return lines.map((line) => JSON.parse(line) as { event: string; at: number });
  };
  const clearStamps = () => writeFileSync(stampsFile, '');
  /** One `zot --json` run; returns it with the requests the fake LLM received during it. */
  const run = async (
    prompt: string,
    replies: ScriptedReply[],
    env: Record<string, string> = {},
  ) => {
    const from = llm.requests.length;
    llm.script(...replies);
    const began = Date.now();
    const result = await runZot(
      ['--json', prompt, '--ext', MCP_EXT, ...fakeLlmFlags(llm.url), '--no-session'],
      {
        home: box.home,
        cwd: box.project,
        env: mcpEnv({ ZOT_MCP_STARTUP_TIMEOUT_MS: String(LIMIT_MS()), ...env }),
        timeoutMs: hangGuard(90_000),
      },
    );
    const requests = llm.requests.slice(from);
    const events = result.code === 0 ? (jsonLines(result.stdout) as Event[]) : [];
    const offered = (n: number) =>
      (requests[n]!.body.tools as Array<{ name: string }>).map((tool) => tool.name);
    const results = events.filter((e) => e.type === 'tool_result') as ToolResultEvent[];
    const notes = events.filter((e) => e.type === 'ext_notify').map((e) => String(e.message));
    return { ...result, began, requests, events, offered, results, notes };
  };
  /** A first run with a quick server: its listing is cached. */
  const fill = async (tools = ['echo', 'grow']) => {
    set(tools, 0);
    const first = await run('hi', [{ text: 'hello' }]);
    assert.equal(first.code, 0, first.stderr);
    assert.deepEqual(cacheEntries(box.home).length, 1, 'the listing was cached');
  };
  return { box, base, config, set, configure, stamps, clearStamps, run, fill };
}

const cacheDir = (home: string) => join(home, 'mcp-cache');
const cacheEntries = (home: string) => {
  try {
    return readdirSync(cacheDir(home)).filter((name) => name.endsWith('.json'));
  } catch {
    return [];
  }
};
/** What the ready wait of the bridge is in these tests (3/4 of ZOT_EXT_READY_TIMEOUT_MS). */
const readyWaitMs = () => Math.floor(Number(mcpEnv().ZOT_EXT_READY_TIMEOUT_MS) * 0.75);

test('first run: the bridge waits for a slow server’s listing; its tool works and the list is cached', async (t) => {
  const s = setup();
  t.after(() => s.box.cleanup());
  expectNoLeftovers(t, s.base);
  s.set(['echo', 'grow'], QUICK_DELAY_MS());
  s.configure();
  const r = await s.run('echo', [
    { toolCalls: [{ id: 'e', name: 'mcp__slow__echo', args: { text: 'hi' } }] },
    { text: 'done' },
  ]);
  assert.equal(r.code, 0, r.stderr);
  assert.ok(r.offered(0).includes('mcp__slow__echo'), 'offered in the first request');
  assert.equal(r.results[0]!.is_error, false, JSON.stringify(r.results[0]));
  assert.equal(r.results[0]!.content[0]!.text, 'echo: {"text":"hi"}');
  const listed = s.stamps().find((e) => e.event === 'listed')!;
  assert.ok(listed.at <= r.requests[0]!.at, 'the first request waited for the listing');
  const entries = cacheEntries(s.box.home);
  assert.equal(entries.length, 1);
  assert.match(entries[0]!, /^[0-9a-f]{64}\.json$/);
  assert.equal(statSync(cacheDir(s.box.home)).mode & 0o777, 0o700);
  assert.equal(statSync(join(cacheDir(s.box.home), entries[0]!)).mode & 0o777, 0o600);
  const cached = readFileSync(join(cacheDir(s.box.home), entries[0]!), 'utf8');
  assert.ok(!cached.includes(SLOW), 'the entry holds the tools, not the configuration');
});

test('later runs: the cached tools are offered at once; a run that calls none does not wait for the server, and its exit ends it', async (t) => {
  const s = setup();
  t.after(() => s.box.cleanup());
  expectNoLeftovers(t, s.base);
  s.configure();
  await s.fill();
  s.set(['echo', 'grow'], NEVER_MS());
  s.clearStamps();
  const r = await s.run('hi', [{ text: 'hello' }]);
  assert.equal(r.code, 0, r.stderr);
  assert.ok(r.offered(0).includes('mcp__slow__echo'), 'registered from the cache');
  // (It may not even have run a line by the time zot exits: it starts after `ready`.)
  const events = s.stamps().map((e) => e.event);
  assert.ok(!events.includes('connected'), 'zot did not wait for the server');
  // Without the cache the bridge would hold `ready` for its whole wait: the request came sooner.
  assert.ok(
    r.requests[0]!.at - r.began < readyWaitMs(),
    `request after ${r.requests[0]!.at - r.began} ms; the bridge's wait is ${readyWaitMs()} ms`,
  );
  assert.deepEqual(processesMatching(s.base), [], 'the starting server ended with zot');
  assert.deepEqual(r.notes, [], 'nothing to warn about');
});

test('a call of a cached tool while its server is still starting waits for it and succeeds', async (t) => {
  const s = setup();
  t.after(() => s.box.cleanup());
  expectNoLeftovers(t, s.base);
  s.configure();
  await s.fill();
  s.set(['echo', 'grow'], SLOW_DELAY_MS());
  s.clearStamps();
  const r = await s.run('echo', [
    { toolCalls: [{ id: 'e', name: 'mcp__slow__echo', args: { text: 'wait' } }] },
    { text: 'done' },
  ]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.results[0]!.is_error, false, JSON.stringify(r.results[0]));
  assert.equal(r.results[0]!.content[0]!.text, 'echo: {"text":"wait"}');
  const connected = s.stamps().find((e) => e.event === 'connected')!;
  assert.ok(r.requests[0]!.at < connected.at, 'the model was asked before the server was up');
});

test('the server lists other tools than its cache: a dropped one says so, a new one is offered', async (t) => {
  const s = setup();
  t.after(() => s.box.cleanup());
  expectNoLeftovers(t, s.base);
  s.configure();
  await s.fill(['echo', 'grow']);
  s.set(['echo', 'fresh'], SLOW_DELAY_MS());
  const r = await s.run('grow', [
    { toolCalls: [{ id: 'g', name: 'mcp__slow__grow', args: {} }] },
    { text: 'done' },
  ]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.results[0]!.is_error, true);
  assert.match(
    r.results[0]!.content[0]!.text!,
    /MCP server "slow" no longer offers the tool "grow"/,
  );
  assert.ok(r.offered(1).includes('mcp__slow__fresh'), 'the new tool, from the next request on');
  // The next run starts from the new list.
  s.set(['echo', 'fresh'], NEVER_MS());
  const next = await s.run('hi', [{ text: 'hello' }]);
  assert.ok(next.offered(0).includes('mcp__slow__fresh'));
  assert.ok(!next.offered(0).includes('mcp__slow__grow'));
});

test('a changed entry in mcp.json does not use the list cached for the old one', async (t) => {
  const s = setup();
  t.after(() => s.box.cleanup());
  expectNoLeftovers(t, s.base);
  s.configure();
  await s.fill(['echo', 'grow']);
  s.configure({ env: { SLOW_FLAVOUR: 'new' } });
  s.set(['other'], QUICK_DELAY_MS());
  const r = await s.run('hi', [{ text: 'hello' }]);
  assert.equal(r.code, 0, r.stderr);
  assert.ok(r.offered(0).includes('mcp__slow__other'), 'listed afresh before ready');
  assert.ok(!r.offered(0).includes('mcp__slow__echo'), 'nothing of the old list');
  assert.equal(cacheEntries(s.box.home).length, 2, 'one entry per configuration');
});

test('past its start-up limit a server is ended, and the error names it, the limit and the setting', async (t) => {
  const s = setup();
  t.after(() => s.box.cleanup());
  expectNoLeftovers(t, s.base);
  const limitMs = 300;
  // No cache: the wait before ready ends at the limit, with a warning.
  s.configure({ startup_timeout_ms: limitMs });
  s.set(['echo'], NEVER_MS());
  const first = await s.run('hi', [{ text: 'hello' }]);
  assert.equal(first.code, 0, first.stderr);
  const entry = `"startup_timeout_ms" in its entry in ${s.config}`;
  assert.ok(
    first.notes.some((note) =>
      note.includes(
        `MCP server "slow" could not start (it did not start within ${limitMs} ms (its start-up limit, set by ${entry})).`,
      ),
    ),
    first.notes.join('\n'),
  );
  assert.deepEqual(cacheEntries(s.box.home), [], 'nothing listed, nothing cached');

  // With a cached list, a call waits for the start and gets the error; here the limit is set
  // for every server by the environment.
  s.configure();
  await s.fill(['echo']);
  s.set(['echo'], NEVER_MS());
  const r = await s.run(
    'echo',
    [{ toolCalls: [{ id: 'e', name: 'mcp__slow__echo', args: {} }] }, { text: 'done' }],
    { ZOT_MCP_STARTUP_TIMEOUT_MS: String(limitMs) },
  );
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.results[0]!.is_error, true);
  assert.match(
    r.results[0]!.content[0]!.text!,
    new RegExp(
      `^MCP server "slow" could not start \\(it did not start within ${limitMs} ms \\(its start-up limit, set by ZOT_MCP_STARTUP_TIMEOUT_MS; "startup_timeout_ms" in its entry in .*mcp\\.json sets this server's own\\)\\)\\.`,
    ),
  );
  assert.deepEqual(processesMatching(s.base), [], 'the server past its limit was ended');
});

test('tools/list_changed refreshes the cached list', async (t) => {
  const s = setup();
  t.after(() => s.box.cleanup());
  expectNoLeftovers(t, s.base);
  s.configure();
  await s.fill(['echo', 'grow']);
  const r = await s.run('grow', [
    { toolCalls: [{ id: 'g', name: 'mcp__slow__grow', args: {} }] },
    { text: 'done' },
  ]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.results[0]!.content[0]!.text, 'grew');
  assert.ok(r.offered(1).includes('mcp__slow__grown'));
  s.set(['echo', 'grow', 'grown'], NEVER_MS());
  const next = await s.run('hi', [{ text: 'hello' }]);
  assert.ok(next.offered(0).includes('mcp__slow__grown'), 'the list after the change was cached');
});

test('/mcp waits for a server still starting and shows it ready', async (t) => {
  const s = setup();
  t.after(() => s.box.cleanup());
  expectNoLeftovers(t, s.base);
  s.configure();
  await s.fill(['echo', 'grow']);
  s.set(['echo', 'grow'], QUICK_DELAY_MS());
  const r = await runZot(['-p', '/mcp', '--ext', MCP_EXT, '--no-session'], {
    home: s.box.home,
    cwd: s.box.project,
    env: mcpEnv({ ZOT_MCP_STARTUP_TIMEOUT_MS: String(LIMIT_MS()) }),
    timeoutMs: hangGuard(60_000),
  });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^slow \(user, stdio, pid \d+\): ready, 2 tool\(s\)$/m);
});
