import assert from 'node:assert/strict';
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { readManifest, writeManifestField, type ManifestResult } from './manifest.js';

const root = realpathSync(mkdtempSync(join(tmpdir(), 'zot-manifest-')));
after(() => rmSync(root, { recursive: true, force: true }));

let counter = 0;
/** A fresh extension directory holding `manifest` (an object, or raw text) and `files`. */
function extDir(manifest: unknown, files: Record<string, string> = {}): string {
  const dir = join(root, `ext-${++counter}`);
  mkdirSync(dir, { recursive: true });
  const text = typeof manifest === 'string' ? manifest : JSON.stringify(manifest);
  writeFileSync(join(dir, 'extension.json'), text);
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), content);
  }
  return dir;
}

function expectError(result: ManifestResult, pattern: RegExp): string {
  assert.equal(result.ok, false, 'expected a manifest error');
  if (result.ok) throw new Error('unreachable');
  assert.match(result.error, pattern);
  return result.error;
}

test('a full manifest is read with every field', () => {
  const dir = extDir({
    name: 'weather',
    version: '1.0.0',
    exec: './weather',
    args: ['--mode', 'daemon'],
    language: 'go',
    description: 'current weather',
    enabled: true,
    intercept_failure: 'block',
    restart: 'never',
    ready_timeout_ms: 40000,
    registration_inputs: ['$ZOT_HOME/weather.json', '$CWD/.weather'],
    sdk: 'python',
    future_field: { anything: 1 },
  });
  const result = readManifest(dir);
  assert.ok(result.ok);
  assert.deepEqual(result.warnings, []);
  assert.deepEqual(result.manifest, {
    name: 'weather',
    version: '1.0.0',
    exec: './weather',
    args: ['--mode', 'daemon'],
    language: 'go',
    description: 'current weather',
    skills: [],
    enabled: true,
    dir,
    manifestPath: join(dir, 'extension.json'),
    kind: 'process',
    interceptFailure: 'block',
    restart: 'never',
    readyTimeoutMs: 40000,
    registrationInputs: ['$ZOT_HOME/weather.json', '$CWD/.weather'],
    sdk: 'python',
  });
});

test('registration_inputs: only $ZOT_HOME/ or $CWD/ paths without ".."', () => {
  for (const entry of ['/etc/passwd', 'config.json', '$ZOT_HOME/', '$CWD/../x', '$HOME/x', 7]) {
    const result = readManifest(extDir({ name: 'a', exec: 'node', registration_inputs: [entry] }));
    expectError(result, /registration_inputs/);
  }
});

test('defaults: args and skills empty, enabled true; null counts as absent', () => {
  const result = readManifest(extDir({ name: 'a', exec: 'node', args: null, version: null }));
  assert.ok(result.ok);
  assert.deepEqual(result.manifest.args, []);
  assert.deepEqual(result.manifest.skills, []);
  assert.equal(result.manifest.enabled, true);
  assert.equal('version' in result.manifest, false);
  // The spec's behaviour unless the manifest asks otherwise (design D24, D25).
  assert.equal(result.manifest.interceptFailure, 'allow');
  assert.equal(result.manifest.restart, 'on-failure');
  assert.equal('readyTimeoutMs' in result.manifest, false, "zot's ready deadline applies");
});

test('enabled:false is kept', () => {
  const result = readManifest(extDir({ name: 'off', exec: 'node', enabled: false }));
  assert.ok(result.ok);
  assert.equal(result.manifest.enabled, false);
});

test('dir is the real path even through a symlink', () => {
  const target = extDir({ name: 'linked', exec: 'node' });
  const link = join(root, 'link-to-ext');
  symlinkSync(target, link);
  const result = readManifest(link);
  assert.ok(result.ok);
  assert.equal(result.manifest.dir, target);
  assert.equal(result.manifest.manifestPath, join(target, 'extension.json'));
});

