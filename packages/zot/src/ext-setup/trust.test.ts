import assert from 'node:assert/strict';
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import type { DiscoveredExtension, ExtensionScope } from './discovery.js';
import { readManifest } from './manifest.js';
import { hashExtension, type TrustTarget } from './trust-hash.js';
import { storedReplacement, TrustStore, trustGate, trustStateOf } from './trust.js';

const base = realpathSync(mkdtempSync(join(tmpdir(), 'zot-trust-')));
after(() => rmSync(base, { recursive: true, force: true }));

let counter = 0;
function extDir(files: Record<string, string> = {}, name = 'demo'): string {
  const dir = join(base, `e${++counter}`, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'extension.json'), JSON.stringify({ name, exec: 'node' }));
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  return dir;
}

function hashOf(target: string | TrustTarget): string {
  const result = hashExtension(typeof target === 'string' ? { dir: target } : target);
  assert.ok(result.ok, result.ok ? '' : result.error);
  return result.hash;
}

function entry(dir: string, scope: ExtensionScope): DiscoveredExtension {
  const read = readManifest(dir);
  assert.ok(read.ok);
  return { scope, dir: read.manifest.dir, status: 'load', manifest: read.manifest, warnings: [] };
}

test('the hash depends on content, not on creation order or location', () => {
  const a = extDir({ 'a.js': '1', 'lib/b.js': '2' });
  const b = extDir({ 'lib/b.js': '2', 'a.js': '1' });
  assert.equal(hashOf(a), hashOf(b));
  assert.match(hashOf(a), /^sha256:[0-9a-f]{64}$/);
  const listed = hashExtension({ dir: a });
  assert.ok(listed.ok);
  assert.deepEqual(
    listed.entries.map((e) => `${e.kind}:${e.path}`),
    ['file:a.js', 'file:extension.json', 'dir:lib', 'file:lib/b.js'],
  );
});

test('every kind of change changes the hash', () => {
  const dir = extDir({ 'a.js': 'one', 'lib/b.js': 'two' });
  const seen = new Set([hashOf(dir)]);
  const changes: Array<[string, () => void]> = [
    ['content', () => writeFileSync(join(dir, 'a.js'), 'ONE')],
    ['exec bit', () => chmodSync(join(dir, 'a.js'), 0o755)],
    ['new file', () => writeFileSync(join(dir, 'lib/c.js'), '')],
    ['rename', () => renameSync(join(dir, 'lib/c.js'), join(dir, 'lib/d.js'))],
    ['empty directory', () => mkdirSync(join(dir, 'empty'))],
    ['symlink', () => symlinkSync('a.js', join(dir, 'link'))],
    [
      'symlink target',
      () => {
        rmSync(join(dir, 'link'));
        symlinkSync('lib/b.js', join(dir, 'link'));
      },
    ],
    ['manifest', () => writeFileSync(join(dir, 'extension.json'), '{"name":"demo","exec":"x"}')],
  ];
  for (const [what, change] of changes) {
    change();
    const hash = hashOf(dir);
    assert.ok(!seen.has(hash), `${what} changes the hash`);
    seen.add(hash);
  }
});

test('a top-level .git is not hashed; a nested one is', () => {
  const dir = extDir({ 'a.js': '1' });
  const before = hashOf(dir);
  mkdirSync(join(dir, '.git'));
  writeFileSync(join(dir, '.git', 'HEAD'), 'ref: refs/heads/main');
  assert.equal(hashOf(dir), before);
  mkdirSync(join(dir, 'lib', '.git'), { recursive: true });
  assert.notEqual(hashOf(dir), before);
});

