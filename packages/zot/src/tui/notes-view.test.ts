// Extension notes under the chat: `[name] message`, levels with and without colour, wrapping and
// cutting, and text from extensions shown rather than interpreted.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { visibleWidth } from '@mariozechner/pi-tui';
import { NotesView, type Note } from './notes-view.js';
import { createTheme, DARK } from './theme.js';
import { renderLines, VirtualTerminal } from './testing/virtual-terminal.js';

const notes: Note[] = [
  { source: 'weather', message: 'Sunny, 21°C', level: 'info' },
  { source: 'guard', message: 'rm -rf blocked', level: 'warn' },
  { source: 'todo', message: 'todo.json is not valid JSON', level: 'error' },
];

test('each note shows its source and message; no notes take no room', async () => {
  const view = new NotesView({ theme: createTheme(DARK, true) });
  assert.deepEqual(view.render(80), []);
  view.setNotes(notes);
  const lines = await renderLines(view, 60);
  assert.deepEqual(lines, [
    '[weather] Sunny, 21°C',
    '[guard] rm -rf blocked',
    '[todo] todo.json is not valid JSON',
  ]);
});

test('with colour the levels are coloured differently; without, warnings and errors say so', async () => {
  const coloured = new NotesView({ theme: createTheme(DARK, true) });
  coloured.setNotes(notes);
  const terminal = new VirtualTerminal({ columns: 60, rows: 3 });
  terminal.write(coloured.render(60).join('\r\n'));
  await terminal.flush();
  const colours = [0, 1, 2].map(
    (row) => terminal.cell(row, terminal.screen()[row]!.indexOf(']') + 2)?.fg,
  );
  assert.equal(new Set(colours).size, 3);
  terminal.dispose();

  const plain = new NotesView({ theme: createTheme(DARK, false) });
  plain.setNotes(notes);
  const lines = await renderLines(plain, 60);
  assert.deepEqual(lines, [
    '[weather] Sunny, 21°C',
    '[guard] warning: rm -rf blocked',
    '[todo] error: todo.json is not valid JSON',
  ]);
  assert.ok(!plain.render(60).join('').includes('\x1b'));
});

for (const columns of [60, 200]) {
  test(`at ${columns} columns a long note wraps under its text and is cut after three lines`, async () => {
    const view = new NotesView({ theme: createTheme(DARK, true) });
    view.setNotes([{ source: 'deploy', message: 'step '.repeat(200), level: 'info' }]);
    const lines = await renderLines(view, columns);
    assert.equal(lines.length, 3);
    assert.match(lines[0]!, /^\[deploy\] step step/);
    assert.match(lines[1]!, /^ {9}step/);
    assert.match(lines[2]!, /…$/);
    for (const line of view.render(columns)) assert.ok(visibleWidth(line) <= columns);
  });
}

test('only the newest notes are shown, and escape sequences from extensions are shown escaped', async () => {
  const view = new NotesView({ theme: createTheme(DARK, true), max: 2 });
  view.setNotes([
    ...notes,
    { source: 'evil\x1b[2J', message: 'hi\x1b]0;title\x07', level: 'info' },
  ]);
  const lines = await renderLines(view, 80);
  assert.deepEqual(lines, [
    '[todo] todo.json is not valid JSON',
    '[evil\\x1b[2J] hi\\x1b]0;title\\x07',
  ]);
});
