// Trust answers given inside a running zot: reviews of what is untrusted, run-once pinned to the
// reviewed content, trust always recorded as `zot ext trust` records it, stale answers refused.
import assert from 'node:assert/strict';
import {
  appendFileSync,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { discoverExtensions } from './discovery.js';
import { ProjectTrust } from './project-trust.js';
import { TrustStore } from './trust.js';

const base = realpathSync(mkdtempSync(join(tmpdir(), 'zot-project-trust-')));
after(() => rmSync(base, { recursive: true, force: true }));

let counter = 0;
function project(names: string[]) {
  const root = join(base, `p${++counter}`);
  const home = join(root, 'home');
  const cwd = join(root, 'repo');
  mkdirSync(home, { recursive: true });
  const dirs = names.map((name) => {
    const dir = join(cwd, '.zot', 'extensions', name);
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'extension.json'),
      JSON.stringify({
        name,
        description: `the ${name} one`,
        exec: 'node',
        args: ['main.mjs', '--x y'],
      }),
    );
    writeFileSync(join(dir, 'main.mjs'), `// ${name}\n`);
    return dir;
  });
  const paths = { home, trust: join(home, 'trust.json') };
  const trust = (env: NodeJS.ProcessEnv = {}) => new ProjectTrust({ paths, cwd, env });
  const entryOf = (dir: string) => {
    const found = discoverExtensions({ cwd, zotHome: home, extPaths: [], noExt: false }).entries;
    return found.find((entry) => entry.dir === dir)!;
  };
  return { cwd, home, dirs, paths, trust, entryOf };
}

test('a new project extension is reviewed with what it runs and what the hash covers', () => {
  const p = project(['alpha']);
  const reviews = p.trust().reviews();
  assert.equal(reviews.length, 1);
  const [review] = reviews;
  assert.equal(review!.name, 'alpha');
  assert.equal(review!.dir, p.dirs[0]);
  assert.equal(review!.state, 'new');
  assert.equal(review!.description, 'the alpha one');
  assert.deepEqual(review!.argv.slice(1), ['main.mjs', '--x y']);
  assert.equal(review!.files, 2);
  assert.ok(review!.bytes > 0);
  assert.match(review!.hash, /^sha256:[0-9a-f]{64}$/);
  assert.match(p.trust().gate(p.entryOf(p.dirs[0]!)) ?? '', /is not trusted/);
});

test('run once lets it start in this process only, and only while its content is unchanged', () => {
  const p = project(['alpha']);
  const trust = p.trust();
  const [review] = trust.reviews();
  assert.equal(trust.decide(review!.dir, review!.hash, 'once'), undefined);
  assert.equal(trust.gate(p.entryOf(review!.dir)), undefined);
  assert.equal(trust.reviews()[0]!.state, 'once', 'still offered for trusting always');
  // Nothing was written: another process (the next run) asks again.
  assert.match(p.trust().gate(p.entryOf(review!.dir)) ?? '', /is not trusted/);
  const stored = new TrustStore(p.paths.trust).read();
  assert.ok(stored.ok && stored.records.size === 0, 'run once records nothing');
  appendFileSync(join(review!.dir, 'main.mjs'), 'process.exit(1)\n');
  assert.match(
    trust.gate(p.entryOf(review!.dir)) ?? '',
    /is not trusted/,
    'a change ends run-once',
  );
  assert.equal(trust.reviews()[0]!.state, 'new');
});

test('trust always is recorded as `zot ext trust` records it; a later change asks again', () => {
  const p = project(['alpha', 'beta']);
  const trust = p.trust();
  const reviews = trust.reviews();
  assert.deepEqual(reviews.map((r) => r.name).sort(), ['alpha', 'beta']);
  const alpha = reviews.find((r) => r.name === 'alpha')!;
  assert.equal(trust.decide(alpha.dir, alpha.hash, 'always'), undefined);
  const read = new TrustStore(p.paths.trust).read();
  assert.ok(read.ok);
  assert.equal(read.records.get(alpha.dir)?.hash, alpha.hash);
  // A fresh process (the next run) trusts it too, and reviews only beta.
  assert.equal(p.trust().gate(p.entryOf(alpha.dir)), undefined);
  assert.deepEqual(
    p
      .trust()
      .reviews()
      .map((r) => r.name),
    ['beta'],
  );
  writeFileSync(join(alpha.dir, 'main.mjs'), '// other code\n');
  const again = p
    .trust()
    .reviews()
    .find((r) => r.name === 'alpha');
  assert.equal(again?.state, 'changed');
  assert.ok(again?.trustedAt, 'says when the old content was trusted');
});

test('an answer about content that changed since its review is refused', () => {
  const p = project(['alpha']);
  const trust = p.trust();
  const [review] = trust.reviews();
  writeFileSync(join(review!.dir, 'main.mjs'), '// swapped after the review\n');
  assert.match(
    trust.decide(review!.dir, review!.hash, 'always') ?? '',
    /changed while you reviewed it/,
  );
  assert.match(
    trust.decide(review!.dir, review!.hash, 'once') ?? '',
    /changed while you reviewed it/,
  );
  assert.match(trust.gate(p.entryOf(review!.dir)) ?? '', /is not trusted/);
  assert.match(
    trust.decide(join(p.cwd, 'nowhere'), review!.hash, 'always') ?? '',
    /no longer a project extension/,
  );
});

