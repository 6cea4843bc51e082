// The permissions block: what it accepts, every refusal naming the field and the entry, and
// what counts as wider when a trusted extension asks again.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  canonicalPermissions,
  describePermissions,
  parsePermissions,
  pathEntryProblem,
  permissionsFromCanonical,
  widenedPermissions,
} from './permissions.js';

test('an empty block is the narrowest scope; every part defaults to nothing', () => {
  assert.deepEqual(parsePermissions({}), {
    fs: { read: [], write: [] },
    net: false,
    exec: [],
    env: [],
  });
});

test('a full block is kept as written (trailing slashes dropped, duplicates once)', () => {
  const parsed = parsePermissions({
    fs: {
      read: ['${project}', '${project}/docs/', '~/.cache/tool', '/usr/share/dict'],
      write: ['${data}', '${data}'],
    },
    net: ['API.example.com', 'api.example.com', 'files.example.com:443', '*.cdn.example'],
    exec: ['git', '${ext}/bin/helper', '/opt/tool/bin/tool'],
    env: ['WEATHER_BASE_URL', 'HTTP_TIMEOUT'],
  });
  assert.deepEqual(parsed, {
    fs: {
      read: ['${project}', '${project}/docs', '~/.cache/tool', '/usr/share/dict'],
      write: ['${data}'],
    },
    net: ['api.example.com', 'files.example.com:443', '*.cdn.example'],
    exec: ['git', '${ext}/bin/helper', '/opt/tool/bin/tool'],
    env: ['WEATHER_BASE_URL', 'HTTP_TIMEOUT'],
  });
  assert.equal(parsePermissions({ net: true, exec: true }).exec, true);
  assert.equal(parsePermissions({ net: [] }).net, false, 'an empty host list is no network');
  assert.deepEqual(parsePermissions({ exec: false }).exec, []);
});

test('path entries: variables, ~ and absolute paths only; no globs, no dot segments', () => {
  for (const ok of ['${project}', '${ext}/x', '${data}/a/b', '~', '~/x', '/', '/etc/hosts'])
    assert.equal(pathEntryProblem(ok), undefined, ok);
  const bad: Array<[string, RegExp]> = [
    ['', /is empty/],
    ['docs', /must start with/],
    ['./docs', /must start with/],
    ['${home}/x', /must start with/],
    ['${project}x', /must start with/],
    ['${project}/$HOME', /variable other than/],
    ['${project}/src/**', /is a glob/],
    ['~/*.txt', /is a glob/],
    ['${project}/../secrets', /"\." or "\.\." segment/],
    ['/a/./b', /"\." or "\.\." segment/],
    ['/a//b', /empty segment/],
    ['/a\nb', /control character/],
  ];
  for (const [entry, problem] of bad) assert.match(pathEntryProblem(entry) ?? '', problem, entry);
});

test('every refusal names the field and the entry', () => {
  const refused: Array<[unknown, RegExp]> = [
    [[], /"permissions" must be an object/],
    [{ files: [] }, /"permissions\.files" is not a permission \(known: fs, net, exec, env\)/],
    [{ fs: ['${project}'] }, /"permissions\.fs" must be an object/],
    [{ fs: { exec: [] } }, /"permissions\.fs\.exec" is not a permission \(known: read, write\)/],
    [{ fs: { read: '${project}' } }, /"permissions\.fs\.read" must be an array of strings/],
    [{ fs: { read: [3] } }, /"permissions\.fs\.read"\[0\] must be a string/],
    [
      { fs: { write: ['${project}', 'src/**'] } },
      /"permissions\.fs\.write"\[1\] "src\/\*\*" must start with/,
    ],
    [{ net: 'yes' }, /"permissions\.net" must be false, true or a list of hosts/],
    [
      { net: ['ok.example', 'http://bad.example/'] },
      /"permissions\.net"\[1\] "http:\/\/bad\.example\/" is not a host/,
    ],
    [{ exec: 'git' }, /"permissions\.exec" must be true, false or a list/],
    [
      { exec: ['git status'] },
      /"permissions\.exec"\[0\] "git status" is neither a program name nor a path/,
    ],
    [{ env: ['OK', 'NOT-OK'] }, /"permissions\.env"\[1\] "NOT-OK" is not a variable name/],
    [{ fs: { read: Array(65).fill('/x') } }, /more than 64 entries/],
  ];
  for (const [raw, message] of refused) assert.throws(() => parsePermissions(raw), message);
});

test('what is wider: new paths, hosts, programs and variables; the block removed; nothing when narrower', () => {
  const before = parsePermissions({ fs: { read: ['${project}'] }, net: ['a.example'], env: ['A'] });
  assert.deepEqual(widenedPermissions(before, before), []);
  assert.deepEqual(widenedPermissions(before, parsePermissions({})), [], 'narrower');
  assert.deepEqual(
    widenedPermissions(
      before,
      parsePermissions({
        fs: { read: ['${project}', '~'], write: ['${project}'] },
        net: ['a.example', 'b.example'],
        exec: ['curl'],
        env: ['A', 'B'],
      }),
    ),
    ['read: ~', 'write: ${project}', 'network: b.example', 'runs: curl', 'env: B'],
  );
  assert.deepEqual(widenedPermissions(before, parsePermissions({ net: true, exec: true })), [
    'network: any host',
    'runs: anything on PATH',
  ]);
  assert.deepEqual(widenedPermissions(before, undefined), [
    'the "permissions" block was removed: it would run with your full rights',
  ]);
  assert.deepEqual(widenedPermissions(undefined, before), [], 'from unscoped: narrower');
});

test('the canonical form round-trips and does not depend on order', () => {
  const a = parsePermissions({ fs: { read: ['/b', '/a'] }, env: ['Y', 'X'] });
  const b = parsePermissions({ env: ['X', 'Y'], fs: { read: ['/a', '/b'] } });
  assert.equal(canonicalPermissions(a), canonicalPermissions(b));
  assert.deepEqual(permissionsFromCanonical(canonicalPermissions(a)), b);
  assert.equal(canonicalPermissions(undefined), 'unscoped');
  assert.equal(permissionsFromCanonical('unscoped'), undefined);
  assert.equal(permissionsFromCanonical('{not json'), undefined);
});

test('the description says what it reads, writes, reaches, runs and gets; unscoped says full rights', () => {
  const lines = describePermissions(
    parsePermissions({ fs: { read: ['${project}'] }, net: ['wttr.in'], exec: ['git'], env: ['K'] }),
  );
  assert.deepEqual(lines, [
    'read:    its own directory, ${project}',
    'write:   its data directory, nothing more',
    "network: only wttr.in (through zot's proxy)",
    'runs:    its interpreter, git',
    'env:     K',
  ]);
  assert.match(describePermissions(undefined)[0]!, /^unscoped: .*full rights/);
});
