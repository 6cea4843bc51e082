// The pipes to extensions under stress: a client that stops reading (back-pressure and the note
// backlog bound), bytes that are not UTF-8, and an extension that closes its stdout but lives on.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import {
  FAST_TIMEOUTS,
  expectNoLeftovers,
  makeExtension,
  waitForNoProcesses,
} from './support/extensions.js';
import { fakeLlmFlags, startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { ZotRpc, type Line } from './support/rpc-client.js';
import { hangGuard } from './support/timing.js';
import { jsonLines, makeSandbox, runZot } from './support/zot.js';

let llm: FakeLlm;
before(async () => {
  llm = await startFakeLlm();
});
after(() => llm.close());

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const MB = 1024 * 1024;

function setup(env: Record<string, string> = {}) {
  const box = makeSandbox();
  const root = join(box.home, 'extensions');
  const log = (name: string) => readFileSync(join(box.home, 'logs', `ext-${name}.log`), 'utf8');
  const start = () =>
    ZotRpc.start(fakeLlmFlags(llm.url), {
      home: box.home,
      cwd: box.project,
      env: { ...FAST_TIMEOUTS, ...env },
    });
  const run = (args: string[]) =>
    runZot([...args, ...fakeLlmFlags(llm.url), '--no-session'], {
      home: box.home,
      cwd: box.project,
      env: { ...FAST_TIMEOUTS, ...env },
      timeoutMs: hangGuard(60_000),
    });
  return { box, root, log, start, run };
}

/** Resident memory of `pid` in bytes (Linux /proc). */
function rss(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
  assert.ok(kb, `no VmRSS in /proc/${pid}/status`);
  return Number(kb[1]) * 1024;
}

const readProgress = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8') : '');

/**
 * Counts the flood's notes as they arrive without keeping them, and the drops reported in
 * warnings; `complete` resolves once delivered + dropped reaches `total`.
 */
function countFlood(client: ZotRpc, extension: string, total: number) {
  const counts = { delivered: 0, dropped: 0, warnings: 0 };
  let done: () => void;
  const complete = new Promise<void>((resolve) => (done = resolve));
  client.keep = (line: Line) => {
    if (line.extension === extension && line.type === 'ext_notify') {
      counts.delivered++;
    } else if (line.extension === extension && line.type === 'ext_warning') {
      const dropped = /dropped (\d+) note/.exec(String(line.message));
      if (dropped) {
        counts.dropped += Number(dropped[1]);
        counts.warnings++;
      }
    }
    if (counts.delivered + counts.dropped >= total) done();
    return line.type !== 'ext_notify';
  };
  return { counts, complete };
}

test('a client that stops reading holds the extension back: memory stays bounded, every note is accounted for', async (t) => {
  if (!existsSync('/proc/self/status')) return t.skip('needs /proc');
  const { box, root, start } = setup();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  const progress = join(box.project, 'flood.progress');
  // 25,000 notes of 8 KiB: 200 MB that zot would hold if it kept reading.
  const total = 25_000;
  makeExtension(root, 'flood', 'flood', { pad_bytes: 8192, progress_file: progress });
  const client = start();
  const { counts, complete } = countFlood(client, 'flood', total + 1); // + "flood done"
  await client.request('ping');
  const pid = client.child.pid!;
  const baseline = rss(pid);

  client.child.stdout.pause();
  client.send({ type: 'command', id: 'flood', text: `/flood ${total}` });
  // Sample zot's memory until the flood is over or the extension has been stuck in a write
  // for a while (held back); a deadline only ends the sampling, it asserts nothing.
  let peak = baseline;
  let state = '';
  let since = Date.now();
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    await sleep(50);
    peak = Math.max(peak, rss(pid));
    const now = readProgress(progress);
    if (now.startsWith('done')) break;
    if (now !== state) [state, since] = [now, Date.now()];
    else if (state.startsWith('waiting') && Date.now() - since >= 1500) break;
  }
  const sent = Number(readProgress(progress).split(' ')[1] ?? 0);
  assert.ok(
    peak < baseline + 100 * MB,
    `zot grew from ${Math.round(baseline / MB)} MB to ${Math.round(peak / MB)} MB while its reader was away`,
  );
  assert.ok(sent < total, `the extension was held back (it wrote ${sent} of ${total} notes)`);

  client.child.stdout.resume();
  await complete;
  // Nothing was awaited from the extension, so holding it back sufficed: no note was dropped.
  assert.deepEqual(counts, { delivered: total + 1, dropped: 0, warnings: 0 });
  await client.close();
  assert.deepEqual(await waitForNoProcesses(box.home), []);
});