test('skip takes a run-once answer back; ZOT_TRUST_PROJECT_EXTENSIONS=1 leaves nothing to review', () => {
  const p = project(['alpha']);
  const trust = p.trust();
  const [review] = trust.reviews();
  trust.decide(review!.dir, review!.hash, 'once');
  assert.equal(trust.decide(review!.dir, review!.hash, 'skip'), undefined);
  assert.match(trust.gate(p.entryOf(review!.dir)) ?? '', /is not trusted/);
  assert.deepEqual(p.trust({ ZOT_TRUST_PROJECT_EXTENSIONS: '1' }).reviews(), []);
});

test('a project extension with a global one’s name is reviewed as replacing it; only that answer lets it', () => {
  const p = project(['guard']);
  const globalDir = join(p.home, 'extensions', 'guard');
  mkdirSync(globalDir, { recursive: true });
  writeFileSync(join(globalDir, 'extension.json'), JSON.stringify({ name: 'guard', exec: 'node' }));
  const mine = realpathSync(globalDir);
  const discover = (trust: ProjectTrust) =>
    discoverExtensions({
      cwd: p.cwd,
      zotHome: p.home,
      extPaths: [],
      noExt: false,
      replaces: trust.mayReplace,
    }).entries.map((entry) => `${entry.scope}:${entry.status}`);
  const trust = p.trust();
  assert.deepEqual(discover(trust), ['project:shadowed', 'global:load'], 'the global one is kept');
  const [review] = trust.reviews();
  assert.deepEqual(review?.replaces, { name: 'guard', dir: mine }, 'the review names both');
  assert.match(trust.decide(review!.dir, review!.hash, 'once') ?? '', /changed while you reviewed/);
  assert.equal(trust.decide(review!.dir, review!.hash, 'once', mine), undefined);
  assert.deepEqual(discover(trust), ['project:load', 'global:shadowed'], 'run once replaces it');
  assert.deepEqual(discover(p.trust()), ['project:shadowed', 'global:load'], 'in this process');
  assert.equal(trust.decide(review!.dir, review!.hash, 'always', mine), undefined);
  const record = new TrustStore(p.paths.trust).read();
  assert.ok(record.ok);
  assert.equal(record.records.get(review!.dir)?.replaces, mine);
  assert.deepEqual(discover(p.trust()), ['project:load', 'global:shadowed'], 'the next run');
  assert.deepEqual(p.trust().reviews(), []);
  // Trusted without replacing (as `zot ext trust guard` records it): kept apart, not asked again.
  new TrustStore(p.paths.trust).set(review!.dir, 'guard', review!.hash);
  assert.deepEqual(discover(p.trust()), ['project:shadowed', 'global:load']);
  assert.deepEqual(p.trust().reviews(), []);
  appendFileSync(join(review!.dir, 'main.mjs'), '// more\n');
  assert.equal(p.trust().reviews()[0]?.state, 'changed');
});

test('the review shows the permissions; trusted permissions that widen ask again, naming what is new', () => {
  const p = project(['alpha']);
  const [unscoped] = p.trust().reviews();
  assert.equal(unscoped!.scoped, false);
  assert.match(unscoped!.permissions[0]!, /^unscoped: .*full rights/);
  const manifestPath = join(p.dirs[0]!, 'extension.json');
  const write = (permissions: unknown) =>
    writeFileSync(
      manifestPath,
      JSON.stringify({ name: 'alpha', exec: 'node', args: ['main.mjs'], permissions }),
    );
  write({ fs: { read: ['${project}'] } });
  const trust = p.trust();
  const [scoped] = trust.reviews();
  assert.equal(scoped!.scoped, true);
  assert.deepEqual(scoped!.permissions.slice(0, 3), [
    'read:    its own directory, ${project}',
    'write:   its data directory, nothing more',
    'network: none',
  ]);
  assert.deepEqual(scoped!.widened, []);
  assert.equal(trust.decide(scoped!.dir, scoped!.hash, 'always'), undefined);
  const stored = new TrustStore(p.paths.trust).read();
  assert.ok(stored.ok);
  assert.equal(
    stored.records.get(scoped!.dir)?.permissions,
    '{"fs":{"read":["${project}"],"write":[]},"net":false,"exec":[],"env":[]}',
  );
  // The same extension, asking for the network and the home directory: trust is asked again.
  write({ fs: { read: ['${project}', '~'] }, net: true });
  assert.match(p.trust().gate(p.entryOf(p.dirs[0]!)) ?? '', /changed since you trusted it/);
  const [wider] = p.trust().reviews();
  assert.equal(wider!.state, 'changed');
  assert.deepEqual(wider!.widened, ['read: ~', 'network: any host']);
  // Narrower: still a change to review, but nothing wider to point at.
  write({});
  assert.deepEqual(p.trust().reviews()[0]!.widened, []);
});