test('symlinks leaving the directory and runaway trees cannot be hashed', () => {
  const outside = join(base, 'outside.js');
  writeFileSync(outside, 'secret');
  const absolute = extDir();
  symlinkSync(outside, join(absolute, 'evil.js'));
  const escaped = hashExtension({ dir: absolute });
  assert.ok(!escaped.ok);
  assert.match(escaped.error, /evil\.js is a symlink to .* which points outside/);

  const relative = extDir();
  symlinkSync('../../outside.js', join(relative, 'evil.js'));
  assert.ok(!hashExtension({ dir: relative }).ok);

  const big = extDir({ 'a/1': '', 'a/2': '', 'a/3': '' });
  const capped = hashExtension({ dir: big }, { maxEntries: 3, maxBytes: 1e9 });
  assert.ok(!capped.ok);
  assert.match(capped.error, /more than 3 files and directories; refusing/);
  const heavy = hashExtension(
    { dir: extDir({ 'big.bin': 'x'.repeat(2048) }) },
    {
      maxEntries: 100,
      maxBytes: 1024,
    },
  );
  assert.ok(!heavy.ok);
  assert.match(heavy.error, /refusing to process such a large tree/);
});

test('the trust store writes atomically with mode 0600 and reports a corrupt file', () => {
  const path = join(base, 'store', 'trust.json');
  const store = new TrustStore(path);
  assert.deepEqual(store.read(), { ok: true, records: new Map() });
  store.set('/p/a', 'a', 'sha256:1', { now: new Date('2030-01-01T00:00:00Z') });
  store.set('/p/b', 'b', 'sha256:2');
  assert.equal(statSync(path).mode & 0o777, 0o600);
  const file = JSON.parse(readFileSync(path, 'utf8'));
  assert.equal(file.version, 1);
  assert.deepEqual(file.extensions['/p/a'], {
    name: 'a',
    hash: 'sha256:1',
    trusted_at: '2030-01-01T00:00:00.000Z',
  });
  assert.equal(store.remove(['/p/a', '/p/none']), 1);
  const read = store.read();
  assert.ok(read.ok);
  assert.deepEqual([...read.records.keys()], ['/p/b']);

  writeFileSync(path, '{ not json');
  const corrupt = store.read();
  assert.ok(!corrupt.ok);
  assert.match(corrupt.error, /trust\.json: invalid JSON/);
  assert.throws(() => store.set('/p/c', 'c', 'h'), /trust\.json: invalid JSON.*fix or delete it/);
});

test('the gate: global and --ext always run; project ones only with the trusted hash', () => {
  const paths = { trust: join(base, `gate${++counter}`, 'trust.json') };
  const gate = trustGate(paths, {});
  const dir = extDir({ 'index.js': 'v1' }, 'proj');
  assert.equal(gate(entry(dir, 'global')), undefined);
  assert.equal(gate(entry(dir, 'flag')), undefined);

  const refusal = gate(entry(dir, 'project'));
  assert.match(refusal ?? '', /project extension proj .* is not trusted/);
  assert.match(refusal ?? '', /`zot ext trust proj`/);
  assert.match(refusal ?? '', /ZOT_TRUST_PROJECT_EXTENSIONS=1/);

  const store = new TrustStore(paths.trust);
  store.set(realpathSync(dir), 'proj', hashOf(dir));
  assert.equal(gate(entry(dir, 'project')), undefined);
  assert.equal(trustStateOf({ dir: realpathSync(dir) }, store).state, 'trusted');

  writeFileSync(join(dir, 'index.js'), 'v2');
  const changed = gate(entry(dir, 'project'));
  assert.match(changed ?? '', /changed since you trusted it/);
  assert.match(changed ?? '', /`zot ext trust proj` again/);

  assert.equal(
    trustGate(paths, { ZOT_TRUST_PROJECT_EXTENSIONS: '1' })(entry(dir, 'project')),
    undefined,
  );
  assert.notEqual(
    trustGate(paths, { ZOT_TRUST_PROJECT_EXTENSIONS: '0' })(entry(dir, 'project')),
    undefined,
  );

  writeFileSync(paths.trust, '[]');
  assert.match(
    gate(entry(dir, 'project')) ?? '',
    /trust cannot be checked .*expected a JSON object/,
  );
});

