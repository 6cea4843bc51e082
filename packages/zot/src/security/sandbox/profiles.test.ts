// The bwrap command line and the macOS profile for one policy: the same boundaries, in the order
// that makes the deepest rule win.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bwrapArgs, PROXY_DIR_INSIDE } from './bwrap.js';
import type { PathRule, SandboxPolicy } from './policy.js';
import { sbplString, seatbeltProfile } from './seatbelt.js';

const rule = (
  path: string,
  access: PathRule['access'],
  kind: PathRule['kind'] = 'dir',
): PathRule => ({
  path,
  access,
  kind,
  source: 'test',
});

// As buildPolicy orders them: shallow to deep.
const POLICY: SandboxPolicy = {
  project: '/home/ann/.config/gcloud/proj',
  network: false,
  notes: [],
  rules: [
    rule('/home/ann/.aws', 'hidden', 'missing'),
    rule('/home/ann/.ssh', 'hidden'),
    rule('/home/ann/.netrc', 'hidden', 'file'),
    rule('/home/ann/.config/gcloud', 'hidden'),
    rule('/home/ann/.config/gcloud/proj', 'writable'),
    rule('/home/ann/.config/gcloud/proj/.env', 'hidden', 'file'),
    rule('/proc/self', 'hidden'),
  ],
};

/** Index of the flag `flag` whose next argument is `path`. */
function at(args: string[], flag: string, path: string): number {
  for (let i = 0; i < args.length - 1; i++)
    if (args[i] === flag && args.at(i + 1) === path) return i;
  return -1;
}

test('bwrap: every namespace, no capabilities, the host read-only, die with zot, own session', () => {
  const args = bwrapArgs({ policy: POLICY, cwd: POLICY.project, argv: ['bash', '-c', 'true'] });
  for (const flag of ['--die-with-parent', '--new-session', '--unshare-all'])
    assert.ok(args.includes(flag), flag);
  assert.ok(at(args, '--cap-drop', 'ALL') >= 0);
  assert.ok(at(args, '--ro-bind', '/') >= 0);
  assert.ok(!args.includes('--share-net'), 'network false: no --share-net');
  assert.ok(
    at(args, '--tmpfs', '/tmp') >= 0 &&
      at(args, '--dev', '/dev') >= 0 &&
      at(args, '--proc', '/proc') >= 0,
  );
  assert.deepEqual(args.slice(-6), ['--chdir', POLICY.project, '--', 'bash', '-c', 'true']);
});

test('bwrap: hidden directories get an empty tmpfs made read-only last, files /dev/null, missing ones nothing', () => {
  const args = bwrapArgs({ policy: POLICY, cwd: POLICY.project, argv: ['true'] });
  const tmpfs = at(args, '--tmpfs', '/home/ann/.ssh');
  assert.ok(tmpfs >= 0);
  assert.deepEqual(
    args.slice(at(args, '--ro-bind', '/dev/null'), at(args, '--ro-bind', '/dev/null') + 3),
    ['--ro-bind', '/dev/null', '/home/ann/.netrc'],
  );
  assert.ok(!args.includes('/home/ann/.aws'), 'a missing path is not mounted');
  assert.ok(!args.includes('/proc/self'), 'nothing is mounted inside /proc');
  const lastMount = Math.max(
    at(args, '--bind', POLICY.project),
    at(args, '--ro-bind', '/dev/null'),
  );
  assert.ok(
    at(args, '--remount-ro', '/home/ann/.ssh') > lastMount,
    'read-only once nothing more goes in',
  );
  assert.ok(at(args, '--remount-ro', '/home/ann/.config/gcloud') > lastMount);
});

test('bwrap: a project inside a hidden directory is mounted after it; a hidden file inside the project after the project', () => {
  const args = bwrapArgs({ policy: POLICY, cwd: POLICY.project, argv: ['true'] });
  const hidden = at(args, '--tmpfs', '/home/ann/.config/gcloud');
  const project = at(args, '--bind', POLICY.project);
  const env = args.indexOf('/home/ann/.config/gcloud/proj/.env');
  assert.ok(hidden >= 0 && hidden < project && project < env, `${hidden} < ${project} < ${env}`);
  assert.ok(at(args, '--tmpfs', '/tmp') < hidden);
});