test('invalid JSON names the file', () => {
  const dir = extDir('{"name": "x",');
  const error = expectError(readManifest(dir), /invalid JSON/);
  assert.ok(error.startsWith(join(dir, 'extension.json') + ': '), error);
});

test('a manifest nested past the depth bound is an error naming the file, not a crash', () => {
  const deep = '{"name":"x","exec":"node","x":' + '['.repeat(10_000) + ']'.repeat(10_000) + '}';
  const dir = extDir(deep);
  const error = expectError(readManifest(dir), /nested deeper than 128 levels/);
  assert.ok(error.startsWith(join(dir, 'extension.json') + ': '), error);
  assert.throws(
    () => writeManifestField(join(dir, 'extension.json'), 'enabled', false),
    /extension\.json: JSON nested deeper than 128 levels/,
  );
});

test('a BOM before the JSON is tolerated', () => {
  assert.ok(readManifest(extDir('\uFEFF{"name":"bom","exec":"node"}')).ok);
});

test('a non-object manifest is refused', () => {
  for (const text of ['[]', '"x"', 'null', '42']) {
    expectError(readManifest(extDir(text)), /extension\.json: expected a JSON object$/);
  }
});

test('a missing directory and a missing manifest are errors naming the path', () => {
  const missing = join(root, 'nope');
  const result = readManifest(missing);
  const error = expectError(result, /cannot open the extension directory \(not found\)/);
  assert.ok(error.startsWith(join(missing, 'extension.json')), error);
  const empty = join(root, 'empty-dir');
  mkdirSync(empty);
  expectError(
    readManifest(empty),
    /empty-dir\/extension\.json: cannot read the manifest \(not found\)/,
  );
});

test('name: missing, wrong type and outside the rule', () => {
  expectError(readManifest(extDir({ exec: 'node' })), /extension\.json: "name" is required$/);
  expectError(
    readManifest(extDir({ name: 7, exec: 'node' })),
    /extension\.json: "name" must be a string$/,
  );
  for (const name of ['../x', 'a/b', 'A', 'a'.repeat(65), '', 'a..b']) {
    const error = expectError(
      readManifest(extDir({ name, exec: 'node' })),
      /extension\.json: "name": invalid/,
    );
    assert.ok(error.includes(JSON.stringify(name)), error);
  }
});

test('every wrongly typed field is named', () => {
  const cases: [Record<string, unknown>, string][] = [
    [{ args: 'x' }, '"args" must be an array of strings'],
    [{ args: ['a', 1] }, '"args" must be an array of strings'],
    [{ skills: 'skills' }, '"skills" must be an array of strings'],
    [{ skills: [null] }, '"skills" must be an array of strings'],
    [{ enabled: 'false' }, '"enabled" must be true or false'],
    [{ enabled: 0 }, '"enabled" must be true or false'],
    [{ version: 1 }, '"version" must be a string'],
    [{ language: ['go'] }, '"language" must be a string'],
    [{ description: {} }, '"description" must be a string'],
    [{ exec: 5 }, '"exec" must be a string'],
    [{ exec: '' }, '"exec" must not be empty'],
    [{ intercept_failure: 'deny' }, '"intercept_failure" must be "allow" or "block"'],
    [{ intercept_failure: true }, '"intercept_failure" must be "allow" or "block"'],
    [{ restart: 'always' }, '"restart" must be "on-failure" or "never"'],
    [{ restart: 0 }, '"restart" must be "on-failure" or "never"'],
    [{ sdk: 'ruby' }, '"sdk" must be "python"'],
    [{ sdk: true }, '"sdk" must be "python"'],
    ...[0, -1, 1.5, '3000', 120_001].map((value): [Record<string, unknown>, string] => [
      { ready_timeout_ms: value },
      '"ready_timeout_ms" must be a whole number of milliseconds from 1 to 120000',
    ]),
  ];
  for (const [fields, message] of cases) {
    const dir = extDir({ name: 'typed', exec: 'node', ...fields });
    const error = expectError(readManifest(dir), /./);
    assert.equal(error, `${join(dir, 'extension.json')}: ${message}`);
  }
});

