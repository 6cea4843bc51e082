import assert from 'node:assert/strict';
import { test } from 'node:test';
import { diffLines } from './diff-view.js';
import { parseUnifiedDiff } from './unified-diff.js';

test('a git-style diff reads into hunks the edit renderer numbers', () => {
  const details = parseUnifiedDiff(
    [
      'diff --git a/app.py b/app.py',
      'index 1..2 100644',
      '--- a/app.py',
      '+++ b/app.py',
      '@@ -3,2 +3,2 @@ def main():',
      ' x = 1',
      '-def run():',
      '+def start():',
      '@@ -10 +10,2 @@',
      ' end',
      '+more',
      '\\ No newline at end of file',
      '',
    ].join('\n'),
  );
  assert.equal(details.path, 'app.py');
  assert.equal(details.added, 2);
  assert.equal(details.removed, 1);
  assert.deepEqual(
    details.hunks.map((h) => [h.old_start, h.old_lines, h.new_start, h.new_lines, h.lines.length]),
    [
      [3, 2, 3, 2, 3],
      [10, 1, 10, 2, 3],
    ],
  );
  assert.deepEqual(
    diffLines(details).map((line) => line.text),
    [' 3   x = 1', ' 4 - def run():', ' 4 + def start():', '⋯', '10   end', '11 + more'],
  );
});

test('bare change lines without a hunk header still read as one hunk; other text is skipped', () => {
  const details = parseUnifiedDiff('some preamble\n-old\n+new\n same\n');
  assert.equal(details.hunks.length, 1);
  assert.deepEqual(details.hunks[0]!.lines, ['-old', '+new', ' same']);
  assert.deepEqual(parseUnifiedDiff('no diff here').hunks, []);
});