test('trust is keyed by directory: the same content elsewhere is not trusted', () => {
  const paths = { trust: join(base, `gate${++counter}`, 'trust.json') };
  const one = extDir({ 'index.js': 'same' }, 'twin');
  const two = extDir({ 'index.js': 'same' }, 'twin');
  new TrustStore(paths.trust).set(realpathSync(one), 'twin', hashOf(one));
  const gate = trustGate(paths, {});
  assert.equal(gate(entry(one, 'project')), undefined);
  assert.match(gate(entry(two, 'project')) ?? '', /is not trusted/);
});

/** `<top>/project/.zot/extensions/<name>` with an index.mjs; returns both directories. */
function projectExt(name = 'proj'): { project: string; dir: string; top: string } {
  const top = join(base, `p${++counter}`);
  const project = join(top, 'project');
  const dir = join(project, '.zot', 'extensions', name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'extension.json'),
    JSON.stringify({ name, exec: 'node', args: ['index.mjs'] }),
  );
  writeFileSync(join(dir, 'index.mjs'), "import 'helper';\n");
  return { top, project, dir };
}

function write(path: string, content: string): void {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, content);
}

test('the hash covers every node_modules Node would search, from the parent up to the project root', () => {
  const { top, project, dir } = projectExt();
  const target = { dir, projectRoot: project };
  const alone = hashOf(dir);
  const full = hashExtension(target);
  assert.ok(full.ok);
  assert.equal(full.hash, alone, 'with nothing to cover, the hash is the one trust pinned before');
  assert.deepEqual(full.covered, []);

  // Every directory Node would look in for `helper`, nearest first.
  const modules = [
    join(project, '.zot', 'extensions', 'node_modules'),
    join(project, '.zot', 'node_modules'),
    join(project, 'node_modules'),
  ];
  const seen = new Set([alone]);
  for (const [i, dirPath] of modules.entries()) {
    write(join(dirPath, 'helper', 'index.js'), `module.exports = ${i};`);
    const hashed = hashExtension(target);
    assert.ok(hashed.ok, hashed.ok ? '' : hashed.error);
    assert.ok(!seen.has(hashed.hash), `${dirPath} is covered`);
    seen.add(hashed.hash);
  }
  const hashed = hashExtension(target);
  assert.ok(hashed.ok);
  assert.deepEqual(
    hashed.covered.map((c) => [c.path, c.reason, c.entries]),
    [
      ['../node_modules', 'node_modules', 3],
      ['../../node_modules', 'node_modules', 3],
      ['../../../node_modules', 'node_modules', 3],
    ],
  );
  assert.ok(hashed.entries.some((e) => e.path === '../node_modules/helper/index.js' && e.sha256));
  // Editing the code a trusted extension imports is a change like any other.
  writeFileSync(join(modules[0]!, 'helper', 'index.js'), 'module.exports = "evil";');
  assert.ok(!seen.has(hashOf(target)));
  // Above the project root is the user's, not the project's: not covered.
  write(join(top, 'node_modules', 'other', 'index.js'), '');
  const after = hashExtension(target);
  assert.ok(after.ok);
  assert.equal(after.covered.length, 3);
});

test('a package.json above an extension without its own is covered; one with imports/exports is refused', () => {
  const { project, dir } = projectExt();
  const target = { dir, projectRoot: project };
  const before = hashOf(target);
  write(join(project, 'package.json'), '{"type": "commonjs"}');
  const covered = hashExtension(target);
  assert.ok(covered.ok);
  assert.deepEqual(
    covered.covered.map((c) => [c.path, c.reason]),
    [['../../../package.json', 'package scope']],
  );
  assert.notEqual(covered.hash, before);
  write(join(project, 'package.json'), '{"type": "module"}');
  assert.notEqual(hashOf(target), covered.hash, 'its "type" decides how .js files run');

  write(join(project, '.zot', 'package.json'), '{"imports": {"#h": "./evil.js"}}');
  const refused = hashExtension(target);
  assert.ok(!refused.ok);
  assert.match(
    refused.error,
    /has no package\.json of its own.*"imports" can load files anywhere.*add a package\.json to/,
  );

  // Its own package.json ends the package scope: nothing above is read for it.
  write(join(dir, 'package.json'), '{"type": "module"}');
  const own = hashExtension(target);
  assert.ok(own.ok, own.ok ? '' : own.error);
  assert.deepEqual(own.covered, []);
});

