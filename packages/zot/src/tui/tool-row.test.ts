// Tool rows as a terminal shows them, at 60 and 200 columns, in colour and without.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { visibleWidth } from '@mariozechner/pi-tui';
import { createTheme, DARK } from './theme.js';
import { duration, ToolRow } from './tool-row.js';
import { renderLines, VirtualTerminal } from './testing/virtual-terminal.js';

const numbers = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`).join('\n');

test('a running row: spinner, preview and elapsed seconds from the clock', async () => {
  let now = 1_000;
  const row = new ToolRow({
    theme: createTheme(DARK, false),
    name: 'bash',
    show: 'tail',
    now: () => now,
  });
  row.start('npm test');
  now += 3_400;
  const [header] = await renderLines(row, 60);
  assert.match(header!, /^[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] bash npm test 3s$/);
});

test('collapsed: the head for read, the tail for bash, with the exact counts; expanded: all', async () => {
  const theme = createTheme(DARK, false);
  const read = new ToolRow({ theme, name: 'read', show: 'head' });
  read.start('src/main.ts');
  read.finish({ isError: false, output: numbers(34) });
  const head = await renderLines(read, 60);
  assert.deepEqual(head.slice(1, 3), ['    line 1', '    line 2']);
  assert.equal(head.at(-1), '    … 29 more lines, 34 total (ctrl+o to expand)');
  assert.equal(head.length, 1 + 5 + 1);

  const bash = new ToolRow({ theme, name: 'bash', show: 'tail' });
  bash.start('seq 34');
  for (let i = 1; i <= 34; i++) bash.progress(`line ${i}`);
  const tail = await renderLines(bash, 60);
  assert.equal(tail[1], '    … 29 earlier lines, 34 total (ctrl+o to expand)');
  assert.equal(tail.at(-1), '    line 34');

  bash.finish({ isError: false, output: numbers(34) });
  bash.expanded = true;
  const all = await renderLines(bash, 60);
  assert.equal(all.length, 35);
  assert.doesNotMatch(all.join('\n'), /earlier lines/);
});

test('collapsed rows of a long stream: exact ends and counts, escapes kept, trailing breaks ignored', async () => {
  const theme = createTheme(DARK, false);
  const bash = new ToolRow({ theme, name: 'bash', show: 'tail' });
  bash.start('flood');
  for (let i = 1; i <= 10_000; i++) bash.progress(i === 9_999 ? 'bell\x07 here' : `line ${i}`);
  bash.progress('\n\n');
  const tail = await renderLines(bash, 60);
  assert.equal(tail[1], '    … 9995 earlier lines, 10000 total (ctrl+o to expand)');
  assert.deepEqual(tail.slice(-2), ['    bell\\x07 here', '    line 10000']);

  const read = new ToolRow({ theme, name: 'read', show: 'head' });
  read.start('big.txt');
  read.finish({ isError: false, output: `\x1b[31mred\n${numbers(6)}\n` });
  const head = await renderLines(read, 60);
  assert.equal(head[1], '    \\x1b[31mred');
  assert.equal(head.at(-1), '    … 2 more lines, 7 total (ctrl+o to expand)');
});

test('long lines are cut with … at 60 columns and kept at 200; nothing exceeds the width', async () => {
  const theme = createTheme(DARK, true);
  const row = new ToolRow({ theme, name: 'bash', show: 'tail' });
  row.start(`echo ${'x'.repeat(300)}`);
  row.finish({ isError: false, output: 'y'.repeat(300), extension: 'kit' });
  for (const width of [60, 200]) {
    const lines = row.render(width);
    assert.ok(
      lines.every((line) => visibleWidth(line) <= width),
      `width ${width}`,
    );
    const shown = await renderLines(row, width);
    assert.ok(shown[0]!.endsWith('… [kit]') || shown[0]!.includes('[kit]'), shown[0]);
    assert.ok(shown[1]!.trimEnd().endsWith('…'), `output cut at ${width}`);
  }
});

test('an error result is red; an edit shows a numbered diff in the diff colours', async () => {
  const theme = createTheme(DARK, true);
  const failed = new ToolRow({ theme, name: 'read', show: 'head' });
  failed.start('nope.txt');
  failed.finish({ isError: true, output: 'read: nope.txt: no such file' });
  const terminal = new VirtualTerminal({ columns: 60, rows: 4 });
  terminal.write(failed.render(60).join('\r\n'));
  await terminal.flush();
  assert.match(terminal.screen()[0]!, /^✗ read nope\.txt/);
  assert.equal(terminal.cell(1, 4)!.fg, 0xf7768e, 'the error text is red');
  terminal.dispose();

  const edit = new ToolRow({ theme, name: 'edit', show: 'head' });
  edit.start('src/a.ts');
  edit.finish({
    isError: false,
    output: 'edited src/a.ts',
    diff: {
      kind: 'edit',
      path: 'src/a.ts',
      added: 1,
      removed: 1,
      hunks: [
        { old_start: 9, old_lines: 3, new_start: 9, new_lines: 3, lines: [' a', '-b', '+c', ' d'] },
      ],
    },
  });
  const screen = new VirtualTerminal({ columns: 60, rows: 8 });
  screen.write(edit.render(60).join('\r\n'));
  await screen.flush();
  assert.deepEqual(screen.screen().slice(1, 6), [
    '    +1 -1',
    '     9   a',
    '    10 - b',
    '    10 + c',
    '    11   d',
  ]);
  assert.equal(screen.cell(3, 7)!.fg, 0xf7768e, 'removed in the removed colour');
  assert.equal(screen.cell(4, 7)!.fg, 0x9ece6a, 'added in the added colour');
  screen.dispose();
});

test('a finished row shows how long it took; expanded, the whole command, wrapped, never cut', async () => {
  for (const color of [false, true]) {
    for (const width of [60, 200]) {
      let now = 0;
      const theme = createTheme(DARK, color);
      const row = new ToolRow({ theme, name: 'bash', show: 'tail', now: () => now });
      const command = `cat > notes.txt <<EOF\n${'a long line of the file '.repeat(12)}\nlast line\nEOF`;
      row.start('cat > notes.txt <<EOF ↵ …', undefined, command);
      now += 2_345;
      row.finish({ isError: false, output: 'done' });
      const collapsed = await renderLines(row, width);
      assert.match(collapsed[0]!, / 2\.3s$/);
      assert.ok(!collapsed.join('\n').includes('last line'), 'collapsed: the preview only');
      row.expanded = true;
      const expanded = await renderLines(row, width);
      assert.ok(expanded.every((line) => visibleWidth(line) <= width));
      const text = expanded.join('\n');
      assert.match(text, /\$ cat > notes\.txt <<EOF/);
      assert.match(text, /last line\n\s+EOF/);
      // Every word of the long line is there: wrapped, not cut with an ellipsis.
      const flat = expanded.map((line) => line.replace(/\x1b\[[0-9;]*m/g, '').trim()).join(' ');
      assert.equal(flat.split('a long line of the file').length - 1, 12);
      assert.doesNotMatch(expanded.slice(1).join('\n'), /…/, 'nothing cut below the header');
    }
  }
});

test('durations: tenths under ten seconds, whole seconds, then minutes', () => {
  assert.equal(duration(400), '0.4s');
  assert.equal(duration(12_900), '12s');
  assert.equal(duration(125_000), '2m 5s');
});
