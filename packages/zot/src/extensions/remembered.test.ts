import assert from 'node:assert/strict';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  mayGoAhead,
  memoryDir,
  memoryKey,
  memoryText,
  readMemory,
  writeMemory,
  type MemoryIdentity,
} from './remembered.js';
import { checkTool, loadSchemaCheck, type Registrations } from './registrations.js';

await loadSchemaCheck(); // as a start does (extensions/schema-check-loading.test: before that)

function setup() {
  const base = mkdtempSync(join(tmpdir(), 'zot-remembered-'));
  const home = join(base, 'home');
  const dir = join(base, 'ext');
  mkdirSync(home);
  mkdirSync(dir);
  writeFileSync(join(dir, 'main.js'), 'console.log(1)');
  const identity: MemoryIdentity = {
    home,
    dir,
    manifest: { name: 'x', exec: 'node', args: ['main.js'] },
    command: 'node',
    args: ['main.js'],
    env: { PATH: '/bin' },
    inputs: [join(home, 'config.json'), join(home, 'cache')],
    cwd: base,
    hello: { zot_version: '1', provider: 'anthropic', model: 'm' },
  };
  return { base, home, dir, identity, cleanup: () => rmSync(base, { recursive: true }) };
}

const entryNames = (home: string) =>
  readdirSync(memoryDir(home)).filter((name) => /^[0-9a-f]{64}\.json$/.test(name));

function registrations(): Registrations {
  const tool = checkTool({ type: 'register_tool', name: 'echo', description: 'says it' });
  assert.ok(typeof tool !== 'string');
  return {
    tools: new Map([['echo', tool]]),
    commands: new Map([['hi', { name: 'Hi', description: 'greets' }]]),
    events: new Set(),
    intercepts: new Set(),
  };
}

test('remembered registrations: round trip under the same key, nothing under another', async (t) => {
  const { home, dir, identity, cleanup } = setup();
  t.after(cleanup);
  const key = (await memoryKey(identity))!;
  assert.match(key, /^[0-9a-f]{64}$/);
  assert.equal(writeMemory(home, dir, memoryText(key, 'x', registrations())), undefined);
  const read = readMemory(home, dir, key);
  assert.deepEqual([...read.registrations!.tools.keys()], ['echo']);
  assert.equal(read.registrations!.commands.get('hi')!.name, 'Hi');
  assert.equal(readMemory(home, dir, 'f'.repeat(64)).registrations, undefined);
  assert.equal(readMemory(home, dir, 'f'.repeat(64)).problem, undefined, 'stale is no problem');
  // One entry, and the seals beside it.
  assert.deepEqual(entryNames(home).length, 1);
  assert.ok(readdirSync(memoryDir(home)).includes('seals.json'));
});

test('the key changes with any file written in the extension directory, its manifest, model or project', async (t) => {
  const { dir, identity, cleanup } = setup();
  t.after(cleanup);
  const before = await memoryKey(identity);
  assert.equal(await memoryKey(identity), before, 'stable while nothing changes');
  // Same size, same mtime set back: the ctime still moves.
  writeFileSync(join(dir, 'main.js'), 'console.log(2)');
  utimesSync(join(dir, 'main.js'), 0, 0);
  const afterWrite = await memoryKey(identity);
  assert.notEqual(afterWrite, before);
  mkdirSync(join(dir, 'lib'));
  assert.notEqual(await memoryKey(identity), afterWrite, 'a new directory');
  const now = await memoryKey(identity);
  assert.notEqual(await memoryKey({ ...identity, cwd: '/elsewhere' }), now);
  assert.notEqual(
    await memoryKey({ ...identity, hello: { ...identity.hello, model: 'other' } }),
    now,
  );
  assert.notEqual(await memoryKey({ ...identity, manifest: { intercept_failure: 'block' } }), now);
  assert.notEqual(await memoryKey({ ...identity, env: { PATH: '/bin', API_KEY: 'x' } }), now);
  assert.equal(await memoryKey({ ...identity, dir: join(dir, 'missing') }), undefined);
});

test('a hostile or damaged entry is not used, and says why', async (t) => {
  const { home, dir, identity, base, cleanup } = setup();
  t.after(cleanup);
  const key = (await memoryKey(identity))!;
  writeMemory(home, dir, memoryText(key, 'x', registrations()));
  const [name] = entryNames(home);
  const path = join(memoryDir(home), name!);
  const entry = (tools: unknown) =>
    JSON.stringify({ version: 1, key, name: 'x', tools, commands: [], events: [], intercepts: [] });
  const cases: Array<[string, RegExp]> = [
    [entry([{ name: 'bad name!' }]), /invalid tool name/],
    [entry([{ name: 't', schema: { type: 'string' } }]), /must describe an object/],
    [entry([{ name: 't', description: 7 }]), /description that is not text/],
    [entry(Array.from({ length: 3000 }, (_, i) => ({ name: `t${i}` }))), /within the limit/],
    ['['.repeat(100_000), /not used/],
    [entry([]).replace('"events":[]', '"events":["nope"]'), /unknown event/],
  ];
  for (const [text, problem] of cases) {
    writeFileSync(path, text);
    const read = readMemory(home, dir, key);
    assert.equal(read.registrations, undefined, text.slice(0, 80));
    assert.match(read.problem!, problem);
  }
  // A symlink in place of the entry is not followed.
  rmSync(path);
  writeFileSync(join(base, 'elsewhere.json'), entry([]));
  symlinkSync(join(base, 'elsewhere.json'), path);
  assert.equal(readMemory(home, dir, key).registrations, undefined);
  assert.ok(readMemory(home, dir, key).problem);
});

