// Importing the main entry (what a host or an SDK does) loads no TypeBox and no schema
// module: decoding runs on the generated validators. Asserts on which modules load (via a
// loader hook), not on wall-clock time.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

// dist/src/<this file> -> packages/protocol (whose package.json names @zot/protocol)
const packageDir = fileURLToPath(new URL('../../', import.meta.url));
const distSrc = new URL('./', import.meta.url).href;

// Runs in the loader thread; writes synchronously, so every line precedes the import's end.
const HOOK = `
import { writeSync } from 'node:fs';
export async function load(url, context, nextLoad) {
  writeSync(1, 'loaded ' + url + '\\n');
  return nextLoad(url, context);
}`;

/** The file: URLs loaded by `await import(specifier)` in a fresh process. */
function modulesLoadedBy(specifier: string): string[] {
  const script = [
    `import { register } from 'node:module';`,
    `register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(HOOK)}`)});`,
    `const m = await import(${JSON.stringify(specifier)});`,
    `console.log('exports ' + Object.keys(m).length);`,
  ].join('\n');
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: packageDir,
    encoding: 'utf8',
  });
  assert.equal(run.status, 0, run.stderr);
  const lines = run.stdout.trim().split('\n');
  assert.match(lines.at(-1) ?? '', /^exports [1-9]/, run.stdout);
  return lines.flatMap((l) => (l.startsWith('loaded file:') ? [l.slice('loaded '.length)] : []));
}

test('the main entry loads only its own light modules: no TypeBox, no schemas', () => {
  const loaded = modulesLoadedBy('@zot/protocol');
  const typebox = loaded.filter((url) => url.includes('/@sinclair/typebox/'));
  assert.deepEqual(typebox, [], 'TypeBox loaded by the main entry');
  const outside = loaded.filter((url) => !url.startsWith(distSrc));
  assert.deepEqual(outside, [], 'the main entry loaded a dependency');
  const own = loaded.map((url) => url.slice(distSrc.length)).sort();
  for (const heavy of ['frames-extension.js', 'frames-host.js', 'schema-util.js', 'schemas.js']) {
    assert.ok(!own.includes(heavy), `${heavy} loaded by the main entry`);
  }
  assert.ok(own.includes('generated/validators.js'), own.join(', '));
});

test('the schemas subpath does load TypeBox (the hook sees dependencies)', () => {
  const loaded = modulesLoadedBy('@zot/protocol/schemas');
  assert.ok(loaded.some((url) => url.includes('/@sinclair/typebox/')));
});
