// Tool rows that show content: a write call's file (highlighted, folded like read), an edit's
// diff with its changed words marked, and expanded diff lines wrapped, never cut. At 60 and 200
// columns, in colour and under NO_COLOR, through @xterm/headless.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { visibleWidth } from '@mariozechner/pi-tui';
import type { EditDetails } from '../contract/tool-details.js';
import { preloadHighlighter } from './highlight.js';
import { createTheme, DARK } from './theme.js';
import { ToolRow } from './tool-row.js';
import { renderLines, VirtualTerminal } from './testing/virtual-terminal.js';

const SOURCE = [
  'export function greet(name: string): string {',
  '  // a friendly line',
  '  return `hello ${name}`;',
  '}',
  '',
  'export const answer = 42;',
  'export const list = [1, 2, 3];',
  'export default greet;',
].join('\n');

function writeRow(color: boolean, content = SOURCE, bytes = Buffer.byteLength(content)) {
  const row = new ToolRow({ theme: createTheme(DARK, color), name: 'write', show: 'head' });
  row.start('src/greet.ts', undefined, undefined, { path: 'src/greet.ts', content });
  row.finish({
    isError: false,
    output: `Wrote ${bytes} bytes to src/greet.ts (created)`,
    wroteBytes: bytes,
  });
  return row;
}

test('a write row shows the file it wrote: the head collapsed, every line expanded', async () => {
  for (const color of [false, true]) {
    for (const width of [60, 200]) {
      const row = writeRow(color);
      const collapsed = await renderLines(row, width);
      assert.equal(collapsed[1], '    export function greet(name: string): string {');
      assert.equal(collapsed[5], '');
      assert.equal(collapsed.at(-1), '    … 3 more lines, 8 total (ctrl+o to expand)');
      assert.doesNotMatch(collapsed.join('\n'), /Wrote \d+ bytes/);
      row.expanded = true;
      const expanded = await renderLines(row, width);
      assert.deepEqual(
        expanded.slice(1).map((line) => line.slice(4)),
        SOURCE.split('\n'),
        `${width} columns, colour ${color}`,
      );
    }
  }
});

