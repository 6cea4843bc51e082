import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { discoverExtensions, projectExtensionsDir, type DiscoveredExtension } from './discovery.js';

const base = realpathSync(mkdtempSync(join(tmpdir(), 'zot-discovery-')));
after(() => rmSync(base, { recursive: true, force: true }));

let counter = 0;
/** A fresh project directory and ZOT_HOME, plus a place for --ext directories. */
function sandbox(): {
  cwd: string;
  zotHome: string;
  project: string;
  global: string;
  loose: string;
} {
  const top = join(base, `s${++counter}`);
  const cwd = join(top, 'project');
  const zotHome = join(top, 'home');
  const loose = join(top, 'loose');
  for (const dir of [cwd, zotHome, loose]) mkdirSync(dir, { recursive: true });
  return {
    cwd,
    zotHome,
    loose,
    project: projectExtensionsDir(cwd),
    global: join(zotHome, 'extensions'),
  };
}

function ext(
  parent: string,
  dirName: string,
  manifest: unknown,
  files: Record<string, string> = {},
): string {
  const dir = join(parent, dirName);
  mkdirSync(dir, { recursive: true });
  const text = typeof manifest === 'string' ? manifest : JSON.stringify(manifest);
  writeFileSync(join(dir, 'extension.json'), text);
  for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content);
  return dir;
}

function summary(entries: DiscoveredExtension[]): string[] {
  return entries.map((e) => `${e.scope}:${e.manifest?.name ?? '?'}:${e.status}`);
}

test('nothing installed: no entries, no errors', () => {
  const s = sandbox();
  assert.deepEqual(discoverExtensions({ ...s, extPaths: [], noExt: false }), { entries: [] });
});

test('order: --ext as given, then project sorted, then global sorted (code units)', () => {
  const s = sandbox();
  ext(s.global, 'zeta', { name: 'zeta', exec: 'node' });
  ext(s.global, 'Beta', { name: 'beta', exec: 'node' });
  ext(s.global, 'alpha', { name: 'alpha', exec: 'node' });
  ext(s.project, 'p2', { name: 'p2', exec: 'node' });
  ext(s.project, 'p10', { name: 'p10', exec: 'node' });
  const f1 = ext(s.loose, 'f1', { name: 'f1', exec: 'node' });
  const f2 = ext(s.loose, 'f2', { name: 'f2', exec: 'node' });
  const { entries } = discoverExtensions({ ...s, extPaths: [f2, f1], noExt: false });
  assert.deepEqual(summary(entries), [
    'flag:f2:load',
    'flag:f1:load',
    'project:p10:load',
    'project:p2:load',
    'global:beta:load', // "Beta" < "alpha": uppercase sorts first by code unit
    'global:alpha:load',
    'global:zeta:load',
  ]);
  assert.equal(entries[0]?.dir, f2);
  assert.equal(entries[2]?.dir, join(s.project, 'p10'));
  assert.ok(entries.every((e) => e.warnings.length === 0 && e.error === undefined));
});

test('relative --ext paths are taken from cwd', () => {
  const s = sandbox();
  const dir = ext(s.cwd, 'local-ext', { name: 'local', exec: 'node' });
  const { entries } = discoverExtensions({ ...s, extPaths: ['local-ext'], noExt: true });
  assert.deepEqual(summary(entries), ['flag:local:load']);
  assert.equal(entries[0]?.dir, dir);
});

test('a project entry never takes the name of a global one unless trusted to replace it', () => {
  const s = sandbox();
  const project = ext(s.project, 'dup', { name: 'dup', exec: 'node' });
  const global = ext(s.global, 'dup', { name: 'dup', exec: 'node' });
  const kept = discoverExtensions({ ...s, extPaths: [], noExt: false }).entries;
  assert.deepEqual(summary(kept), ['project:dup:shadowed', 'global:dup:load']);
  assert.deepEqual(kept[0]?.shadowedBy, { dir: global, scope: 'global' });
  assert.equal(kept[0]?.replaces, undefined);
  assert.ok(kept[0]?.clash?.includes(project) && kept[0].clash.includes(global), 'both paths');
  assert.match(kept[0]?.clash ?? '', /`zot ext trust dup --replace`/);
  assert.deepEqual(kept[0]?.warnings, [kept[0]?.clash]);

  const asked: string[] = [];
  const replaced = discoverExtensions({
    ...s,
    extPaths: [],
    noExt: false,
    replaces: (p, g) => (asked.push(`${p.dir} -> ${g.dir}`), true),
  }).entries;
  assert.deepEqual(asked, [`${project} -> ${global}`]);
  assert.deepEqual(summary(replaced), ['project:dup:load', 'global:dup:shadowed']);
  assert.equal(replaced[0]?.replaces, replaced[1]);
  assert.deepEqual(replaced[1]?.shadowedBy, { dir: project, scope: 'project' });
  assert.match(replaced[1]?.warnings[0] ?? '', /replaced in this project by .*trusted to replace/);
  assert.equal(replaced[0]?.clash, undefined);

  const refused = discoverExtensions({ ...s, extPaths: [], noExt: false, replaces: () => false });
  assert.deepEqual(summary(refused.entries), ['project:dup:shadowed', 'global:dup:load']);
});

