// The tool-schema check is loaded on first need, not at zot's start: a sealed memory entry is
// read without it, an unsealed one asks for it, a live register_tool frame never runs unchecked
// (the ArrivalGate holds what a process reports until it is loaded), and nothing overtakes.
// Each test file runs in a process of its own, so here the check starts unloaded.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { ArrivalGate } from './frame-reading.js';
import { checkTool, loadSchemaCheck, schemaCheckLoaded } from './registrations.js';
import { memoryDir, memoryKey, readMemory, writeMemory } from './remembered.js';

test('a sealed entry is read without the schema check; an unsealed one waits for it', async (t) => {
  const base = mkdtempSync(join(tmpdir(), 'zot-schema-check-'));
  t.after(() => rmSync(base, { recursive: true }));
  const home = join(base, 'home');
  const dir = join(base, 'ext');
  mkdirSync(home);
  mkdirSync(dir);
  const key = (await memoryKey({
    home,
    dir,
    manifest: { name: 'x' },
    command: 'node',
    args: [],
    env: {},
    inputs: [],
    cwd: base,
    hello: { zot_version: '1', provider: 'p', model: 'm' },
  }))!;
  // A schema the meta-schema check refuses: what shows whether that check was made.
  const entry = JSON.stringify({
    version: 1,
    key,
    name: 'x',
    tools: [{ name: 't', schema: { type: 'object', properties: 5 } }],
    commands: [],
    events: [],
    intercepts: [],
  });
  assert.equal(schemaCheckLoaded(), false, 'nothing loaded it yet');
  assert.throws(
    () => checkTool({ type: 'register_tool', name: 't', schema: { type: 'object' } }),
    /schema check is not loaded/,
    'a schema is never passed unchecked',
  );
  assert.equal(writeMemory(home, dir, entry), undefined);
  const sealed = readMemory(home, dir, key);
  assert.deepEqual([...sealed.registrations!.tools.keys()], ['t'], 'sealed: no check needed');
  assert.equal(schemaCheckLoaded(), false, 'and none loaded');
  // Rewritten by someone else: no longer sealed, so it must be checked in full.
  const name = readdirSync(memoryDir(home)).find((n) => /^[0-9a-f]{64}\.json$/.test(n))!;
  writeFileSync(join(memoryDir(home), name), entry.replace('"x"', '"y"'));
  assert.deepEqual(readMemory(home, dir, key), { needsSchemaCheck: true });
  await loadSchemaCheck();
  assert.match(readMemory(home, dir, key).problem ?? '', /schema cannot be used/);
});

test('the arrival gate holds events until its promise settles, then runs them in order', async () => {
  let open!: () => void;
  const seen: string[] = [];
  const gate = new ArrivalGate(new Promise<void>((resolve) => (open = resolve)), () =>
    seen.push('failed'),
  );
  gate.run(() => seen.push('hello'));
  gate.run(() => seen.push('exit'));
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(seen.length, 0, 'nothing runs before the checks are loaded');
  open();
  await Promise.resolve();
  assert.deepEqual(seen, ['hello', 'exit']);
  gate.run(() => seen.push('later'));
  assert.deepEqual(seen, ['hello', 'exit', 'later'], 'once open, at once');

  const after: string[] = [];
  const failing = new ArrivalGate(Promise.reject(new Error('gone')), (error) =>
    after.push(`failed: ${(error as Error).message}`),
  );
  failing.run(() => after.push('hello'));
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(after, ['failed: gone', 'hello'], 'the failure is told before any line');
});
