// Start-up stays fast because the print/JSON path loads none of the heavy or extension-only
// modules. Asserts on which modules load (a loader hook), not on wall-clock time.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fakeLlmFlags, startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { makeSandbox, runZot, ZOT_BIN } from './support/zot.js';

let llm: FakeLlm;
const box = makeSandbox();
before(async () => {
  llm = await startFakeLlm();
});
after(async () => {
  await llm.close();
  box.cleanup();
});

const HOOK = `
import { writeSync } from 'node:fs';
export async function load(url, context, nextLoad) {
  writeSync(2, 'loaded ' + url + '\\n');
  return nextLoad(url, context);
}`;

test('a --json run without extensions loads no Ajv, diff, TypeBox, protocol or extension host', async () => {
  const hookFile = join(box.project, 'hook.mjs');
  writeFileSync(
    hookFile,
    `import { register } from 'node:module';\nregister(${JSON.stringify(`data:text/javascript,${encodeURIComponent(HOOK)}`)});\n`,
  );
  llm.script({ text: 'hi' });
  const result = await runZot(['--json', 'hello', '--no-session', ...fakeLlmFlags(llm.url)], {
    home: box.home,
    cwd: box.project,
    env: { NODE_OPTIONS: `--import ${hookFile}` },
  });
  assert.equal(result.code, 0, result.stderr);
  const loaded = result.stderr.split('\n').filter((line) => line.startsWith('loaded file:'));
  assert.ok(
    loaded.some((line) => line.includes(ZOT_BIN.replace(/\\/g, '/'))),
    'the bundle ran',
  );
  for (const heavy of [
    '/node_modules/ajv/',
    '/node_modules/diff/',
    '/@sinclair/typebox/',
    '/packages/protocol/',
    'json-schema-meta',
  ]) {
    assert.deepEqual(
      loaded.filter((line) => line.includes(heavy)),
      [],
      `${heavy} stays off the start-up path`,
    );
  }
  // The chunk holding the extension host is not loaded either (it mentions "hello_ack").
  const { readFileSync } = await import('node:fs');
  const hostChunks = loaded
    .map((line) => line.slice('loaded file://'.length))
    .filter((path) => readFileSync(path, 'utf8').includes('hello_ack'));
  assert.deepEqual(hostChunks, []);
});
