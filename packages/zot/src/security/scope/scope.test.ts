// A scoped extension's sandbox on a made-up machine: what is mounted (and nothing else), what
// stays hidden whatever is declared, how interpreters and Node's modules are found without
// opening the home directory, and the bwrap arguments and macOS profile derived from it.
import assert from 'node:assert/strict';
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { parsePermissions } from './permissions.js';
import { scopeBwrapArgs } from './scope-bwrap.js';
import {
  buildScope,
  scopedEnvironment,
  type ScopeInputs,
  type ScopePolicy,
} from './scope-policy.js';
import { scopeSeatbeltProfile } from './scope-seatbelt.js';

const root = realpathSync(mkdtempSync(join(tmpdir(), 'zot-scope-unit-')));
after(() => rmSync(root, { recursive: true, force: true }));

const home = join(root, 'home');
const zotHome = join(home, '.local', 'state', 'zot');
const extDir = join(zotHome, 'extensions', 'demo');
const dataDir = join(zotHome, 'extension-data', 'demo-0123456789ab');
const project = join(home, 'work', 'project');
const nodeHome = join(home, '.nvm', 'versions', 'node', 'v20.0.0');
const node = join(nodeHome, 'bin', 'node');
const pyenv = join(home, '.pyenv');
const shim = join(pyenv, 'shims', 'fakepy');
for (const dir of [
  join(home, '.ssh'),
  extDir,
  dataDir,
  project,
  join(nodeHome, 'bin'),
  join(pyenv, 'shims'),
  join(home, 'bin'),
])
  mkdirSync(dir, { recursive: true });
writeFileSync(join(home, '.ssh', 'id_ed25519'), 'secret');
writeFileSync(join(home, '.netrc'), 'secret');
writeFileSync(join(zotHome, 'auth.json'), '{}');
const executable = (path: string, text: string) => (
  writeFileSync(path, text),
  chmodSync(path, 0o755)
);
executable(node, 'ELF');
executable(shim, '#!/usr/bin/env bash\nexec real-python "$@"\n');
executable(join(home, 'bin', 'tool'), 'ELF');
executable(join(extDir, 'main.py'), '#!/usr/bin/env fakepy\nprint(1)\n');
const PATH = [
  join(home, 'bin'),
  join(pyenv, 'shims'),
  join(nodeHome, 'bin'),
  '/usr/bin',
  '/bin',
].join(':');

function scope(
  permissions: unknown,
  extra: Partial<ScopeInputs> = {},
): ScopePolicy & { notes: string[] } {
  const result = buildScope({
    permissions: parsePermissions(permissions),
    extDir,
    dataDir,
    project,
    home,
    zotHome,
    command: node,
    path: PATH,
    ...extra,
  });
  if (!result.ok) throw new Error(result.error);
  return { ...result.policy, notes: result.notes };
}

const mountOf = (policy: ScopePolicy, path: string) => policy.mounts.find((m) => m.path === path);

test('nothing of the home is there but its own directory, its data, the interpreter and what it declares', () => {
  const policy = scope({});
  const shown = policy.mounts.filter((m) => m.access !== 'hidden').map((m) => m.path);
  const inHome = shown.filter((path) => path.startsWith(home));
  assert.deepEqual(inHome.sort(), [dataDir, extDir, nodeHome].sort());
  assert.equal(mountOf(policy, extDir)?.access, 'read-only');
  assert.equal(mountOf(policy, dataDir)?.access, 'writable');
  assert.equal(mountOf(policy, nodeHome)?.access, 'read-only', 'the directory above its bin');
  assert.ok(!shown.includes(project), 'the project only when declared');
  assert.ok(!shown.includes('/etc'), 'not /etc, only what programs need of it');
  assert.ok(
    !shown.some((path) => ['/etc/shadow', '/etc/ssh', '/root', '/home', '/var'].includes(path)),
  );
  assert.ok(shown.includes('/usr') || policy.links.some((l) => l.path === '/usr'));
  assert.equal(policy.network, false);
});