test('bwrap: the network is shared only for true; a host list binds the proxy directory read-only', () => {
  const open = bwrapArgs({ policy: { ...POLICY, network: true }, cwd: '/', argv: ['true'] });
  assert.ok(open.includes('--share-net'));
  const listed = bwrapArgs({
    policy: { ...POLICY, network: ['example.com'] },
    cwd: '/',
    proxyDir: '/tmp/zot-net-abc',
    argv: ['true'],
  });
  assert.ok(!listed.includes('--share-net'));
  const bind = at(listed, '--ro-bind', '/tmp/zot-net-abc');
  assert.equal(listed[bind + 2], PROXY_DIR_INSIDE);
  assert.ok(bind > at(listed, '--tmpfs', '/tmp'), 'after the private /tmp it lives in');
});

const MAC: SandboxPolicy = {
  project: '/Users/ann/proj',
  network: false,
  notes: [],
  rules: [
    rule('/Users/ann/.ssh', 'hidden'),
    rule('/Users/ann/.netrc', 'hidden', 'file'),
    rule('/Users/ann/Library/Application Support/zot', 'hidden'),
    rule('/Users/ann/proj', 'writable'),
    rule('/Users/ann/Library/Application Support/zot/skills', 'read-only'),
    rule('/Users/ann/proj/.env', 'hidden', 'file'),
  ],
};

test('seatbelt: deny by default, read everything but the hidden paths, write the project and temp dirs', () => {
  const profile = seatbeltProfile({
    policy: MAC,
    tempDirs: ['/private/tmp', '/private/var/folders/xy/T'],
  });
  const lines = profile.trim().split('\n');
  assert.equal(lines[0], '(version 1)');
  assert.equal(lines[1], '(deny default)');
  assert.ok(lines.includes('(allow file-read*)'));
  assert.ok(lines.includes('(allow file-write* (subpath "/private/tmp"))'));
  assert.ok(lines.includes('(allow file-write* (subpath "/private/var/folders/xy/T"))'));
  assert.ok(lines.includes('(deny file-read* file-write* (subpath "/Users/ann/.ssh"))'));
  assert.ok(lines.includes('(deny file-read* file-write* (literal "/Users/ann/.netrc"))'));
  assert.ok(lines.includes('(allow file-read* file-write* (subpath "/Users/ann/proj"))'));
  assert.ok(
    lines.includes(
      '(allow file-read* (subpath "/Users/ann/Library/Application Support/zot/skills"))',
    ),
  );
  // The last matching rule applies: each deeper rule comes after the one it refines.
  const index = (text: string) => lines.findIndex((line) => line.includes(text));
  assert.ok(index('(subpath "/Users/ann/proj")') < index('(literal "/Users/ann/proj/.env")'));
  assert.ok(index('zot"))') < index('zot/skills"))'));
  assert.ok(index('(allow file-read*)') < index('/Users/ann/.ssh'));
});

test('seatbelt: no network and no DNS unless true; a host list allows only the proxy port', () => {
  const off = seatbeltProfile({ policy: MAC, tempDirs: [] });
  assert.ok(!off.includes('network'));
  assert.ok(off.includes('(deny mach-lookup (global-name "com.apple.mDNSResponder")'));
  const on = seatbeltProfile({ policy: { ...MAC, network: true }, tempDirs: [] });
  assert.ok(on.includes('(allow network*)'));
  assert.ok(!on.includes('mDNSResponder'));
  const listed = seatbeltProfile({
    policy: { ...MAC, network: ['example.com'] },
    tempDirs: [],
    proxyPort: 41234,
  });
  assert.ok(listed.includes('(allow network-outbound (remote tcp "localhost:41234"))'));
  assert.ok(!listed.includes('(allow network*)'));
});

test('seatbelt: quotes and backslashes in paths are escaped; control characters are refused', () => {
  assert.equal(sbplString('/a "b"\\c'), '"/a \\"b\\"\\\\c"');
  assert.throws(() => sbplString('/a\nb'), /control characters/);
  const profile = seatbeltProfile({
    policy: { ...MAC, rules: [rule('/x")(allow default)(', 'hidden')] },
    tempDirs: [],
  });
  assert.ok(profile.includes('(subpath "/x\\")(allow default)("))'));
});
