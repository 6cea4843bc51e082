// `zot ext new --lang ts` generates an extension on the vendored SDK that works wherever it is
// created, with no registry: it runs at once, rebuilds with tsc, and survives `zot ext install`.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { expectNoLeftovers, FAST_TIMEOUTS } from './support/extensions.js';
import { fakeLlmFlags, startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { jsonLines, makeSandbox, runZot } from './support/zot.js';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

let llm: FakeLlm;
before(async () => {
  llm = await startFakeLlm();
});
after(() => llm.close());

test('ext new --lang ts: on the SDK, runs at once, rebuilds offline, installs and still runs', async (t) => {
  const box = makeSandbox();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  const zot = (args: string[]) =>
    runZot([...args, ...fakeLlmFlags(llm.url), '--no-session'], {
      home: box.home,
      cwd: box.project,
      env: FAST_TIMEOUTS,
    });
  const created = await runZot(['ext', 'new', 'my-ext', '--lang', 'ts'], {
    home: box.home,
    cwd: box.project,
  });
  assert.equal(created.code, 0, created.stderr);
  const dir = join(box.project, 'my-ext');
  const source = readFileSync(join(dir, 'src', 'index.ts'), 'utf8');
  assert.match(source, /from '@zot\/sdk'/);
  assert.deepEqual(JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).dependencies, {
    '@zot/sdk': 'file:vendor/zot-sdk',
  });
  for (const copy of ['vendor/zot-sdk', 'node_modules/@zot/sdk']) {
    assert.ok(existsSync(join(dir, copy, 'dist', 'pack', 'index.js')), copy);
    assert.ok(!lstatSync(join(dir, copy)).isSymbolicLink(), `${copy} is a real copy`);
    const pkg = JSON.parse(readFileSync(join(dir, copy, 'package.json'), 'utf8'));
    assert.equal(pkg.name, '@zot/sdk');
    assert.equal(pkg.dependencies, undefined);
    assert.equal(pkg.scripts, undefined);
  }

  // As generated: the command and the tool.
  const command = await zot(['-p', '/my-ext there', '--ext', dir]);
  assert.equal(command.code, 0, command.stderr);
  assert.equal(command.stdout, 'hello from my-ext: there\n');
  const greet = async (extArgs: string[]) => {
    llm.script(
      { toolCalls: [{ id: 'g', name: 'my-ext_greet', args: { who: 'Ann' } }] },
      { text: 'ok' },
    );
    const result = await zot(['--json', 'greet Ann', ...extArgs]);
    assert.equal(result.code, 0, result.stderr);
    const [tool] = jsonLines(result.stdout).filter(
      (e) => e.type === 'tool_result',
    ) as unknown as Array<{
      content: Array<{ text: string }>;
    }>;
    return tool?.content[0]?.text;
  };
  assert.equal(await greet(['--ext', dir]), 'Hello, Ann!');

  // Edit and rebuild with tsc (the repository's compiler and @types/node: no registry).
  writeFileSync(join(dir, 'src', 'index.ts'), source.replace("'Hello, '", "'Howdy, '"));
  const tsc = spawnSync(
    process.execPath,
    [
      join(ROOT, 'node_modules/typescript/bin/tsc'),
      '-p',
      '.',
      '--typeRoots',
      join(ROOT, 'node_modules/@types'),
    ],
    { cwd: dir, encoding: 'utf8' },
  );
  assert.equal(tsc.status, 0, tsc.stdout + tsc.stderr);
  assert.equal(await greet(['--ext', dir]), 'Howdy, Ann!');

  // Installed (copied into $ZOT_HOME/extensions), it still finds its SDK.
  const installed = await runZot(['ext', 'install', dir], { home: box.home, cwd: box.project });
  assert.equal(installed.code, 0, installed.stderr);
  assert.equal(await greet([]), 'Howdy, Ann!');
});
