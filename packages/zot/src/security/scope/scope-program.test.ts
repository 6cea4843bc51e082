// A sandbox for a program that is no extension (`zot sandbox exec`, the MCP bridge's servers):
// no directory of its own, `${ext}` refused, and a path both readable and writable is writable.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { parsePermissions } from './permissions.js';
import { scopeBwrapArgs } from './scope-bwrap.js';
import { buildScope, type ScopeInputs } from './scope-policy.js';

const root = realpathSync(mkdtempSync(join(tmpdir(), 'zot-scope-program-')));
after(() => rmSync(root, { recursive: true, force: true }));
const home = join(root, 'home');
const zotHome = join(home, '.zot');
const dataDir = join(zotHome, 'sandbox-data', 'mcp-fs-0123456789ab');
const project = join(root, 'project');
for (const dir of [dataDir, project]) mkdirSync(dir, { recursive: true });

const inputs = (permissions: unknown): ScopeInputs => ({
  permissions: parsePermissions(permissions),
  dataDir,
  project,
  home,
  zotHome,
  command: '/bin/sh',
  path: '/usr/bin:/bin',
});

test('without a directory of its own: only what the block names, its data and the system', () => {
  const result = buildScope(inputs({ fs: { read: ['${project}'] } }));
  assert.ok(result.ok);
  assert.equal(result.policy.extDir, undefined);
  const own = result.policy.mounts.filter((m) => m.why === 'its own directory');
  assert.deepEqual(own, []);
  const project_ = result.policy.mounts.find((m) => m.path === project)!;
  assert.equal(project_.access, 'read-only');
  assert.equal(result.policy.mounts.find((m) => m.path === dataDir)!.access, 'writable');
});

test('${ext} names nothing here: refused, naming the entry', () => {
  const result = buildScope(inputs({ fs: { read: ['${ext}/x'] } }));
  assert.equal(result.ok, false);
  assert.match(
    (result as { error: string }).error,
    /\$\{ext\}\/x: \$\{ext\} names an extension's directory/,
  );
});

test('a path both read and written is writable (the later read-only mount would win in bwrap)', () => {
  const result = buildScope(inputs({ fs: { read: ['${project}'], write: ['${project}'] } }));
  assert.ok(result.ok);
  const atProject = result.policy.mounts.filter((m) => m.path === project);
  assert.deepEqual(
    atProject.map((m) => m.access),
    ['writable'],
  );
  const args = scopeBwrapArgs({ scope: result.policy, cwd: project, argv: ['true'] });
  assert.ok(args.join(' ').includes(`--bind ${project} ${project}`));
  assert.ok(!args.join(' ').includes(`--ro-bind ${project} ${project}`));
});
