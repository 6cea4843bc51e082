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
import { hashExtensionDir, TrustStore, trustGate, trustStateOf } from './trust.js';

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

function hashOf(dir: string): string {
  const result = hashExtensionDir(dir);
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
  const listed = hashExtensionDir(a);
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
  const escaped = hashExtensionDir(absolute);
  assert.ok(!escaped.ok);
  assert.match(escaped.error, /evil\.js is a symlink to .* which points outside/);

  const relative = extDir();
  symlinkSync('../../outside.js', join(relative, 'evil.js'));
  assert.ok(!hashExtensionDir(relative).ok);

  const big = extDir({ 'a/1': '', 'a/2': '', 'a/3': '' });
  const capped = hashExtensionDir(big, { maxEntries: 3, maxBytes: 1e9 });
  assert.ok(!capped.ok);
  assert.match(capped.error, /more than 3 files and directories; refusing/);
  const heavy = hashExtensionDir(extDir({ 'big.bin': 'x'.repeat(2048) }), {
    maxEntries: 100,
    maxBytes: 1024,
  });
  assert.ok(!heavy.ok);
  assert.match(heavy.error, /refusing to process such a large tree/);
});

test('the trust store writes atomically with mode 0600 and reports a corrupt file', () => {
  const path = join(base, 'store', 'trust.json');
  const store = new TrustStore(path);
  assert.deepEqual(store.read(), { ok: true, records: new Map() });
  store.set('/p/a', 'a', 'sha256:1', new Date('2030-01-01T00:00:00Z'));
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
  assert.equal(trustStateOf(realpathSync(dir), store).state, 'trusted');

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