test('declared paths: the project read-only or writable, ~ with every hidden path covered, missing ones noted', () => {
  const policy = scope({
    fs: { read: ['~', '${project}/missing.txt'], write: ['${project}'] },
  });
  assert.equal(mountOf(policy, home)?.access, 'read-only');
  assert.equal(mountOf(policy, project)?.access, 'writable');
  for (const hidden of [join(home, '.ssh'), join(home, '.netrc'), zotHome])
    assert.equal(mountOf(policy, hidden)?.access, 'hidden', hidden);
  // Deeper wins: its own directories come after the cover of $ZOT_HOME.
  const order = policy.mounts.map((m) => m.path);
  assert.ok(order.indexOf(zotHome) < order.indexOf(extDir));
  assert.ok(order.indexOf(zotHome) < order.indexOf(dataDir));
  assert.ok(order.indexOf(home) < order.indexOf(join(home, '.ssh')));
  assert.match(
    policy.notes.join('\n'),
    /\$\{project\}\/missing\.txt: .*missing\.txt does not exist/,
  );
});

test('a declared path into a hidden one is refused, through a symlink too', () => {
  const refused = (permissions: unknown) => {
    const result = buildScope({
      permissions: parsePermissions(permissions),
      extDir,
      dataDir,
      project,
      home,
      zotHome,
      command: node,
      path: PATH,
    });
    assert.equal(result.ok, false);
    return (result as { error: string }).error;
  };
  assert.match(
    refused({ fs: { read: ['~/.ssh'] } }),
    /permissions\.fs\.read: ~\/\.ssh: .*\.ssh is hidden from every sandbox \(~\/\.ssh \(always hidden\)\)/,
  );
  assert.match(
    refused({ fs: { read: [join(zotHome, 'auth.json')] } }),
    /auth\.json is hidden from every sandbox \(\$ZOT_HOME/,
  );
  symlinkSync(join(home, '.ssh'), join(project, 'keys'));
  assert.match(
    refused({ fs: { read: ['${project}/keys'] } }),
    /keys \(really .*\/home\/\.ssh\) is hidden/,
  );
  assert.match(
    refused({ fs: { read: ['/tmp'] }, exec: [join(home, '.ssh', 'id_ed25519')] }),
    /permissions\.exec: .*lies in ~\/\.ssh/,
  );
  assert.ok(
    buildScope({
      permissions: parsePermissions({ fs: { write: ['${data}/sub', '${ext}'] } }),
      extDir,
      dataDir,
      project,
      home,
      zotHome,
      command: node,
      path: PATH,
    }).ok,
    'its own directories are not hidden from it',
  );
});

test('interpreters: a #! script finds its interpreter on PATH, a shim its installation; never the home itself', () => {
  const policy = scope({}, { command: join(extDir, 'main.py') });
  assert.equal(mountOf(policy, pyenv)?.access, 'read-only', "the shim directory's parent");
  const tool = scope({ exec: ['tool'] });
  assert.equal(mountOf(tool, join(home, 'bin', 'tool'))?.access, 'read-only', 'the program alone');
  assert.ok(!mountOf(tool, home) && !mountOf(tool, join(home, 'bin')), 'not ~ nor ~/bin');
  const absent = scope({ exec: ['no-such-program'] });
  assert.match(absent.notes.join('\n'), /permissions\.exec: no-such-program: not found on PATH/);
  const all = scope({ exec: true });
  assert.ok(!mountOf(all, home), 'never the home itself');
  assert.equal(mountOf(all, join(home, 'bin'))?.access, 'read-only', 'a PATH entry');
  assert.equal(mountOf(all, pyenv)?.access, 'read-only');
});

test('Node: the node_modules above it and the packages they link to', () => {
  const repo = join(root, 'repo');
  const ext = join(repo, 'examples', 'hello');
  const pkg = join(repo, 'packages', 'sdk');
  for (const dir of [ext, join(repo, 'node_modules', '@zot'), pkg, join(pkg, 'node_modules')])
    mkdirSync(dir, { recursive: true });
  writeFileSync(join(ext, 'extension.json'), '{}');
  symlinkSync(pkg, join(repo, 'node_modules', '@zot', 'sdk'));
  writeFileSync(join(repo, 'package.json'), '{"type":"module"}');
  const policy = scope({}, { extDir: ext, command: node });
  assert.equal(mountOf(policy, join(repo, 'node_modules'))?.access, 'read-only');
  assert.equal(mountOf(policy, pkg)?.access, 'read-only', 'the linked workspace package');
  assert.equal(
    mountOf(policy, join(repo, 'package.json'))?.access,
    'read-only',
    'its package scope',
  );
  assert.ok(!mountOf(policy, repo), 'not the repository');
  executable(join(ext, 'main.py'), '#!/usr/bin/env fakepy\n');
  const python = scope({}, { extDir: ext, command: join(ext, 'main.py') });
  assert.ok(!mountOf(python, join(repo, 'node_modules')), 'only for Node');
});

test('a project reached through a symlink is there under both names', () => {
  const link = join(home, 'work', 'project-link');
  symlinkSync(project, link);
  const policy = scope({ fs: { read: ['${project}'] } }, { project: link });
  assert.equal(mountOf(policy, project)?.access, 'read-only');
  assert.deepEqual(
    policy.links.find((l) => l.path === link),
    { path: link, target: project },
  );
});

test("zot's own files it runs on (its Python SDK): read-only, with their variable; not inside a hidden path", () => {
  const sdk = join(root, 'zot', 'sdk-python', 'zot_sdk');
  mkdirSync(sdk, { recursive: true });
  const policy = scope({}, { provided: { readOnly: [sdk], env: ['PYTHONPATH'] } });
  assert.equal(mountOf(policy, sdk)?.access, 'read-only');
  assert.ok(!policy.mounts.some((m) => m.path === join(root, 'zot')), 'only the SDK itself');
  assert.deepEqual(policy.env, ['PYTHONPATH']);
  assert.deepEqual(scope({}).env, []);
  const secret = join(home, '.ssh', 'zot_sdk');
  mkdirSync(secret, { recursive: true });
  assert.throws(() => scope({}, { provided: { readOnly: [secret], env: [] } }), /lies in ~\/\.ssh/);
});

test('the environment: the basic variables, LC_* and ZOT_EXT_*, and what it declares; never keys', () => {
  const env = scopedEnvironment(
    {
      PATH: '/usr/bin',
      HOME: '/h',
      LANG: 'C',
      LC_ALL: 'C',
      ZOT_EXT_TOOL_TIMEOUT_MS: '5',
      ANTHROPIC_API_KEY: 'k',
      ZOT_HOME: '/z',
      NODE_OPTIONS: '--require x',
      WANTED: 'w',
      PYTHONPYCACHEPREFIX: '/elsewhere',
    },
    ['WANTED'],
    '/data',
  );
  assert.deepEqual(Object.keys(env).sort(), [
    'HOME',
    'LANG',
    'LC_ALL',
    'PATH',
    'PYTHONPYCACHEPREFIX',
    'WANTED',
    'ZOT_EXT_TOOL_TIMEOUT_MS',
  ]);
  assert.equal(env.PYTHONPYCACHEPREFIX, '/data/.pycache', 'its own, not the one outside');
});

test("Python's bytecode goes to the data directory, unless bytecode is not to be written at all", () => {
  assert.equal(scopedEnvironment({}, [], '/data').PYTHONPYCACHEPREFIX, '/data/.pycache');
  const off = scopedEnvironment({ PYTHONDONTWRITEBYTECODE: '1' }, [], '/data');
  assert.equal(off.PYTHONPYCACHEPREFIX, undefined);
  assert.equal(off.PYTHONDONTWRITEBYTECODE, '1');
  const passed = scopedEnvironment({ PYTHONPYCACHEPREFIX: '/mine' }, ['PYTHONPYCACHEPREFIX'], '/d');
  assert.equal(passed.PYTHONPYCACHEPREFIX, '/mine', 'a prefix its permissions pass through');
});

const at = (args: string[], flag: string, path: string) => {
  for (let i = 0; i < args.length - 1; i++) if (args[i] === flag && args[i + 1] === path) return i;
  return -1;
};

test('bwrap: an empty root made read-only, mounts shallow to deep, covers last, no network unless true', () => {
  const policy = scope({ fs: { read: ['~'] } });
  const args = scopeBwrapArgs({ scope: policy, cwd: extDir, argv: ['node', 'index.mjs'] });
  for (const flag of ['--die-with-parent', '--new-session', '--unshare-all'])
    assert.ok(args.includes(flag), flag);
  assert.ok(at(args, '--cap-drop', 'ALL') >= 0);
  assert.equal(at(args, '--ro-bind', '/'), -1, 'the host root is not there');
  assert.ok(!args.includes('--share-net'));
  assert.ok(at(args, '--ro-bind', home) < at(args, '--tmpfs', join(home, '.ssh')));
  assert.ok(at(args, '--tmpfs', zotHome) < at(args, '--ro-bind', extDir));
  assert.ok(at(args, '--tmpfs', zotHome) < at(args, '--bind', dataDir));
  assert.ok(at(args, '--ro-bind', '/dev/null') >= 0, 'a hidden file is covered by /dev/null');
  assert.ok(at(args, '--remount-ro', join(home, '.ssh')) > at(args, '--bind', dataDir));
  assert.ok(at(args, '--remount-ro', '/') > at(args, '--remount-ro', zotHome));
  assert.deepEqual(args.slice(-5), ['--chdir', extDir, '--', 'node', 'index.mjs']);
  const shared = scopeBwrapArgs({ scope: scope({ net: true }), cwd: extDir, argv: ['x'] });
  assert.ok(shared.includes('--share-net'));
  const proxied = scopeBwrapArgs({
    scope: scope({ net: ['a.example'] }),
    cwd: extDir,
    proxyDir: '/run/p',
    argv: ['x'],
  });
  assert.ok(!proxied.includes('--share-net'));
  assert.ok(at(proxied, '--ro-bind', '/run/p') > at(proxied, '--tmpfs', '/tmp'));
});

test('macOS: deny by default, the system readable, its mounts as rules, hidden ones denied after', () => {
  const policy = scope({ fs: { read: ['~'] }, net: ['a.example'] });
  const profile = scopeSeatbeltProfile({
    scope: policy,
    tempDir: join(dataDir, 'tmp'),
    proxyPort: 4321,
  });
  const lines = profile.split('\n');
  assert.equal(lines[1], '(deny default)');
  assert.ok(lines.some((line) => line.startsWith('(allow file-read* (subpath "/System")')));
  assert.ok(lines.includes(`(allow file-read* file-write* (subpath "${join(dataDir, 'tmp')}"))`));
  const read = lines.indexOf(`(allow file-read* (subpath "${home}"))`);
  const ssh = lines.indexOf(`(deny file-read* file-write* (subpath "${join(home, '.ssh')}"))`);
  const data = lines.indexOf(`(allow file-read* file-write* (subpath "${dataDir}"))`);
  assert.ok(
    read >= 0 &&
      ssh > read &&
      data > lines.indexOf(`(deny file-read* file-write* (subpath "${zotHome}"))`),
  );
  assert.ok(lines.includes(`(deny file-read* file-write* (literal "${join(home, '.netrc')}"))`));
  assert.ok(lines.includes('(allow network-outbound (remote tcp "localhost:4321"))'));
  assert.ok(!profile.includes('(allow network*)'));
  assert.ok(
    lines.includes(
      '(deny mach-lookup (global-name "com.apple.mDNSResponder") (global-name "com.apple.dnssd.service"))',
    ),
  );
  assert.ok(
    scopeSeatbeltProfile({ scope: scope({ net: true }), tempDir: '/t' }).includes(
      '(allow network*)',
    ),
  );
});
