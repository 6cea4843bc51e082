// End-to-end in tmux: a `write` row shows the file it wrote (the head, then every line after
// ctrl+o), an edit row marks the words that changed, and an expanded diff wraps its long lines
// instead of cutting them. At 60 and 200 columns, with colours and under NO_COLOR.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fakeLlmFlags, startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { HAS_TMUX, TmuxZot } from './support/tmux.js';
import { makeSandbox } from './support/zot.js';

const skip = HAS_TMUX ? false : 'tmux is not installed';
let llm: FakeLlm;
before(async () => {
  llm = await startFakeLlm();
});
after(() => llm.close());

const FILE = Array.from({ length: 9 }, (_, i) => `def step_${i + 1}(): return ${i + 1}`).join('\n');
const LONG = `note = "${'a long note about the change '.repeat(8)}end"`;

/** Inverse video on (SGR 7) in a line captured with its escapes. */
const inverseWords = (raw: string) =>
  [...raw.matchAll(/\x1b\[(?:[0-9;]*;)?7(?:;[0-9;]*)?m([^\x1b]*)/g)].map((match) => match[1]);

for (const size of [
  { columns: 60, color: false },
  { columns: 200, color: true },
]) {
  const label = `${size.columns} columns${size.color ? '' : ', NO_COLOR'}`;
  test(
    `write shows its content; edit marks changed words and wraps when expanded (${label})`,
    { skip },
    async (t) => {
      const box = makeSandbox();
      writeFileSync(join(box.project, 'calc.py'), `total = price * count\n${LONG}\n`);
      const zot = TmuxZot.start(fakeLlmFlags(llm.url), {
        home: box.home,
        cwd: box.project,
        columns: size.columns,
        rows: 50,
        ...(size.color ? { env: { NO_COLOR: undefined } } : {}),
      });
      t.after(() => {
        zot.kill();
        box.cleanup();
      });
      await zot.waitFor('anthropic/');
      llm.script(
        {
          toolCalls: [
            { id: 'w1', name: 'write', args: { path: 'steps.py', content: `${FILE}\n` } },
          ],
        },
        {
          toolCalls: [
            {
              id: 'e1',
              name: 'edit',
              args: {
                path: 'calc.py',
                edits: [
                  { oldText: 'total = price * count', newText: 'total = price * quantity' },
                  { oldText: LONG, newText: LONG.replace('end"', 'finished"') },
                ],
              },
            },
          ],
        },
        { text: 'all done' },
      );
      zot.submit('write and edit');
      const screen = await zot.waitFor('all done');
      assert.equal(readFileSync(join(box.project, 'steps.py'), 'utf8'), `${FILE}\n`);
      assert.match(screen, /✓ write steps\.py/);
      assert.match(screen, /\n {4}def step_1\(\): return 1\n/);
      assert.match(screen, /… 4 more lines, 9 total \(ctrl\+o to expand\)/);
      assert.doesNotMatch(screen, /def step_9/);
      assert.doesNotMatch(screen, /Wrote \d+ bytes/);

      // The changed words are in inverse video: `count` on the removed line, `quantity` on the added.
      const raw = zot.capture({ escapes: true }).split('\n');
      const removed = raw.find((line) => line.includes('- total = price'))!;
      const added = raw.find((line) => line.includes('+ total = price'))!;
      assert.deepEqual(inverseWords(removed), ['count']);
      assert.deepEqual(inverseWords(added), ['quantity']);

      zot.press('C-o');
      const expanded = await zot.waitFor(/def step_9\(\): return 9/);
      const rows = expanded.split('\n');
      assert.ok(rows.every((row) => [...row].length <= size.columns));
      const flat = rows.map((row) => row.trim()).join(' ');
      assert.equal(
        flat.split('a long note about the change').length - 1,
        16,
        'both note lines whole',
      );
      assert.match(flat, /finished"/);
      if (size.columns === 60) {
        const at = rows.findIndex((row) => /^ +\d+ \+ note = /.test(row));
        // The rest of the line wraps under its text, not under the line numbers.
        const text = rows[at]!.indexOf('note');
        assert.equal(rows[at + 1]!.search(/\S/), text, rows.slice(at, at + 3).join('\n'));
      }
    },
  );
}