test('a written file is highlighted by its extension once the highlighter is loaded', async () => {
  await preloadHighlighter();
  const row = writeRow(true);
  const terminal = new VirtualTerminal({ columns: 60, rows: 8 });
  terminal.write(row.render(60).join('\r\n'));
  await terminal.flush();
  // `export` (a keyword) and `greet` are coloured differently from each other.
  const keyword = terminal.cell(1, 4)!;
  const name = terminal.cell(1, 20)!;
  assert.equal(keyword.char, 'e');
  assert.equal(name.char, 'g');
  assert.ok(!keyword.fgDefault || !name.fgDefault, 'coloured');
  assert.notEqual(keyword.fg, name.fg, 'a keyword and a name in different colours');
  terminal.dispose();
  // Under NO_COLOR nothing is coloured.
  const plain = writeRow(false).render(60).join('\n');
  assert.doesNotMatch(plain, /\x1b\[3[0-9;]*m/);
});

test('written content from a model is made safe; long lines are cut collapsed and wrapped expanded', async () => {
  const long = `const s = "${'word '.repeat(40)}end";`;
  const content = `\x1b]0;owned\x07title\n${long}`;
  for (const width of [60, 200]) {
    const row = writeRow(true, content);
    const lines = row.render(width);
    assert.ok(lines.every((line) => visibleWidth(line) <= width));
    assert.ok(!lines.join('').includes('\x1b]0;'), 'no raw OSC reaches the terminal');
    const collapsed = await renderLines(row, width);
    assert.equal(collapsed[1], '    \\x1b]0;owned\\x07title');
    if (width === 60) assert.ok(collapsed[2]!.endsWith('…'));
    row.expanded = true;
    const expanded = await renderLines(row, width);
    const flat = expanded
      .slice(2)
      .map((line) => line.trim())
      .join(' ');
    assert.equal(flat.split('word').length - 1, 40, 'every word is there');
    assert.match(flat, /end";$/);
  }
});

test('a write whose size does not match the call (changed on the way), or that failed, shows its output', async () => {
  const changed = writeRow(false, SOURCE, Buffer.byteLength(SOURCE) + 3);
  const lines = await renderLines(changed, 60);
  assert.match(lines[1]!, /Wrote \d+ bytes to src\/greet\.ts/);
  const failed = new ToolRow({ theme: createTheme(DARK, false), name: 'write', show: 'head' });
  failed.start('/etc/x', undefined, undefined, { path: '/etc/x', content: 'x' });
  failed.finish({ isError: true, output: 'write: /etc/x: permission denied' });
  assert.match((await renderLines(failed, 60))[1]!, /permission denied/);
});

const EDIT: EditDetails = {
  kind: 'edit',
  path: 'src/a.ts',
  added: 2,
  removed: 2,
  hunks: [
    {
      old_start: 9,
      old_lines: 4,
      new_start: 9,
      new_lines: 4,
      lines: [
        ' const a = 1;',
        '-const total = price * count;',
        `-const note = "${'long words here '.repeat(10)}";`,
        '+const total = price * quantity;',
        `+const note = "${'long words here '.repeat(10)}changed";`,
        ' const b = 2;',
      ],
    },
  ],
};

function editRow(color: boolean) {
  const row = new ToolRow({ theme: createTheme(DARK, color), name: 'edit', show: 'head' });
  row.start('src/a.ts');
  row.finish({ isError: false, output: 'edited src/a.ts', diff: EDIT });
  return row;
}

test('an edit marks the changed words of a replaced line (inverse, kept under NO_COLOR)', async () => {
  for (const color of [true, false]) {
    const terminal = new VirtualTerminal({ columns: 60, rows: 8 });
    terminal.write(editRow(color).render(60).join('\r\n'));
    await terminal.flush();
    const screen = terminal.screen();
    assert.equal(screen[3], '    10 - const total = price * count;');
    assert.equal(screen[5], '    10 + const total = price * quantity;');
    const inverse = (row: number) =>
      [...screen[row]!]
        .map((_, col) => (terminal.cell(row, col)!.inverse ? '^' : ' '))
        .join('')
        .trimEnd();
    // Only `count` and `quantity` are marked.
    assert.equal(inverse(3), `${' '.repeat(screen[3]!.indexOf('count'))}^^^^^`);
    assert.equal(inverse(5), `${' '.repeat(screen[5]!.indexOf('quantity'))}^^^^^^^^`);
    assert.equal(inverse(2), '', 'context lines are not marked');
    if (color) assert.equal(terminal.cell(3, 7)!.fg, 0xf7768e, 'still the removed colour');
    terminal.dispose();
  }
});

test('diff lines are cut collapsed and wrapped under their text expanded, at 60 and 200 columns', async () => {
  for (const color of [false, true]) {
    for (const width of [60, 200]) {
      const row = editRow(color);
      const collapsed = await renderLines(row, width);
      assert.equal(collapsed.length, 1 + 1 + 6);
      if (width === 60) assert.ok(collapsed[4]!.endsWith('…'), collapsed[4]);
      row.expanded = true;
      const rendered = row.render(width);
      assert.ok(rendered.every((line) => visibleWidth(line) <= width));
      const expanded = await renderLines(row, width);
      assert.doesNotMatch(expanded.slice(1).join('\n'), /…/, 'nothing cut');
      const removed = expanded.findIndex((line) => line.startsWith('    11 - const note'));
      assert.ok(removed > 0);
      if (width === 60) {
        // The rows after the first start under the text, not under the numbers.
        assert.match(expanded[removed + 1]!, /^ {9}\S/);
      }
      const flat = expanded.map((line) => line.trim()).join(' ');
      assert.equal(flat.split('long words here').length - 1, 20);
      assert.match(flat, /changed";/);
    }
  }
});