test('notes beyond the backlog bound are dropped, counted and reported while a reply is awaited', async (t) => {
  // A pending command keeps zot reading this extension despite the stalled client (a reply must
  // not time out because of back-pressure), so the bound on queued notes is what holds.
  const { box, root, log, start } = setup({ ZOT_EXT_COMMAND_TIMEOUT_MS: '120000' });
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  const progress = join(box.project, 'flood.progress');
  const total = 30_000;
  makeExtension(root, 'flood', 'flood', {
    progress_file: progress,
    respond_after_flood: true,
    flood_response: { action: 'display', display: 'flood answered' },
  });
  const client = start();
  const { counts, complete } = countFlood(client, 'flood', total + 1);
  await client.request('ping');
  client.child.stdout.pause();
  client.send({ type: 'command', id: 'flood', text: `/flood ${total}` });
  for (let i = 0; i < 2400 && !readProgress(progress).startsWith('done'); i++) await sleep(50);
  assert.match(readProgress(progress), /^done/, 'zot kept reading while the command was pending');
  client.child.stdout.resume();
  await complete;
  await client.waitFor((line) => line.type === 'ext_display' && line.text === 'flood answered');
  assert.equal(counts.delivered + counts.dropped, total + 1);
  assert.ok(counts.dropped > 0, 'notes beyond the bound were dropped');
  assert.ok(counts.delivered < total, `only a bounded number was queued: ${counts.delivered}`);
  assert.match(log('flood'), /dropped \d+ notes? \(notify\/display\)/);
  await client.close();
});

test('lines that are not UTF-8 are dropped and logged; a reply fails its call at once; a first line fails the load', async (t) => {
  const { box, root, log, run } = setup({ ZOT_EXT_TOOL_TIMEOUT_MS: '60000' });
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  makeExtension(root, 'bytes', 'invalid-utf8', {
    commands: [{ name: 'ping', response: { action: 'display', display: 'pong' } }],
    tools: [
      { name: 'mangled', result: { content: [{ type: 'text', text: 'x' }], invalid_utf8: true } },
    ],
  });
  makeExtension(root, 'early', 'invalid-utf8', { first: true });
  llm.script({ toolCalls: [{ id: 'm', name: 'mangled', args: {} }] }, { text: 'ok' });
  const result = await run(['--json', 'call it']);
  assert.equal(result.code, 0, result.stderr);
  const events = jsonLines(result.stdout);
  const notes = events.filter((e) => e.type === 'ext_notify' && e.extension === 'bytes');
  assert.deepEqual(
    notes.map((n) => n.message),
    ['good after bad'],
  );
  assert.match(log('bytes'), /dropped a line of \d+ bytes that is not valid UTF-8/);
  const toolResult = events.find((e) => e.type === 'tool_result' && e.id === 'm');
  assert.equal(toolResult?.is_error, true);
  assert.match(
    JSON.stringify(toolResult?.content),
    /malformed tool_result: the line is not valid UTF-8/,
  );
  const early = events.find((e) => e.type === 'ext_error' && e.extension === 'early');
  assert.match(
    String(early?.message),
    /extension early failed to load: the first line must be a hello frame; got a line of \d+ bytes that is not valid UTF-8/,
  );
});

test('an extension that closes its stdout but keeps running is treated as gone: its call fails, its process is killed', async (t) => {
  const { box, root, log, run } = setup({ ZOT_EXT_TOOL_TIMEOUT_MS: '60000' });
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  makeExtension(root, 'mute', 'well-behaved', {
    tools: [{ name: 'hush', result: { close_stdout: true } }],
  });
  llm.script(
    {
      toolCalls: [
        { id: 'h1', name: 'hush', args: {} },
        { id: 'h2', name: 'hush', args: {} },
      ],
    },
    { text: 'ok' },
  );
  const result = await run(['--json', 'be quiet']);
  assert.equal(result.code, 0, result.stderr);
  const events = jsonLines(result.stdout);
  const content = (id: string) => {
    const toolResult = events.find((e) => e.type === 'tool_result' && e.id === id);
    assert.equal(toolResult?.is_error, true, id);
    return JSON.stringify(toolResult?.content);
  };
  assert.match(
    content('h1'),
    /extension mute is not running \(closed its stdout\); see .*ext-mute\.log/,
  );
  // The next call comes while it is being restarted (design D25).
  assert.match(content('h2'), /extension mute is restarting, try again/);
  const gone = events.find((e) => e.type === 'ext_error' && e.extension === 'mute');
  assert.match(String(gone?.message), /extension mute closed its stdout/);
  assert.match(log('mute'), /closed its stdout/);
  assert.deepEqual(await waitForNoProcesses(box.home), []);
});

test('events for an extension that stops reading its stdin are dropped past the bound, not queued', async (t) => {
  // The answer is 18 MiB, over the default answer limit.
  const { box, root, log, run } = setup({ ZOT_STREAM_MAX_BYTES: String(32 * MB) });
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  makeExtension(root, 'deaf', 'well-behaved', {
    subscribe: { events: ['tool_call'] },
    pause_input_ms: 600_000,
  });
  // 18 tool calls of 1 MiB arguments each: 18 MiB of tool_call events for the deaf extension,
  // past its 16 MiB queue bound by more than the pipe holds.
  const big = 'x'.repeat(MB);
  const calls = Array.from({ length: 18 }, (_, i) => ({
    id: `c${i}`,
    name: 'no_such_tool',
    args: { blob: big },
  }));
  llm.script({ toolCalls: calls }, { text: 'done' });
  const result = await run(['--json', 'go']);
  assert.equal(result.code, 0, result.stderr);
  assert.ok(jsonLines(result.stdout).some((e) => e.type === 'done'));
  assert.match(log('deaf'), /not reading its stdin: over 16 MiB of events queued; dropping events/);
});