test('covered paths: symlinks cannot redirect or escape, the extension must be in the project, one budget', () => {
  const { top, project, dir } = projectExt();
  const target = { dir, projectRoot: project };
  const elsewhere = join(top, 'elsewhere');
  write(join(elsewhere, 'helper', 'index.js'), '');
  symlinkSync(elsewhere, join(project, 'node_modules'));
  const linked = hashExtension(target);
  assert.ok(!linked.ok);
  assert.match(
    linked.error,
    /project\/node_modules is a symlink, and trust covers it .* cannot pin/,
  );
  rmSync(join(project, 'node_modules'));

  mkdirSync(join(project, 'node_modules', 'helper'), { recursive: true });
  symlinkSync(
    join(elsewhere, 'helper', 'index.js'),
    join(project, 'node_modules', 'helper', 'index.js'),
  );
  const escaping = hashExtension(target);
  assert.ok(!escaping.ok);
  assert.match(escaping.error, /helper\/index\.js is a symlink to .* points outside/);
  rmSync(join(project, 'node_modules'), { recursive: true });

  write(join(project, 'node_modules', 'a', 'b'), 'x');
  const capped = hashExtension(target, { maxEntries: 4, maxBytes: 1e9 });
  assert.ok(!capped.ok, 'the directory (3 entries) and node_modules (3) share one budget');
  assert.match(capped.error, /with the paths its trust covers has more than 4 files/);

  // A project extension that is a symlink to a directory outside the project.
  const outside = join(top, 'outside-ext');
  mkdirSync(outside);
  writeFileSync(join(outside, 'extension.json'), '{"name":"out","exec":"node"}');
  const link = join(project, '.zot', 'extensions', 'out');
  symlinkSync(outside, link);
  const out = hashExtension({ dir: realpathSync(link), projectRoot: project });
  assert.ok(!out.ok);
  assert.match(out.error, /lies outside the project .*load it with --ext or install it/);
});

test('replacing a global extension needs a record that says so, for that directory and this content', () => {
  const paths = { trust: join(base, `gate${++counter}`, 'trust.json') };
  const dir = extDir({ 'index.js': 'v1' }, 'guard');
  const globalDir = extDir({ 'index.js': 'mine' }, 'guard');
  const project = entry(dir, 'project');
  const global = entry(globalDir, 'global');
  const check = storedReplacement(paths);
  const store = new TrustStore(paths.trust);
  assert.equal(check(project, global), false, 'untrusted');
  store.set(project.dir, 'guard', hashOf(dir));
  assert.equal(check(project, global), false, 'trusted, but the review did not say it replaces');
  assert.equal(trustGate(paths, {})(project), undefined, 'though it may run where no clash is');
  store.set(project.dir, 'guard', hashOf(dir), { replaces: '/elsewhere/guard' });
  assert.equal(check(project, global), false, 'trusted to replace another directory');
  store.set(project.dir, 'guard', hashOf(dir), { replaces: global.dir });
  assert.equal(check(project, global), true);
  const read = store.read();
  assert.ok(read.ok);
  assert.equal(read.records.get(project.dir)?.replaces, global.dir, 'kept in trust.json');
  assert.equal(check(global, project), false, 'only a project entry replaces a global one');
  writeFileSync(join(dir, 'index.js'), 'v2');
  assert.equal(check(entry(dir, 'project'), global), false, 'changed since');
});

