// Protocol negotiation with real extension processes in one run: a raw NDJSON extension that
// sends today's hello (version 1), a raw one asking for version 2, and one on each SDK (which
// ask for 2). The version-1 one sees exactly the version-1 handshake and its version-2 frames
// and subscriptions are refused, named in its log.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { expectNoLeftovers, FAST_TIMEOUTS, makeExtension } from './support/extensions.js';
import { fakeLlmFlags, startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { pySdkExtension, tsSdkExtension } from './support/sdk-extensions.js';
import { jsonLines, makeSandbox, runZot } from './support/zot.js';

let llm: FakeLlm;
before(async () => {
  llm = await startFakeLlm();
});
after(() => llm.close());

const TS_SOURCE = `import { createExtension, display } from '@zot/sdk';
const ext = createExtension({ name: 'ts-ext', version: '1.0.0' });
ext.command('tsver', 'protocol version', () => display('ts speaks ' + ext.host.protocolVersion));
await ext.run();
`;
const PY_SOURCE = `from zot_sdk import Extension, display
ext = Extension("py-ext", "1.0.0")

@ext.command("pyver", "protocol version")
def pyver(args):
    return display("py speaks %s" % ext.host.protocol_version)

ext.run()
`;

const frames = (path: string) =>
  readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);

test('one run: version-1 and version-2 extensions side by side, each spoken to in its own version', async (t) => {
  const box = makeSandbox();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  const root = join(box.home, 'exts');
  const v1Record = join(box.project, 'v1.jsonl');
  const v2Record = join(box.project, 'v2.jsonl');
  const v1 = makeExtension(root, 'raw-v1', 'well-behaved', {
    record: v1Record,
    commands: ['v1cmd'],
    subscribe: { events: ['turn_start'], intercept: ['tool_call', 'tool_result', 'user_prompt'] },
    emit_after_ready: [
      { type: 'tool_progress', id: 'nope', text: 'progress from a v1 extension' },
      { type: 'unregister_tool', name: 'read' },
    ],
  });
  const v2 = makeExtension(root, 'raw-v2', 'well-behaved', {
    record: v2Record,
    commands: ['v2cmd'],
    hello_extra: { protocol_version: 2, capabilities: ['commands', 'not-a-capability'] },
  });
  const ts = tsSdkExtension(root, 'ts-ext', TS_SOURCE);
  const py = pySdkExtension(root, 'py-ext', PY_SOURCE);
  const exts = [v1, v2, ts, py].flatMap((dir) => ['--ext', dir]);
  const run = (prompt: string) =>
    runZot(['--json', prompt, ...exts, ...fakeLlmFlags(llm.url), '--no-session'], {
      home: box.home,
      cwd: box.project,
      env: FAST_TIMEOUTS,
    });

  const tsRun = await run('/tsver');
  assert.equal(tsRun.code, 0, tsRun.stderr);
  const shown = (stdout: string) =>
    jsonLines(stdout)
      .filter((e) => e.type === 'ext_display')
      .map((e) => e.text);
  assert.deepEqual(shown(tsRun.stdout), ['ts speaks 2']);
  const pyRun = await run('/pyver');
  assert.equal(pyRun.code, 0, pyRun.stderr);
  assert.deepEqual(shown(pyRun.stdout), ['py speaks 2']);

  const v1Ack = frames(v1Record).find((f) => f.type === 'hello_ack')!;
  const v2Ack = frames(v2Record).find((f) => f.type === 'hello_ack')!;
  assert.equal(v1Ack.protocol_version, 1);
  assert.equal(v2Ack.protocol_version, 2);
  // Exactly today's handshake: the same keys as before version 2 existed.
  assert.deepEqual(Object.keys(v1Ack).sort(), [
    'cwd',
    'data_dir',
    'extension_dir',
    'model',
    'protocol_version',
    'provider',
    'type',
    'zot_version',
  ]);
  const log = (name: string) => readFileSync(join(box.home, 'logs', `ext-${name}.log`), 'utf8');
  const v1Log = log('raw-v1');
  assert.match(v1Log, /refused a tool_progress frame: it is a protocol version 2 frame/);
  assert.match(v1Log, /refused a unregister_tool frame: it is a protocol version 2 frame/);
  assert.match(v1Log, /subscribe: intercepting "tool_result" needs protocol version 2/);
  assert.match(v1Log, /subscribe: intercepting "user_prompt" needs protocol version 2/);
  assert.match(log('raw-v2'), /hello asks for protocol version 2; speaking version 2/);
  assert.doesNotMatch(log('raw-v2'), /not-a-capability/);
  assert.match(log('ts-ext'), /speaking version 2/);
  assert.match(log('py-ext'), /speaking version 2/);
});