test('exec is required for a process extension', () => {
  const dir = extDir({ name: 'noexec' });
  const error = expectError(readManifest(dir), /"exec" is required/);
  assert.ok(error.startsWith(join(dir, 'extension.json')));
  expectError(readManifest(extDir({ name: 'noexec', skills: [] })), /"exec" is required/);
});

test('theme-only: theme.json or themes/theme.json, no exec needed', () => {
  for (const file of ['theme.json', 'themes/theme.json']) {
    const result = readManifest(extDir({ name: 'dark' }, { [file]: '{}' }));
    assert.ok(result.ok, file);
    assert.equal(result.manifest.kind, 'theme');
    assert.equal(result.manifest.exec, undefined);
  }
});

test('skill-only: a non-empty skills array, no exec needed', () => {
  const result = readManifest(
    extDir({ name: 'skilled', skills: ['skills'] }, { 'skills/a/SKILL.md': '# a' }),
  );
  assert.ok(result.ok);
  assert.equal(result.manifest.kind, 'skills');
  assert.deepEqual(result.manifest.skills, ['skills']);
  assert.deepEqual(result.warnings, []);
});

test('"sdk" needs a program to run: a theme-only or skill-only manifest with it is an error', () => {
  const theme = extDir({ name: 'dark', sdk: 'python' }, { 'theme.json': '{}' });
  expectError(readManifest(theme), /"sdk" is for extensions that run a program \("exec"\)/);
  const skills = extDir({ name: 'skilled', skills: ['s'], sdk: 'python' }, { 's/SKILL.md': '# s' });
  expectError(readManifest(skills), /"sdk" is for extensions that run a program/);
});

test('an extension with exec and a theme is still a process', () => {
  const result = readManifest(extDir({ name: 'both', exec: 'node' }, { 'theme.json': '{}' }));
  assert.ok(result.ok);
  assert.equal(result.manifest.kind, 'process');
});

test('a missing skill path is a warning; one escaping the directory is an error', () => {
  const dir = extDir({ name: 'sk', skills: ['gone', 'SKILL.md'] }, { 'SKILL.md': '# s' });
  const result = readManifest(dir);
  assert.ok(result.ok);
  assert.deepEqual(result.warnings, [
    `${join(dir, 'extension.json')}: "skills"[0] "gone" does not exist`,
  ]);

  expectError(
    readManifest(extDir({ name: 'sk', skills: ['../x'] })),
    /"skills"\[0\] "\.\.\/x" points outside/,
  );
  expectError(
    readManifest(extDir({ name: 'sk', skills: ['/etc'] })),
    /"skills"\[0\] "\/etc" points outside/,
  );
  const linked = extDir({ name: 'sk', skills: ['out'] });
  symlinkSync(tmpdir(), join(linked, 'out'));
  expectError(readManifest(linked), /"skills"\[0\] "out" points outside/);
});

test('writeManifestField changes one field and keeps the others in order', () => {
  const dir = extDir(
    '{\n    "name": "keep",\n  "version": "1.0.0",\n  "exec": "./run",\n  "enabled": true,\n  "x-custom": [1, 2]\n}',
  );
  const path = join(dir, 'extension.json');
  writeManifestField(path, 'enabled', false);
  const text = readFileSync(path, 'utf8');
  assert.equal(
    text,
    '{\n  "name": "keep",\n  "version": "1.0.0",\n  "exec": "./run",\n  "enabled": false,\n  "x-custom": [\n    1,\n    2\n  ]\n}\n',
  );
  writeManifestField(path, 'description', 'added');
  assert.deepEqual(Object.keys(JSON.parse(readFileSync(path, 'utf8')) as object), [
    'name',
    'version',
    'exec',
    'enabled',
    'x-custom',
    'description',
  ]);
});

