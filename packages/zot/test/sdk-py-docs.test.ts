// docs/sdk-python.md's API examples: every Python block that is not a tutorial file (those run
// with the tutorial, in fresh-user.test.ts) is started as an extension in the real host
// (`zot ext doctor`), which must find it ready, without warnings. A block marked `serves` is a
// program serving over WebSocket: it is run as written, and zot connects to it.
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { docBlocks, REPO } from './support/doc-runner.js';
import { FAST_TIMEOUTS, expectNoLeftovers } from './support/extensions.js';
import { startPythonServer } from './support/python-server.js';
import { makeSandbox, runZot } from './support/zot.js';

const DOC = join(REPO, 'docs', 'sdk-python.md');

test('docs/sdk-python.md: every API example is an extension that starts ready', async (t) => {
  const box = makeSandbox();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  const examples = docBlocks(readFileSync(DOC, 'utf8')).filter(
    (block) => block.lang === 'python' && block.marker === undefined,
  );
  assert.ok(examples.length >= 8, 'the API examples were found');
  const dirs: string[] = [];
  const names: string[] = [];
  for (const block of examples) {
    const name = /Extension\("([^"]+)"/.exec(block.code)?.[1];
    assert.ok(name, `line ${block.line}: no Extension("name") in the example`);
    assert.ok(!names.includes(name), `line ${block.line}: the name ${name} is used twice`);
    names.push(name);
    const dir = join(box.project, 'snippets', name);
    mkdirSync(dir, { recursive: true });
    cpSync(join(REPO, 'sdk-python', 'zot_sdk'), join(dir, 'zot_sdk'), {
      recursive: true,
      filter: (source) => !source.includes('__pycache__'),
    });
    writeFileSync(join(dir, 'main.py'), block.code);
    writeFileSync(
      join(dir, 'extension.json'),
      JSON.stringify({ name, version: '1.0.0', exec: 'python3', args: ['main.py'] }),
    );
    dirs.push(dir);
  }
  const doctor = await runZot(['ext', 'doctor', '--json', ...dirs.flatMap((d) => ['--ext', d])], {
    home: box.home,
    cwd: box.project,
    env: { ...FAST_TIMEOUTS, PYTHONDONTWRITEBYTECODE: '1', PYTHONPATH: undefined },
  });
  assert.equal(doctor.code, 0, doctor.stdout + doctor.stderr);
  const reports = JSON.parse(doctor.stdout).extensions as Array<{
    name: string;
    status: string;
    warnings: string[];
  }>;
  assert.deepEqual(
    reports.map((r) => [r.name, r.status, r.warnings]),
    names.map((name) => [name, 'ready', []]),
  );
});

test('docs/sdk-python.md: the ext.listen() example serves, and zot finds it ready over WebSocket', async (t) => {
  const box = makeSandbox();
  t.after(() => box.cleanup());
  const blocks = docBlocks(readFileSync(DOC, 'utf8')).filter(
    (block) => block.lang === 'python' && block.marker === 'serves',
  );
  assert.equal(blocks.length, 1, 'the listen() example was found');
  const token = 'doc-token-7f3a9c';
  const server = await startPythonServer(box.project, 'served', blocks[0]!.code, {
    POLICY_TOKEN: token,
  });
  t.after(() => server.close());
  const doctor = await runZot(['ext', 'doctor', '--json', '--ext-url', server.url], {
    home: box.home,
    cwd: box.project,
    env: { ...FAST_TIMEOUTS, ZOT_EXT_TOKEN: token },
  });
  assert.equal(doctor.code, 0, doctor.stdout + doctor.stderr + server.stderr());
  const [report] = JSON.parse(doctor.stdout).extensions as Array<Record<string, any>>;
  assert.equal(report!.status, 'ready');
  assert.deepEqual(report!.tools, [{ name: 'ping', deferred: false }]);
  assert.ok(!(doctor.stdout + doctor.stderr).includes(token), 'the token is shown nowhere');
});
