import assert from 'node:assert/strict';
import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { createEditTool } from './edit.js';
import { applyEdits, countMatches, detectEol } from './edit-apply.js';
import { makeContext, tempDir, textOf } from './test-helpers.js';

let dir = '';
let cleanup = (): void => {};
before(() => ({ dir, cleanup } = tempDir()));
after(() => cleanup());

const edit = createEditTool();
const run = (path: string, edits: Array<{ oldText: string; newText: string }>) =>
  edit.execute({ path, edits }, makeContext(dir));

function fixture(name: string, content: string | Buffer): string {
  const file = join(dir, name);
  writeFileSync(file, content);
  return file;
}

const SOURCE = 'function a() {\n  return 1;\n}\n\nfunction b() {\n  return 2;\n}\n';

test('replaces text and answers with a unified diff', async () => {
  const file = fixture('one.ts', SOURCE);
  const output = await run('one.ts', [{ oldText: 'return 1;', newText: 'return 10;' }]);
  assert.equal(output.isError, false);
  assert.equal(readFileSync(file, 'utf8'), SOURCE.replace('return 1;', 'return 10;'));
  const text = textOf(output);
  assert.match(
    text,
    /^Edited one\.ts \(1 edit\)\n\n--- one\.ts\n\+\+\+ one\.ts\n@@ -1,5 \+1,5 @@\n/,
  );
  assert.ok(text.includes('\n-  return 1;\n+  return 10;\n'));
  assert.ok(!text.includes('Index:'));
});

test('applies several edits in order, each seeing the previous result', async () => {
  const file = fixture('multi.ts', SOURCE);
  const output = await run('multi.ts', [
    { oldText: 'function a()', newText: 'function alpha()' },
    { oldText: 'alpha() {\n  return 1;', newText: 'alpha() {\n  return 100;' },
    { oldText: 'return 2;', newText: 'return 200;' },
  ]);
  assert.equal(output.isError, false, textOf(output));
  assert.equal(
    readFileSync(file, 'utf8'),
    'function alpha() {\n  return 100;\n}\n\nfunction b() {\n  return 200;\n}\n',
  );
  assert.match(textOf(output), /\(3 edits\)/);
});

test('0 or 2 matches fail with the edit index and count, leaving the file untouched', async () => {
  const file = fixture('strict.ts', SOURCE);
  const before = statSync(file).mtimeMs;

  const none = await run('strict.ts', [{ oldText: 'return 3;', newText: 'x' }]);
  assert.equal(none.isError, true);
  assert.match(textOf(none), /^edit: edits\[0\]\.oldText matched 0 times in strict\.ts; /);

  const twice = await run('strict.ts', [
    { oldText: 'function a', newText: 'function z' },
    { oldText: 'return', newText: 'yield' },
  ]);
  assert.equal(twice.isError, true);
  assert.match(
    textOf(twice),
    /^edit: edits\[1\]\.oldText matched 2 times in strict\.ts; it must match exactly once/,
  );
  assert.match(textOf(twice), /No edits were applied\.$/);

  assert.equal(readFileSync(file, 'utf8'), SOURCE);
  assert.equal(statSync(file).mtimeMs, before);
});

test('hints at a whitespace-only mismatch and at text an earlier edit changed', async () => {
  fixture('hint.ts', SOURCE);
  const spaced = await run('hint.ts', [{ oldText: 'function a() {\n    return 1;', newText: '' }]);
  assert.match(textOf(spaced), /matched 0 times.*a match exists when whitespace is ignored/);

  const earlier = await run('hint.ts', [
    { oldText: 'return 1;', newText: 'return 9;' },
    { oldText: 'return 1;', newText: 'return 8;' },
  ]);
  assert.match(
    textOf(earlier),
    /edits\[1\]\.oldText matched 0 times.*an earlier edit in this call changed/,
  );
  assert.equal(readFileSync(join(dir, 'hint.ts'), 'utf8'), SOURCE);
});

test('refuses empty oldText, a missing file and edits that change nothing', async () => {
  fixture('misc.ts', SOURCE);
  const empty = await run('misc.ts', [{ oldText: '', newText: 'x' }]);
  assert.equal(empty.isError, true);
  assert.match(textOf(empty), /^edit: edits\[0\]\.oldText is empty/);

  const missing = await run('nope.ts', [{ oldText: 'a', newText: 'b' }]);
  assert.equal(textOf(missing), 'edit: no such file: nope.ts (use write to create it)');

  const same = await run('misc.ts', [{ oldText: 'return 1;', newText: 'return 1;' }]);
  assert.equal(same.isError, true);
  assert.match(textOf(same), /leave misc\.ts unchanged/);
});

