// The policy on a real directory tree: symlinks resolved, missing paths, the deepest rule wins,
// and the file tools' refusals naming the rule.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { buildPolicy, fileAccessDenial, realPathOf, ruleFor } from './policy.js';
import { userSandbox, type SandboxSettingsPart } from './settings.js';

const root = realpathSync(mkdtempSync(join(tmpdir(), 'zot-policy-')));
after(() => rmSync(root, { recursive: true, force: true }));
const home = join(root, 'home');
const zotHome = join(home, '.local/state/zot');
const project = join(home, 'work/app');
for (const dir of [join(home, '.ssh'), join(zotHome, 'skills'), project, join(root, 'elsewhere')])
  mkdirSync(dir, { recursive: true });
writeFileSync(join(home, '.netrc'), 'machine x password y');
writeFileSync(join(home, '.ssh/id_ed25519'), 'KEY');
writeFileSync(join(zotHome, 'auth.json'), '{}');

function policy(part: SandboxSettingsPart = {}, over: { project?: string } = {}) {
  return buildPolicy({
    settings: userSandbox(part),
    project: over.project ?? project,
    home,
    zotHome,
  });
}

test('the built-in hidden paths that exist are covered; missing ones are known but not mounted', () => {
  const p = policy();
  const ssh = p.rules.find((rule) => rule.path === join(home, '.ssh'))!;
  assert.deepEqual([ssh.access, ssh.kind], ['hidden', 'dir']);
  assert.equal(p.rules.find((rule) => rule.path === join(home, '.netrc'))!.kind, 'file');
  assert.equal(p.rules.find((rule) => rule.path === join(home, '.aws'))!.kind, 'missing');
  assert.equal(ruleFor(p, join(zotHome, 'auth.json'))!.access, 'hidden');
  assert.equal(ruleFor(p, join(zotHome, 'skills/x/SKILL.md'))!.access, 'read-only');
  assert.equal(ruleFor(p, join(project, 'src/a.ts'))!.access, 'writable');
  assert.equal(ruleFor(p, '/usr/bin/env'), undefined, 'the rest: read-only, no rule');
});

test('rules run shallow to deep, so the deepest decides: a hidden path inside the project stays hidden', () => {
  const p = policy({ denyRead: [join(project, '.env')] });
  const depths = p.rules.map((rule) => rule.path.split('/').length);
  assert.deepEqual(
    depths,
    [...depths].sort((a, b) => a - b),
  );
  assert.equal(ruleFor(p, join(project, '.env'))!.access, 'hidden');
  assert.equal(ruleFor(p, join(project, 'main.ts'))!.access, 'writable');
});

test('a project inside a hidden directory stays usable; its siblings stay hidden', () => {
  const p = policy({ denyRead: [home] });
  assert.equal(ruleFor(p, join(project, 'x'))!.access, 'writable');
  assert.equal(ruleFor(p, join(home, 'work/other/secret'))!.access, 'hidden');
});

test('the same path hidden and writable: hidden wins', () => {
  const p = policy({ denyRead: [project] });
  assert.equal(ruleFor(p, join(project, 'x'))!.access, 'hidden');
});

test('a hidden path that is a symlink is hidden at its target', () => {
  const real = join(root, 'elsewhere/aws-creds');
  mkdirSync(real);
  symlinkSync(real, join(home, '.aws'));
  try {
    const p = policy();
    const rule = p.rules.find((r) => r.source.startsWith('~/.aws'))!;
    assert.equal(rule.path, real);
    assert.equal(rule.kind, 'dir');
  } finally {
    rmSync(join(home, '.aws'));
    rmSync(real, { recursive: true });
  }
});

