import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';

const base = realpathSync(mkdtempSync(join(tmpdir(), 'zot-json-')));
after(() => rmSync(base, { recursive: true, force: true }));

const MODULE = fileURLToPath(new URL('./json-file.js', import.meta.url));

test('updateJsonObject: concurrent processes never lose each other’s updates', async () => {
  const path = join(base, 'counter.json');
  const writers = 6;
  const rounds = 20;
  // Each process adds its own key `rounds` times; a lost update would drop a key or a count.
  const script = `
    const { updateJsonObject } = await import(${JSON.stringify(MODULE)});
    const me = process.argv[1];
    for (let i = 0; i < ${rounds}; i++) {
      updateJsonObject(${JSON.stringify(path)}, 0o600, (read) => {
        if (!read.ok) throw new Error(read.error);
        const value = read.value ?? {};
        return { ...value, [me]: (value[me] ?? 0) + 1 };
      });
    }`;
  const exits = await Promise.all(
    Array.from({ length: writers }, (_, i) => {
      const child = spawn(process.execPath, ['--input-type=module', '-e', script, `w${i}`], {
        stdio: ['ignore', 'ignore', 'inherit'],
      });
      return new Promise((resolve) => child.on('close', resolve));
    }),
  );
  assert.deepEqual(exits, Array(writers).fill(0));
  const expected = Object.fromEntries(Array.from({ length: writers }, (_, i) => [`w${i}`, rounds]));
  assert.deepEqual(JSON.parse(readFileSync(path, 'utf8')), expected);
});