test('preserves CRLF line endings and a BOM; the diff reads as LF', async () => {
  const file = fixture('win.txt', '\uFEFFone\r\ntwo\r\nthree\r\n');
  const output = await run('win.txt', [{ oldText: 'one\ntwo', newText: 'uno\ndos\nmas' }]);
  assert.equal(output.isError, false, textOf(output));
  assert.equal(readFileSync(file, 'utf8'), '\uFEFFuno\r\ndos\r\nmas\r\nthree\r\n');
  assert.ok(!textOf(output).includes('\r'));
  assert.ok(textOf(output).includes('-one\n-two\n+uno\n+dos\n+mas\n three'));
});

test('keeps $ patterns in newText literal, keeps the mode, refuses non-UTF-8 files', async () => {
  const file = fixture('dollar.sh', 'echo X\n');
  chmodSync(file, 0o751);
  await run('dollar.sh', [{ oldText: 'X', newText: "$& $1 $$ $'" }]);
  assert.equal(readFileSync(file, 'utf8'), "echo $& $1 $$ $'\n");
  assert.equal(statSync(file).mode & 0o7777, 0o751);

  const latin1 = fixture('latin1.txt', Buffer.from('caf\xe9\n', 'latin1'));
  const output = await run('latin1.txt', [{ oldText: 'caf', newText: 'tea' }]);
  assert.equal(output.isError, true);
  assert.match(textOf(output), /not a UTF-8 text file/);
  assert.deepEqual(readFileSync(latin1), Buffer.from('caf\xe9\n', 'latin1'));
});

test('applyEdits, countMatches and detectEol', () => {
  assert.equal(countMatches('aaa', 'aa'), 2);
  assert.equal(countMatches('abc', ''), 0);
  assert.equal(detectEol('a\r\nb\r\nc\n'), '\r\n');
  assert.equal(detectEol('a\nb\nc\r\n'), '\n');
  assert.deepEqual(applyEdits('x\ny\n', [{ oldText: 'y', newText: 'z' }], '\n', 'f'), {
    ok: true,
    text: 'x\nz\n',
  });
  // Mixed endings: an LF region of a mostly-CRLF file still matches.
  const mixed = applyEdits(
    'a\r\nb\r\nc\nd\r\n',
    [{ oldText: 'c\nd', newText: 'C\nD' }],
    '\r\n',
    'f',
  );
  assert.deepEqual(mixed, { ok: true, text: 'a\r\nb\r\nC\nD\r\n' });
});

test('preview shows the path', () => {
  assert.equal(edit.preview?.({ path: 'src/a.ts', edits: [] }), 'src/a.ts');
});

test('details: the change as structured hunks with line numbers and counts (not in the content)', async () => {
  fixture('details.ts', SOURCE);
  const output = await run('details.ts', [
    { oldText: 'return 1;', newText: 'return 10;\n  // ten' },
    { oldText: 'return 2;', newText: 'return 20;' },
  ]);
  assert.deepEqual(output.details, {
    kind: 'edit',
    path: 'details.ts',
    added: 3,
    removed: 2,
    hunks: [
      {
        old_start: 1,
        old_lines: 7,
        new_start: 1,
        new_lines: 8,
        lines: [
          ' function a() {',
          '-  return 1;',
          '+  return 10;',
          '+  // ten',
          ' }',
          ' ',
          ' function b() {',
          '-  return 2;',
          '+  return 20;',
          ' }',
        ],
      },
    ],
  });
  assert.ok(!JSON.stringify(output.content).includes('old_start'));
});

test('details: hunks stop at the diff limit (whole hunks), counts stay whole; no details on failure', async () => {
  const lines = Array.from({ length: 40 }, (_, i) => `l${i}`);
  fixture('long.txt', lines.join('\n') + '\n');
  const small = createEditTool({ maxDiffLines: 9, diffContext: 1 });
  const output = await small.execute(
    {
      path: 'long.txt',
      edits: [
        { oldText: 'l5\n', newText: 'L5\n' },
        { oldText: 'l20\n', newText: 'L20\n' },
        { oldText: 'l35\n', newText: 'L35\n' },
      ],
    },
    makeContext(dir),
  );
  const details = output.details;
  assert.equal(details?.kind, 'edit');
  if (details?.kind !== 'edit') return;
  assert.deepEqual([details.added, details.removed, details.truncated], [3, 3, true]);
  assert.deepEqual(
    details.hunks.map((h) => h.old_start),
    [5, 20],
  );
  const failed = await run('long.txt', [{ oldText: 'absent', newText: 'x' }]);
  assert.equal(failed.details, undefined);
});
