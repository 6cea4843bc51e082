// The trust pin covers the code that runs, end to end: with zot started in `repo/sub`, the
// `repo/node_modules` a project extension imports from is listed in the review and pinned; an
// extension file that is a symlink into its own `.git` (which the hash leaves out) is refused.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { startedExtensions, writeExtension } from './support/ext-fixtures.js';
import { expectNoLeftovers, FAST_TIMEOUTS } from './support/extensions.js';
import { fakeLlmFlags, startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { makeSandbox, runZot } from './support/zot.js';

let llm: FakeLlm;
before(async () => {
  llm = await startFakeLlm();
});
after(() => llm.close());

function setup(t: { after(fn: () => void): void }) {
  const box = makeSandbox();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  const repo = box.project;
  mkdirSync(join(repo, '.git'));
  const cwd = join(repo, 'sub');
  const extensions = join(cwd, '.zot', 'extensions');
  const marker = join(box.home, 'started.txt');
  const run = (args: string[]) =>
    runZot(args, { home: box.home, cwd, env: { ...FAST_TIMEOUTS, ZOT_TEST_MARKER: marker } });
  const starts = () => startedExtensions(marker).length;
  return { box, repo, cwd, extensions, run, starts };
}

test('zot in repo/sub: repo/node_modules is listed in the review and pinned', async (t) => {
  const { repo, extensions, run, starts } = setup(t);
  const helper = join(repo, 'node_modules', 'helper', 'index.js');
  mkdirSync(join(helper, '..'), { recursive: true });
  writeFileSync(helper, 'module.exports = "reviewed";\n');
  const dir = writeExtension(extensions, { name: 'uses-helper' });
  const program = join(dir, 'ext.mjs');
  writeFileSync(program, `import 'helper';\n${readFileSync(program, 'utf8')}`);

  const review = await run(['ext', 'trust', 'uses-helper', '--yes']);
  assert.equal(review.code, 0, review.stderr);
  assert.match(
    review.stdout,
    /^ {4}\.\.\/\.\.\/\.\.\/\.\.\/node_modules +node_modules +3 entries/m,
  );
  assert.ok(review.stdout.includes(`  up to:  ${repo} `), review.stdout);

  const prompt = () => run(['-p', 'hi', ...fakeLlmFlags(llm.url), '--no-session']);
  llm.script({ text: 'ok' });
  const trusted = await prompt();
  assert.equal(trusted.code, 0, trusted.stderr);
  assert.equal(starts(), 1, 'the trusted extension started');

  writeFileSync(helper, 'require("child_process").execSync("touch pwned");\n');
  llm.script({ text: 'ok' });
  const changed = await prompt();
  assert.equal(changed.code, 0, changed.stderr);
  assert.match(
    changed.stderr,
    /uses-helper .* changed since you trusted it, so it was not started/,
  );
  assert.equal(starts(), 1, 'an edit in repo/node_modules asks again');
});

test('a file that is a symlink into the extension’s .git cannot be trusted; the error names it', async (t) => {
  const { extensions, run, starts } = setup(t);
  const dir = writeExtension(extensions, { name: 'linked' }, { args: ['main.mjs'] });
  mkdirSync(join(dir, '.git'));
  writeFileSync(join(dir, '.git', 'payload.mjs'), readFileSync(join(dir, 'ext.mjs'), 'utf8'));
  symlinkSync('.git/payload.mjs', join(dir, 'main.mjs'));
  const refused = await run(['ext', 'trust', 'linked', '--yes']);
  assert.equal(refused.code, 1);
  assert.ok(
    refused.stderr.includes(`${join(dir, 'main.mjs')} is a symlink to ".git/payload.mjs"`),
    refused.stderr,
  );
  assert.match(refused.stderr, /leads into .*\.git, a part left out/);
  const trustFile = await run(['ext', 'list', '--json']);
  const listed = JSON.parse(trustFile.stdout) as Array<{ name: string; trust: string }>;
  assert.equal(listed.find((item) => item.name === 'linked')?.trust, 'error');
  assert.equal(starts(), 0);
});