test('links are resolved before the kind is taken: through a linked parent, to a file, and dangling', () => {
  const config = join(root, 'elsewhere/config');
  mkdirSync(join(config, 'gh'), { recursive: true });
  writeFileSync(join(root, 'elsewhere/creds'), 'token');
  symlinkSync(config, join(home, '.config'));
  symlinkSync(join(root, 'elsewhere/creds'), join(home, '.git-credentials'));
  symlinkSync(join(root, 'elsewhere/gone/kube'), join(home, '.kube'));
  try {
    const rule = (name: string) => policy().rules.find((r) => r.source.startsWith(`~/${name} `))!;
    assert.deepEqual(
      [rule('.config/gh').path, rule('.config/gh').kind],
      [join(config, 'gh'), 'dir'],
    );
    assert.deepEqual(
      [rule('.git-credentials').path, rule('.git-credentials').kind],
      [join(root, 'elsewhere/creds'), 'file'],
    );
    assert.deepEqual(
      [rule('.kube').path, rule('.kube').kind],
      [join(root, 'elsewhere/gone/kube'), 'missing'],
    );
    // A path that appears later is covered by the next policy (nothing is cached).
    mkdirSync(join(root, 'elsewhere/gone'));
    mkdirSync(join(root, 'elsewhere/gone/kube'));
    assert.equal(rule('.kube').kind, 'dir');
  } finally {
    for (const link of ['.config', '.git-credentials', '.kube']) rmSync(join(home, link));
    rmSync(config, { recursive: true });
    rmSync(join(root, 'elsewhere/creds'));
    rmSync(join(root, 'elsewhere/gone'), { recursive: true });
  }
});

test('a missing allow_write path is left out, with a note', () => {
  const p = policy({ allowWrite: [join(root, 'nope')] });
  assert.match(p.notes[0]!, /sandbox\.allow_write: .*nope does not exist/);
});

test('an empty host list means no network', () => {
  assert.equal(policy({ network: [] }).network, false);
  assert.deepEqual(policy({ network: ['a.example'] }).network, ['a.example']);
});

test('realPathOf resolves the existing part of a path and keeps the rest', () => {
  symlinkSync(join(home, '.ssh'), join(project, 'keys'));
  try {
    assert.equal(realPathOf(join(project, 'keys/new/file')), join(home, '.ssh/new/file'));
  } finally {
    rmSync(join(project, 'keys'));
  }
});

test('the file tools: a hidden path is unreadable, a write outside the writable paths is refused, both naming the rule', () => {
  const p = policy({ allowWrite: [join(root, 'elsewhere')] });
  const read = fileAccessDenial(p, 'read', join(home, '.ssh/id_ed25519'), 'read');
  assert.match(
    read!,
    /^read: denied by the sandbox: .*\.ssh\/id_ed25519 is hidden \(~\/\.ssh \(always hidden\)\)/,
  );
  assert.equal(fileAccessDenial(p, 'read', join(home, 'notes.txt'), 'read'), undefined);
  const write = fileAccessDenial(p, 'write', join(home, '.bashrc'), 'write');
  assert.match(
    write!,
    /outside the writable paths \(the project .*app and sandbox\.allow_write: .*elsewhere\)/,
  );
  assert.match(write!, /sandbox\.allow_write/);
  assert.equal(fileAccessDenial(p, 'write', join(project, 'new/file.ts'), 'write'), undefined);
  assert.equal(fileAccessDenial(p, 'write', join(root, 'elsewhere/x'), 'write'), undefined);
  assert.match(
    fileAccessDenial(p, 'write', join(zotHome, 'auth.json'), 'write')!,
    /is hidden \(\$ZOT_HOME/,
  );
});

test('a symlink in the project cannot walk out: the real path decides', () => {
  symlinkSync(join(home, '.ssh'), join(project, 'ssh-link'));
  symlinkSync(join(home, 'outside.txt'), join(project, 'out-link'));
  try {
    const p = policy();
    const read = fileAccessDenial(p, 'read', join(project, 'ssh-link/id_ed25519'), 'read');
    assert.match(read!, /ssh-link\/id_ed25519 \(really .*\.ssh\/id_ed25519\) is hidden/);
    assert.match(
      fileAccessDenial(p, 'write', join(project, 'out-link'), 'write')!,
      /outside the writable paths/,
    );
  } finally {
    rmSync(join(project, 'ssh-link'));
    rmSync(join(project, 'out-link'));
  }
});

test('a readable path under a hidden one (saved tool outputs in $ZOT_HOME) can be read, not written', () => {
  const outputs = join(zotHome, 'tool-output');
  const p = buildPolicy({ settings: userSandbox({}), project, home, zotHome, readable: [outputs] });
  assert.equal(fileAccessDenial(p, 'read', join(outputs, 'call-1.log'), 'read'), undefined);
  assert.match(
    fileAccessDenial(p, 'write', join(outputs, 'call-1.log'), 'write')!,
    /outside the writable paths/,
  );
  assert.match(fileAccessDenial(p, 'read', join(zotHome, 'auth.json'), 'read')!, /is hidden/);
});
