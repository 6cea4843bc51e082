// `zot ext new --lang python`: an extension on zot_sdk, the SDK copied in and identical to
// sdk-python/zot_sdk, working in the real host from the moment it is generated.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { PYTHON_SDK_FILES } from '../src/cli/ext/scaffold-python-sdk.js';
import { EXAMPLES, FAST_TIMEOUTS, expectNoLeftovers } from './support/extensions.js';
import { fakeLlmFlags, startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { jsonLines, makeSandbox, runZot } from './support/zot.js';

const SDK = join(EXAMPLES, '..', '..', 'sdk-python', 'zot_sdk');

let llm: FakeLlm;
before(async () => {
  llm = await startFakeLlm();
});
after(() => llm.close());

test('the embedded SDK is sdk-python/zot_sdk, file for file', () => {
  const onDisk = readdirSync(SDK)
    .filter((name) => name.endsWith('.py'))
    .sort();
  assert.deepEqual(
    PYTHON_SDK_FILES.map((file) => file.path),
    onDisk.map((name) => `zot_sdk/${name}`),
    'run python3 sdk-python/tools/sync_copies.py',
  );
  for (const file of PYTHON_SDK_FILES) {
    assert.equal(
      file.content,
      readFileSync(join(SDK, file.path.slice('zot_sdk/'.length)), 'utf8'),
      `${file.path} is stale: run python3 sdk-python/tools/sync_copies.py`,
    );
  }
});

test('new --lang python: main.py on zot_sdk runs its command and its tool in the real host', async (t) => {
  const box = makeSandbox();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  const run = (args: string[]) =>
    runZot(args, {
      home: box.home,
      cwd: box.project,
      env: { ...FAST_TIMEOUTS, PYTHONPATH: undefined, PYTHONDONTWRITEBYTECODE: '1' },
    });
  const created = await run(['ext', 'new', 'greeter', '--lang', 'python']);
  assert.equal(created.code, 0, created.stderr);
  const dir = join(box.project, 'greeter');
  assert.ok(statSync(join(dir, 'main.py')).mode & 0o100, 'main.py is executable');
  assert.match(readFileSync(join(dir, 'main.py'), 'utf8'), /^from zot_sdk import Extension/m);
  for (const file of PYTHON_SDK_FILES) {
    assert.equal(readFileSync(join(dir, file.path), 'utf8'), file.content);
  }
  const manifest = JSON.parse(readFileSync(join(dir, 'extension.json'), 'utf8'));
  assert.deepEqual([manifest.exec, manifest.args], ['python3', ['main.py']]);

  const shown = await run([
    '--json',
    '--no-session',
    ...fakeLlmFlags(llm.url),
    '--ext',
    dir,
    '/greeter there',
  ]);
  assert.equal(shown.code, 0, shown.stderr);
  const display = jsonLines(shown.stdout).find((event) => event.type === 'ext_display');
  assert.equal(display?.text, 'hello from greeter: there');

  llm.script(
    { toolCalls: [{ id: 'g1', name: 'greeter_greet', args: { name: 'Kim' } }] },
    { text: 'done' },
  );
  const called = await run([
    '--json',
    '--no-session',
    ...fakeLlmFlags(llm.url),
    '--ext',
    dir,
    'greet Kim',
  ]);
  assert.equal(called.code, 0, called.stderr);
  const result = jsonLines(called.stdout).find((event) => event.type === 'tool_result');
  assert.deepEqual(result?.content, [{ type: 'text', text: 'Hello, Kim!' }]);
  assert.equal(result?.extension, 'greeter');
});
