// RPC mode checks requests with the validators generated at build time, so neither the
// per-file build of rpc.ts nor the bundled CLI running `zot rpc` loads TypeBox (~130 ms) or
// the schema module. Asserts on which modules load (via a loader hook), not on wall-clock time.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

// dist/src/modes/<this file> -> packages/zot
const packageDir = fileURLToPath(new URL('../../../', import.meta.url));
const rpcModule = new URL('./rpc.js', import.meta.url).href;
const bundle = fileURLToPath(new URL('../../bundle/main.js', import.meta.url));

// Runs in the loader thread; writes synchronously to `fd`, one line per loaded module.
const hook = (fd: number) => `
import { writeSync } from 'node:fs';
export async function load(url, context, nextLoad) {
  writeSync(${fd}, 'loaded ' + url + '\\n');
  return nextLoad(url, context);
}`;
const register = (fd: number) =>
  `import { register } from 'node:module';\n` +
  `register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hook(fd))}`)});`;

function loadedFiles(output: string): string[] {
  return output
    .split('\n')
    .flatMap((l) => (l.startsWith('loaded file:') ? [l.slice('loaded '.length)] : []));
}

const isTypeBox = (url: string) => url.includes('/@sinclair/typebox/');

test('importing modes/rpc.js loads no TypeBox and no rpc-schema module', () => {
  const script = [
    register(1),
    `const m = await import(${JSON.stringify(rpcModule)});`,
    `console.log('exports ' + Object.keys(m).length);`,
  ].join('\n');
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: packageDir,
    encoding: 'utf8',
  });
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout.trim().split('\n').at(-1) ?? '', /^exports [1-9]/, run.stdout);
  const loaded = loadedFiles(run.stdout);
  assert.deepEqual(loaded.filter(isTypeBox), [], 'TypeBox loaded by modes/rpc.js');
  assert.ok(!loaded.some((url) => url.endsWith('/modes/rpc-schema.js')), 'rpc-schema.js loaded');
  assert.ok(loaded.some((url) => url.endsWith('/modes/generated/rpc-validators.js')));
});

test('the bundled `zot rpc` answers a ping without loading TypeBox', async () => {
  const home = mkdtempSync(join(tmpdir(), 'zot-rpc-light-'));
  const env: NodeJS.ProcessEnv = { ...process.env, ZOT_HOME: home };
  delete env['ZOTCORE_RPC_TOKEN'];
  try {
    const child = spawn(
      process.execPath,
      [
        '--import',
        `data:text/javascript,${encodeURIComponent(register(2))}`,
        bundle,
        'rpc',
        ...['--api-key', 'k', '--base-url', 'http://127.0.0.1:9', '--no-ext'],
      ],
      { cwd: home, env },
    );
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    // A `state` event may come first (the snapshot is published at start); the answer ends it.
    const answer = () =>
      stdout
        .split('\n')
        .flatMap((line) => (line.startsWith('{"type":"response"') ? [line] : []))[0];
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
      if (answer() !== undefined) child.stdin.end(); // answered: let it exit
    });
    child.stdin.write('{"type":"ping","id":1}\n');
    const code = await new Promise((resolve) => child.on('close', resolve));
    assert.equal(code, 0, stderr);
    const response = JSON.parse(answer() ?? 'null') as Record<string, unknown>;
    assert.deepEqual(response, {
      type: 'response',
      id: 1,
      command: 'ping',
      success: true,
      data: { pong: true },
    });
    const loaded = loadedFiles(stderr);
    assert.ok(
      loaded.some((url) => url.includes('/dist/bundle/')),
      'the hook saw the bundle',
    );
    assert.deepEqual(loaded.filter(isTypeBox), [], 'TypeBox loaded by `zot rpc`');
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});