test('the key follows the content of its registration inputs, not their times', async (t) => {
  const { home, identity, cleanup } = setup();
  t.after(cleanup);
  const missing = await memoryKey(identity);
  writeFileSync(join(home, 'config.json'), '{"servers":1}');
  const config = await memoryKey(identity);
  assert.notEqual(config, missing, 'a file that appeared');
  utimesSync(join(home, 'config.json'), 5, 5);
  assert.equal(await memoryKey(identity), config, 'touched, not changed');
  mkdirSync(join(home, 'cache'));
  writeFileSync(join(home, 'cache', 'a.json'), '[1]');
  const cached = await memoryKey(identity);
  assert.notEqual(cached, config);
  writeFileSync(join(home, 'cache', 'a.json'), '[2]');
  assert.notEqual(await memoryKey(identity), cached, 'a file in a directory input changed');
});

test('only an extension that intercepts and observes nothing, and fails open, is not waited for', () => {
  const plain = registrations();
  assert.equal(mayGoAhead(plain, 'allow'), true);
  assert.equal(mayGoAhead(plain, 'block'), false, 'a fail-closed guard is always waited for');
  assert.equal(mayGoAhead(undefined, 'allow'), false, 'nothing remembered');
  assert.equal(mayGoAhead({ ...plain, intercepts: new Set(['tool_call']) }, 'allow'), false);
  assert.equal(mayGoAhead({ ...plain, events: new Set(['session_start']) }, 'allow'), false);
});

test('an entry zot wrote or checked is sealed: its schemas are not checked again until it changes', async (t) => {
  const { home, dir, identity, base, cleanup } = setup();
  t.after(cleanup);
  const key = (await memoryKey(identity))!;
  // A schema the meta-schema check refuses: what shows whether that check was made.
  const entry = (properties: unknown) =>
    JSON.stringify({
      version: 1,
      key,
      name: 'x',
      tools: [{ name: 't', schema: { type: 'object', properties } }],
      commands: [],
      events: [],
      intercepts: [],
    });
  assert.equal(writeMemory(home, dir, entry(5)), undefined);
  const sealed = readMemory(home, dir, key);
  assert.deepEqual([...sealed.registrations!.tools.keys()], ['t'], 'written by zot: sealed');
  const path = join(memoryDir(home), entryNames(home)[0]!);
  // Rewritten in place (another content), or the same bytes put in place as another file: each
  // is checked in full, and refused.
  writeFileSync(path, entry(6));
  assert.match(readMemory(home, dir, key).problem ?? '', /schema cannot be used/);
  writeFileSync(join(base, 'copy.json'), entry(5));
  renameSync(join(base, 'copy.json'), path);
  assert.match(readMemory(home, dir, key).problem ?? '', /schema cannot be used/);
  // A valid entry checked in full is sealed by that check.
  const valid = memoryText(key, 'x', registrations());
  writeFileSync(join(base, 'valid.json'), valid);
  renameSync(join(base, 'valid.json'), path);
  const seals = () => JSON.parse(readFileSync(join(memoryDir(home), 'seals.json'), 'utf8'));
  assert.notEqual(seals()[entryNames(home)[0]!], undefined);
  const before = seals()[entryNames(home)[0]!];
  const full = readMemory(home, dir, key);
  assert.ok(full.registrations);
  assert.notEqual(seals()[entryNames(home)[0]!], before, 'sealed by its full check');
  assert.deepEqual(readMemory(home, dir, key), full, 'a sealed read gives the same registrations');
  // Seals that are not zot's (damaged, a symlink, another user's) seal nothing.
  const sealsPath = join(memoryDir(home), 'seals.json');
  for (const spoil of [
    () => writeFileSync(sealsPath, '{'),
    () => {
      const good = readFileSync(sealsPath);
      rmSync(sealsPath);
      writeFileSync(join(base, 'seals.json'), good);
      symlinkSync(join(base, 'seals.json'), sealsPath);
    },
  ]) {
    assert.equal(writeMemory(home, dir, entry(5)), undefined);
    spoil();
    assert.match(readMemory(home, dir, key).problem ?? '', /schema cannot be used/);
    rmSync(sealsPath, { force: true });
  }
});