test('no kind of untrusted project entry switches off a global one; each clash names both paths', () => {
  const s = sandbox();
  const guard = (name: string) => ext(s.global, name, { name, exec: 'node' });
  const globals = ['code', 'theme', 'skills', 'off', 'broken', 'twice'].map(guard);
  const projects = [
    ext(s.project, 'a-code', { name: 'code', exec: 'node' }),
    ext(s.project, 'b-theme', { name: 'theme' }, { 'theme.json': '{}' }),
    ext(s.project, 'c-skills', { name: 'skills', skills: ['S.md'] }, { 'S.md': '# s' }),
    ext(s.project, 'd-off', { name: 'off', exec: 'node', enabled: false }),
    ext(s.project, 'e-broken', { name: 'broken', exec: 7 }),
    ext(s.project, 'f-twice', { name: 'twice', exec: 'node' }),
    ext(s.project, 'g-twice', { name: 'twice', exec: 'node' }),
  ];
  const { entries } = discoverExtensions({ ...s, extPaths: [], noExt: false });
  const project = entries.filter((entry) => entry.scope === 'project');
  assert.deepEqual(
    project.map((entry) => entry.status),
    ['shadowed', 'shadowed', 'shadowed', 'shadowed', 'error', 'shadowed', 'shadowed'],
  );
  assert.deepEqual(
    entries.filter((entry) => entry.scope === 'global').map((entry) => entry.status),
    globals.map(() => 'load'),
  );
  for (const [index, entry] of project.entries()) {
    const global = globals[Math.min(index, globals.length - 1)]!;
    assert.ok(entry.clash?.includes(projects[index]!), `${projects[index]} is named`);
    assert.ok(entry.clash?.includes(global), `${global} is named`);
    if (entry.status === 'shadowed')
      assert.deepEqual(entry.shadowedBy, { dir: global, scope: 'global' });
  }
  assert.equal(project[4]?.claimedName, 'broken');
});

test('--ext wins over installed copies of the same name', () => {
  const s = sandbox();
  ext(s.project, 'weather', { name: 'weather', exec: 'node' });
  ext(s.global, 'weather', { name: 'weather', exec: 'node' });
  const dev = ext(s.loose, 'weather-dev', { name: 'weather', exec: 'node' });
  const { entries } = discoverExtensions({ ...s, extPaths: [dev], noExt: false });
  assert.deepEqual(summary(entries), [
    'flag:weather:load',
    'project:weather:shadowed',
    'global:weather:shadowed',
  ]);
  for (const entry of entries.slice(1))
    assert.deepEqual(entry.shadowedBy, { dir: dev, scope: 'flag' });
});

test('shadowing is by manifest name, not directory name', () => {
  const s = sandbox();
  const first = ext(s.global, 'a-dir', { name: 'same', exec: 'node' });
  ext(s.global, 'b-dir', { name: 'same', exec: 'node' });
  const { entries } = discoverExtensions({ ...s, extPaths: [], noExt: false });
  assert.deepEqual(summary(entries), ['global:same:load', 'global:same:shadowed']);
  assert.equal(entries[1]?.shadowedBy?.dir, first);
});

test('a disabled entry still claims its name (a project one only when trusted to); an error entry does not', () => {
  const s = sandbox();
  ext(s.project, 'off', { name: 'off', exec: 'node', enabled: false });
  ext(s.global, 'off', { name: 'off', exec: 'node' });
  ext(s.project, 'broken', { name: 'broken' });
  ext(s.global, 'broken', { name: 'broken', exec: 'node' });
  ext(s.global, 'a-off', { name: 'gone', exec: 'node', enabled: false });
  ext(s.global, 'b-gone', { name: 'gone', exec: 'node' });
  const { entries } = discoverExtensions({
    ...s,
    extPaths: [],
    noExt: false,
    replaces: () => true,
  });
  assert.deepEqual(summary(entries), [
    'project:?:error',
    'project:off:disabled',
    'global:gone:disabled',
    'global:gone:shadowed',
    'global:broken:load',
    'global:off:shadowed',
  ]);
  assert.match(entries[0]?.error ?? '', /broken\/extension\.json: "exec" is required/);
});

test('theme-only and skill-only entries are reported as such', () => {
  const s = sandbox();
  ext(s.global, 'dark', { name: 'dark' }, { 'theme.json': '{}' });
  ext(s.global, 'skills', { name: 'skills', skills: ['SKILL.md'] }, { 'SKILL.md': '# s' });
  const { entries } = discoverExtensions({ ...s, extPaths: [], noExt: false });
  assert.deepEqual(summary(entries), ['global:dark:theme-only', 'global:skills:skill-only']);
});

