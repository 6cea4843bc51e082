// prepareScope's starter: a start in the same turn as the check gets the scope just checked
// (built once, not twice); any later start builds it again, so it sees paths as they are then.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { parsePermissions } from '../security/scope/permissions.js';
import type { ScopeLaunch } from '../security/scope/launch.js';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { extensionDataDir, prepareScope } from './scopes.js';

const root = realpathSync(mkdtempSync(join(tmpdir(), 'zot-scopes-')));
after(() => rmSync(root, { recursive: true, force: true }));
const home = join(root, 'home');
const project = join(root, 'project');
for (const dir of [home, project]) mkdirSync(dir, { recursive: true });
// Only the sandbox program has to be found: a stand-in bwrap (nothing is run).
const bin = join(root, 'bin');
mkdirSync(bin);
writeFileSync(join(bin, 'bwrap'), '#!/bin/sh\nexit 1\n', { mode: 0o755 });

function plan(later: string) {
  const planned = prepareScope({
    name: 'fresh',
    kind: 'program',
    permissions: parsePermissions({ fs: { read: [later] } }),
    dataDir: join(home, '.zot', 'sandbox-data', 'fresh'),
    project,
    home,
    zotHome: join(home, '.zot'),
    command: '/bin/sh',
    path: '/usr/bin:/bin',
    denyRead: [],
    env: { PATH: bin },
    platform: 'linux',
  });
  assert.equal(planned.kind, 'scoped');
  return planned.kind === 'scoped' ? planned : assert.fail();
}

const mounted = (
  started: ReturnType<ReturnType<typeof plan>['starter']['start']>,
  path: string,
) => {
  assert.ok(!('error' in started), JSON.stringify(started));
  const scope = (started.policy.scope as ScopeLaunch).scope;
  started.release();
  return scope.mounts.some((mount) => mount.path === path);
};

test('a start in the same turn uses the scope just checked; a later one builds it again', async () => {
  const later = join(project, 'appears-later');
  const first = plan(later);
  assert.match(first.notes.join('\n'), /appears-later does not exist/);
  // Made after the check, before the start: the start in this turn does not look again.
  mkdirSync(later);
  assert.equal(mounted(first.starter.start(), later), false);
  await Promise.resolve();
  assert.equal(mounted(first.starter.start(), later), true, 'a restart sees it');

  rmSync(later, { recursive: true });
  const held = plan(later);
  mkdirSync(later);
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(mounted(held.starter.start(), later), true, 'a held-back start builds it again');
});

test('a data directory keeps the name it had when node:crypto named it (no user loses its data)', () => {
  for (const dir of ['/home/u/.zot/extensions/weather', '/home/ü/プロジェクト/.zot/extensions/x']) {
    const tag = createHash('sha256').update(dir).digest('hex').slice(0, 12);
    assert.equal(
      extensionDataDir('/z', 'weather', dir),
      join('/z', 'extension-data', `weather-${tag}`),
    );
  }
});

test('naming a data directory does not load node:crypto (it is named before the spawn)', () => {
  const scopes = new URL('./scopes.js', import.meta.url).href;
  const script =
    `const { extensionDataDir } = await import(${JSON.stringify(scopes)});` +
    `extensionDataDir('/z', 'x', '/e');` +
    `console.log(process.moduleLoadList.includes('NativeModule crypto'));`;
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    encoding: 'utf8',
  });
  assert.equal(run.status, 0, run.stderr);
  assert.equal(run.stdout.trim(), 'false');
});