test('writeManifestField keeps the file mode and leaves no temp file', () => {
  const dir = extDir({ name: 'mode', exec: 'node' });
  const path = join(dir, 'extension.json');
  chmodSync(path, 0o600);
  writeManifestField(path, 'enabled', false);
  assert.equal(statSync(path).mode & 0o777, 0o600);
  assert.deepEqual(readdirSync(dir), ['extension.json']);
});

test('writeManifestField throws an error naming the file on bad JSON', () => {
  const dir = extDir('not json');
  const path = join(dir, 'extension.json');
  assert.throws(
    () => writeManifestField(path, 'enabled', true),
    (error: Error) => {
      assert.ok(error.message.startsWith(`${path}: invalid JSON`), error.message);
      return true;
    },
  );
  assert.throws(
    () => writeManifestField(join(root, 'missing.json'), 'enabled', true),
    /missing\.json: cannot read/,
  );
  assert.equal(readFileSync(path, 'utf8'), 'not json');
});

test('a permissions block is read; without one the extension is unscoped', () => {
  const scoped = readManifest(
    extDir({ name: 'w', exec: 'node', permissions: { net: ['wttr.in'], env: ['KEY'] } }),
  );
  assert.ok(scoped.ok);
  assert.deepEqual(scoped.manifest.permissions, {
    fs: { read: [], write: [] },
    net: ['wttr.in'],
    exec: [],
    env: ['KEY'],
  });
  const unscoped = readManifest(extDir({ name: 'u', exec: 'node' }));
  assert.ok(unscoped.ok);
  assert.equal(unscoped.manifest.permissions, undefined);
  const nulled = readManifest(extDir({ name: 'n', exec: 'node', permissions: null }));
  assert.ok(nulled.ok && nulled.manifest.permissions === undefined, 'null counts as absent');
});

test('a bad permissions block is a manifest error naming the file, the field and the entry', () => {
  const dir = extDir({ name: 'g', exec: 'node', permissions: { fs: { read: ['src/**'] } } });
  expectError(
    readManifest(dir),
    new RegExp(
      `${join(dir, 'extension.json').replace(/[.]/g, '\\.')}: "permissions\\.fs\\.read"\\[0\\] "src/\\*\\*" must start with`,
    ),
  );
  expectError(
    readManifest(extDir({ name: 'g2', exec: 'node', permissions: { network: true } })),
    /"permissions\.network" is not a permission/,
  );
});

test('transport: a remote extension instead of exec; its fields checked and named', () => {
  const ws = { type: 'websocket', url: 'wss://policy.example/zot' };
  const read = readManifest(extDir({ name: 'policy', transport: { ...ws, token_env: 'TEAM_T' } }));
  assert.ok(read.ok);
  assert.equal(read.manifest.kind, 'remote');
  assert.deepEqual(read.manifest.remote, { ...ws, headers: {}, tokenEnv: 'TEAM_T' });
  const bad = (transport: unknown, pattern: RegExp, extra = {}) =>
    expectError(readManifest(extDir({ name: 'policy', transport, ...extra })), pattern);
  bad(ws, /"exec" is for extensions zot starts; one with "transport" runs elsewhere/, {
    exec: 'node',
  });
  bad({ ...ws, type: 'carrier-pigeon' }, /"transport.type" must be "websocket" or "http"/);
  bad({ ...ws, url: 'https://h/x' }, /must begin with ws:\/\/ or wss:\/\/ for a websocket/);
  bad({ ...ws, url: 'wss://me:hunter2@h/x' }, /carries credentials; put the token in an/);
  const quoted = bad({ ...ws, url: 'wss://me:hunter2@h/x' }, /wss:\/\/\*\*\*@h\/x/);
  assert.doesNotMatch(quoted, /hunter2/);
  bad({ ...ws, headers: { Authorization: 'Bearer x' } }, /is set by zot itself/);
  bad({ ...ws, headers: { 'x-a': 'one\ntwo' } }, /must be one line/);
  bad({ ...ws, token_env: 'not a name' }, /"transport.token_env" must be the name of/);
});