test('noExt skips project and global but keeps --ext', () => {
  const s = sandbox();
  ext(s.project, 'p', { name: 'p', exec: 'node' });
  ext(s.global, 'g', { name: 'g', exec: 'node' });
  const flag = ext(s.loose, 'f', { name: 'f', exec: 'node' });
  assert.deepEqual(summary(discoverExtensions({ ...s, extPaths: [flag], noExt: true }).entries), [
    'flag:f:load',
  ]);
  assert.deepEqual(discoverExtensions({ ...s, extPaths: [], noExt: true }).entries, []);
});

test('a missing --ext directory or manifest is an error entry naming the path', () => {
  const s = sandbox();
  const missing = join(s.loose, 'missing');
  const empty = join(s.loose, 'empty');
  mkdirSync(empty);
  const file = join(s.loose, 'file');
  writeFileSync(file, 'x');
  const { entries } = discoverExtensions({ ...s, extPaths: [missing, empty, file], noExt: true });
  assert.deepEqual(
    entries.map((e) => [e.scope, e.status, e.dir]),
    [
      ['flag', 'error', missing],
      ['flag', 'error', empty],
      ['flag', 'error', file],
    ],
  );
  assert.match(entries[0]?.error ?? '', new RegExp(`^--ext ${missing}: cannot open`));
  assert.match(
    entries[1]?.error ?? '',
    new RegExp(`^${empty}/extension\\.json: cannot read the manifest`),
  );
  assert.match(entries[2]?.error ?? '', /is not a directory/);
});

test('hidden directories, stray files and directories without a manifest are skipped', () => {
  const s = sandbox();
  ext(s.global, '.hidden', { name: 'hidden', exec: 'node' });
  ext(s.global, '.install-tmp', '{broken');
  mkdirSync(join(s.global, 'no-manifest'));
  writeFileSync(join(s.global, 'README.md'), 'stray');
  ext(s.global, 'real', { name: 'real', exec: 'node' });
  assert.deepEqual(summary(discoverExtensions({ ...s, extPaths: [], noExt: false }).entries), [
    'global:real:load',
  ]);
});

test('bad content becomes error entries and every other extension still loads', () => {
  const s = sandbox();
  ext(s.global, 'a-json', '{nope');
  ext(s.global, 'b-name', { name: '../x', exec: 'node' });
  ext(s.global, 'c-args', { name: 'c', exec: 'node', args: 'x' });
  ext(s.global, 'd-good', { name: 'good', exec: 'node' });
  const { entries } = discoverExtensions({ ...s, extPaths: [], noExt: false });
  assert.deepEqual(summary(entries), [
    'global:?:error',
    'global:?:error',
    'global:?:error',
    'global:good:load',
  ]);
  assert.match(entries[0]?.error ?? '', /a-json\/extension\.json: invalid JSON/);
  assert.match(
    entries[1]?.error ?? '',
    /b-name\/extension\.json: "name": invalid extension name "\.\.\/x"/,
  );
  assert.equal(
    entries[2]?.error,
    `${join(s.global, 'c-args', 'extension.json')}: "args" must be an array of strings`,
  );
});

test('an extensions root that is a file is an error entry, not a throw', () => {
  const s = sandbox();
  mkdirSync(join(s.cwd, '.zot'), { recursive: true });
  writeFileSync(s.project, 'not a directory');
  const { entries } = discoverExtensions({ ...s, extPaths: [], noExt: false });
  assert.deepEqual(
    entries.map((e) => [e.scope, e.status, e.dir]),
    [['project', 'error', s.project]],
  );
  assert.match(entries[0]?.error ?? '', /cannot read extensions directory/);
});

test('a symlinked extension directory is followed and reported at its real path', () => {
  const s = sandbox();
  const work = ext(s.loose, 'working-copy', { name: 'linked', exec: 'node' });
  mkdirSync(s.global, { recursive: true });
  symlinkSync(work, join(s.global, 'linked'));
  const { entries } = discoverExtensions({ ...s, extPaths: [], noExt: false });
  assert.deepEqual(summary(entries), ['global:linked:load']);
  assert.equal(entries[0]?.dir, work);
});

test('when the project root is the global root it is scanned once, as global', () => {
  const s = sandbox();
  const home = join(s.cwd, '.zot');
  ext(join(home, 'extensions'), 'mine', { name: 'mine', exec: 'node' });
  const { entries } = discoverExtensions({ cwd: s.cwd, zotHome: home, extPaths: [], noExt: false });
  assert.deepEqual(summary(entries), ['global:mine:load']);
});

test('manifest warnings are carried on the entry', () => {
  const s = sandbox();
  ext(s.global, 'warned', { name: 'warned', exec: 'node', skills: ['gone'] });
  const [entry] = discoverExtensions({ ...s, extPaths: [], noExt: false }).entries;
  assert.equal(entry?.status, 'load');
  assert.equal(entry?.warnings.length, 1);
  assert.match(entry?.warnings[0] ?? '', /"skills"\[0\] "gone" does not exist/);
});