test('symlinks leading into the .git the hash leaves out are refused, naming the path', () => {
  const dir = extDir({ '.git/payload.py': 'print(1)', '.git/hooks/x': '' });
  symlinkSync('.git/payload.py', join(dir, 'main.py'));
  const file = hashExtension({ dir });
  assert.ok(!file.ok);
  assert.match(
    file.error,
    /main\.py is a symlink to "\.git\/payload\.py", which leads into .*\.git, a part left out/,
  );
  rmSync(join(dir, 'main.py'));
  for (const [name, target] of [
    ['lib', '.git/hooks'],
    ['all', '.git'],
    ['later.py', '.git/not-yet.py'],
    ['around.py', 'sub/../.git/payload.py'],
  ] as const) {
    symlinkSync(target, join(dir, name));
    const hashed = hashExtension({ dir });
    assert.ok(!hashed.ok, `${name} -> ${target}`);
    assert.ok(hashed.error.includes(join(dir, name)), hashed.error);
    rmSync(join(dir, name));
  }
  // Through a directory link whose target resolves into .git.
  mkdirSync(join(dir, 'sub'));
  symlinkSync('../.git/hooks', join(dir, 'sub', 'hooks'));
  assert.ok(!hashExtension({ dir }).ok);
  rmSync(join(dir, 'sub'), { recursive: true });
  assert.ok(hashExtension({ dir }).ok, 'without the links it hashes');
});

test('zot started in repo/sub: the node_modules of every ancestor up to the repository root are covered', () => {
  const top = join(base, `r${++counter}`);
  const repo = join(top, 'repo');
  const project = join(repo, 'sub');
  const dir = join(project, '.zot', 'extensions', 'proj');
  write(
    join(dir, 'extension.json'),
    JSON.stringify({ name: 'proj', exec: 'node', args: ['i.mjs'] }),
  );
  write(join(dir, 'i.mjs'), "import 'evil';\n");
  mkdirSync(join(repo, '.git'), { recursive: true });
  const target = { dir, projectRoot: project };
  const before = hashExtension(target);
  assert.ok(before.ok);
  assert.equal(before.boundary, repo, 'the repository root bounds the search');
  write(join(repo, 'node_modules', 'evil', 'index.js'), 'module.exports = 1;');
  write(join(top, 'node_modules', 'mine', 'index.js'), '');
  const covered = hashExtension(target);
  assert.ok(covered.ok, covered.ok ? '' : covered.error);
  assert.deepEqual(
    covered.covered.map((c) => [c.path, c.abs, c.reason]),
    [['../../../../node_modules', join(repo, 'node_modules'), 'node_modules']],
    "repo/node_modules is covered; above the repository is the user's",
  );
  assert.notEqual(covered.hash, before.hash);
  writeFileSync(join(repo, 'node_modules', 'evil', 'index.js'), 'module.exports = "evil";');
  assert.notEqual(hashOf(target), covered.hash, 'an edit there asks again');
  // The package scope is looked for up to the repository root too.
  write(join(repo, 'package.json'), '{"type": "module"}');
  const scoped = hashExtension(target);
  assert.ok(scoped.ok);
  assert.deepEqual(scoped.covered.at(-1)?.path, '../../../../package.json');

  // A submodule (a .git file) belongs to its superproject.
  rmSync(join(repo, '.git'), { recursive: true });
  writeFileSync(join(project, '.git'), 'gitdir: ../.git/modules/sub\n');
  const submodule = hashExtension(target);
  assert.ok(submodule.ok);
  assert.equal(submodule.boundary, project, 'on its own, a .git file marks the root');
  mkdirSync(join(top, '.git'));
  const superproject = hashExtension(target);
  assert.ok(superproject.ok);
  assert.equal(superproject.boundary, top);
  assert.ok(superproject.covered.some((c) => c.abs === join(top, 'node_modules')));
});
