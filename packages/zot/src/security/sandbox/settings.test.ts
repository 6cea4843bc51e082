// The sandbox block: what a file may say, and that a project can only make it stricter.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  normalizeHostEntry,
  parseSandboxSettings,
  stricterMode,
  tightenSandbox,
  userSandbox,
} from './settings.js';

const HOME = '/home/ann';

test('a full block is read; ~ and relative paths resolve against home and the base', () => {
  const { settings, warnings } = parseSandboxSettings(
    {
      mode: 'required',
      network: ['Example.COM', 'api.example.com:443', '*.npmjs.org', '[::1]:8080'],
      deny_read: ['~/.npmrc', 'secrets', '/etc/shadow'],
      allow_write: ['~/.cache/pip'],
    },
    'config.json',
    '/work/project',
    HOME,
  );
  assert.deepEqual(warnings, []);
  assert.deepEqual(settings, {
    mode: 'required',
    network: ['example.com', 'api.example.com:443', '*.npmjs.org', '[::1]:8080'],
    denyRead: ['/home/ann/.npmrc', '/work/project/secrets', '/etc/shadow'],
    allowWrite: ['/home/ann/.cache/pip'],
  });
});

test('every bad part is named and left out; the rest still counts', () => {
  const { settings, warnings } = parseSandboxSettings(
    {
      mode: 'sometimes',
      network: ['ok.example', 'http://bad.example/', 'a:99999', 'two words', 7],
      deny_read: 'not a list',
      allow_write: ['/fine', '', 'line\nbreak', 5],
      extra: true,
    },
    'f.json',
    '/p',
    HOME,
  );
  assert.deepEqual(settings, { network: ['ok.example'], allowWrite: ['/fine'] });
  const text = warnings.join('\n');
  for (const part of [
    'sandbox.mode',
    'http://bad.example/',
    'a:99999',
    'two words',
    'deny_read',
    'control character',
    'sandbox.extra',
  ])
    assert.ok(text.includes(part), `${part} is named in: ${text}`);
});

test('network that is neither a boolean nor a list falls back to no network, with a warning', () => {
  const { settings, warnings } = parseSandboxSettings({ network: 'yes' }, 'f.json', '/p', HOME);
  assert.equal(settings.network, false);
  assert.match(warnings[0]!, /sandbox\.network must be false, true or a list/);
});

test('a block that is not an object is ignored, named', () => {
  const { settings, warnings } = parseSandboxSettings(['on'], 'f.json', '/p', HOME);
  assert.deepEqual(settings, {});
  assert.match(warnings[0]!, /"sandbox" must be an object/);
});

test('long lists are cut at 256 entries, with a warning', () => {
  const many = Array.from({ length: 300 }, (_, i) => `/p${i}`);
  const { settings, warnings } = parseSandboxSettings({ deny_read: many }, 'f.json', '/p', HOME);
  assert.equal(settings.denyRead!.length, 256);
  assert.match(warnings.join('\n'), /more than 256 entries/);
});

test('host entries: case, trailing dots, ports and wildcards', () => {
  assert.equal(normalizeHostEntry('Example.com.'), 'example.com');
  assert.equal(normalizeHostEntry('example.com:0'), undefined);
  assert.equal(normalizeHostEntry('*.example.com:443'), '*.example.com:443');
  assert.equal(normalizeHostEntry('a..b'), undefined);
  assert.equal(normalizeHostEntry('user@host'), undefined);
  assert.equal(normalizeHostEntry('*'), undefined);
});

test('a project can raise the mode but never lower it', () => {
  const on = userSandbox({ mode: 'on' });
  assert.equal(tightenSandbox(on, { mode: 'required' }, 'p').settings.mode, 'required');
  assert.equal(tightenSandbox(on, { mode: 'off' }, 'p').settings.mode, 'on');
  assert.equal(stricterMode('off', 'on'), 'on');
  assert.equal(stricterMode('required', 'on'), 'required');
});

test('a project narrows the network: false wins, lists intersect, true changes nothing', () => {
  const open = userSandbox({ network: true });
  assert.deepEqual(tightenSandbox(open, { network: ['a.example'] }, 'p').settings.network, [
    'a.example',
  ]);
  assert.equal(tightenSandbox(open, { network: false }, 'p').settings.network, false);
  const listed = userSandbox({ network: ['a.example', 'b.example:443'] });
  assert.deepEqual(tightenSandbox(listed, { network: true }, 'p').settings.network, listed.network);
  // A project entry the user's list does not allow is not added.
  assert.deepEqual(
    tightenSandbox(listed, { network: ['b.example:443', 'c.example', 'a.example:80'] }, 'p')
      .settings.network,
    ['b.example:443'],
  );
  const off = userSandbox({ network: false });
  assert.equal(tightenSandbox(off, { network: true }, 'p').settings.network, false);
});

test('a project adds deny_read but its allow_write is refused, named in a warning', () => {
  const user = userSandbox({ denyRead: ['/a'], allowWrite: ['/w'] });
  const { settings, warnings } = tightenSandbox(
    user,
    { denyRead: ['/a', '/b'], allowWrite: ['/home/ann'] },
    '/p/.zot/settings.json',
  );
  assert.deepEqual(settings.denyRead, ['/a', '/b']);
  assert.deepEqual(settings.allowWrite, ['/w']);
  assert.match(
    warnings[0]!,
    /\/p\/\.zot\/settings\.json: sandbox\.allow_write is ignored.*\/home\/ann/,
  );
});

test('sandbox.extensions: "required" refuses unscoped extensions; a project can set it, never lift it', () => {
  const parsed = parseSandboxSettings({ extensions: 'required' }, 'c.json', '/p');
  assert.deepEqual(parsed, { settings: { extensions: 'required' }, warnings: [] });
  const bad = parseSandboxSettings({ extensions: 'sometimes' }, 'c.json', '/p');
  assert.deepEqual(bad.settings, {});
  assert.match(
    bad.warnings[0]!,
    /c\.json: sandbox\.extensions must be "optional" or "required"; got "sometimes"/,
  );
  assert.equal(userSandbox({}).extensions, 'optional');
  const optional = userSandbox({});
  assert.equal(
    tightenSandbox(optional, { extensions: 'required' }, 'p').settings.extensions,
    'required',
  );
  const required = userSandbox({ extensions: 'required' });
  assert.equal(
    tightenSandbox(required, { extensions: 'optional' }, 'p').settings.extensions,
    'required',
  );
});
