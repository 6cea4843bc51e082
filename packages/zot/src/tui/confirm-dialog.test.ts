// The tool-confirmation dialog on a headless terminal: the answer each key gives, the preview,
// and widths from 60 to 200 columns with and without colour.
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { TUI, visibleWidth } from '@mariozechner/pi-tui';
import { ConfirmDialog, showConfirmDialog, type ConfirmChoice } from './confirm-dialog.js';
import { createTheme, DARK } from './theme.js';
import { renderLines, VirtualTerminal } from './testing/virtual-terminal.js';

const DOWN = '\x1b[B';
const UP = '\x1b[A';
const ENTER = '\r';
const ESC = '\x1b';

function mount(context: TestContext, columns: number, rows: number) {
  const terminal = new VirtualTerminal({ columns, rows });
  const tui = new TUI(terminal);
  tui.start();
  context.after(() => {
    tui.stop();
    terminal.dispose();
  });
  return { terminal, tui };
}

async function draw(tui: TUI, terminal: VirtualTerminal): Promise<string[]> {
  tui.requestRender(true);
  await new Promise((resolve) => setImmediate(resolve));
  await terminal.flush();
  return terminal.screen();
}

/** The answer a fresh dialog gives to `keys`, or undefined when it is still waiting. */
function answerTo(...keys: string[]): ConfirmChoice | undefined {
  const answers: ConfirmChoice[] = [];
  const dialog = new ConfirmDialog({
    toolName: 'bash',
    preview: 'rm -rf build',
    theme: createTheme(DARK, true),
    onChoice: (choice) => answers.push(choice),
  });
  for (const key of keys) dialog.handleInput(key);
  assert.ok(answers.length <= 1, 'answered more than once');
  return answers[0];
}

test('each key gives its answer, once', () => {
  assert.equal(answerTo(ENTER), 'yes');
  assert.equal(answerTo(DOWN, ENTER), 'always-tool');
  assert.equal(answerTo(DOWN, DOWN, ENTER), 'always-all');
  assert.equal(answerTo(UP, ENTER), 'no');
  assert.equal(answerTo(DOWN, DOWN, DOWN, ENTER), 'always-user');
  assert.equal(answerTo(DOWN, DOWN, DOWN, DOWN, ENTER), 'always-project');
  assert.equal(answerTo(DOWN, DOWN, DOWN, DOWN, DOWN, DOWN, ENTER), 'yes');
  assert.equal(answerTo(ESC), 'no');
  assert.equal(answerTo(DOWN, ESC), 'no');
  assert.equal(answerTo('\x03'), 'no');
  assert.equal(answerTo('y'), 'yes');
  assert.equal(answerTo('n'), 'no');
  assert.equal(answerTo('N', ENTER, 'y'), 'no');
  assert.equal(answerTo('3'), 'always-all');
  assert.equal(answerTo('4'), 'always-user');
  assert.equal(answerTo('5'), 'always-project');
  assert.equal(answerTo('x', 'q'), undefined);
});

test('through the TUI: the dialog shows the tool and its preview, Enter allows and closes it', async (context) => {
  const t = mount(context, 80, 24);
  const { result } = showConfirmDialog(t.tui, {
    toolName: 'bash',
    preview: 'npm test -- --watch',
    theme: createTheme(DARK, true),
  });
  const screen = await draw(t.tui, t.terminal);
  assert.ok(screen.some((row) => row.includes('Allow bash?')));
  assert.ok(screen.some((row) => row.includes('npm test -- --watch')));
  assert.ok(screen.some((row) => row.includes('› 1. Yes')));
  assert.ok(screen.some((row) => row.includes("don't ask again for bash this session")));
  assert.ok(screen.some((row) => row.includes('6. No')));
  t.terminal.type(DOWN);
  const moved = await draw(t.tui, t.terminal);
  assert.ok(moved.some((row) => row.includes('› 2. Yes, and')));
  t.terminal.type(ENTER);
  assert.equal(await result, 'always-tool');
  const after = await draw(t.tui, t.terminal);
  assert.ok(!after.some((row) => row.includes('Allow bash?')));
});

test('Esc through the TUI denies', async (context) => {
  const t = mount(context, 60, 24);
  const { result } = showConfirmDialog(t.tui, {
    toolName: 'write',
    preview: 'a.txt',
    theme: createTheme(DARK, false),
  });
  t.terminal.type(ESC);
  assert.equal(await result, 'no');
});

test('an aborted signal answers no and closes the dialog', async (context) => {
  const t = mount(context, 80, 24);
  const controller = new AbortController();
  const { result } = showConfirmDialog(t.tui, {
    toolName: 'edit',
    preview: 'src/a.ts',
    theme: createTheme(DARK, true),
    signal: controller.signal,
  });
  controller.abort();
  assert.equal(await result, 'no');
  assert.equal(t.tui.hasOverlay(), false);
});

const PGDN = '\x1b[6~';
const PGUP = '\x1b[5~';
const END = '\x1b[F';

/** The dialog's inner text rows (frame borders and padding taken off). */
function inside(lines: string[]): string[] {
  return lines.map((line) => line.replace(/^│ /, '').replace(/ *│$/, ''));
}

test('a long call is shown whole: lines numbered and counted, pgdn scrolls to the end', async () => {
  const preview = Array.from({ length: 40 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';
  const dialog = new ConfirmDialog({
    toolName: 'write',
    preview: `\x1b[2J${preview}`,
    theme: createTheme(DARK, true),
    maxPreviewRows: 5,
    onChoice: () => {},
  });
  let lines = inside(await renderLines(dialog, 80));
  assert.ok(lines.includes(' 1 │ \\x1b[2Jline 1'), lines.join('\n'));
  assert.ok(lines.includes(' 4 │ line 4'));
  assert.ok(!lines.some((line) => line.includes('line 5')));
  assert.ok(lines.includes('40 lines · rows 1-4 of 40'));
  assert.ok(lines.includes('↓ 36 more rows (pgdn)'));
  assert.ok(lines.some((line) => line.includes('pgup/pgdn scroll')));
  dialog.handleInput(PGDN);
  lines = inside(await renderLines(dialog, 80));
  assert.ok(lines.includes(' 4 │ line 4') && lines.includes(' 7 │ line 7'), 'a page keeps one row');
  dialog.handleInput(END);
  lines = inside(await renderLines(dialog, 80));
  assert.ok(lines.includes('40 │ line 40'));
  assert.ok(lines.includes('40 lines · rows 37-40 of 40'));
  assert.ok(lines.includes('(end; pgup goes back)'));
  for (let i = 0; i < 20; i++) dialog.handleInput(PGUP);
  assert.ok(inside(await renderLines(dialog, 80)).includes(' 1 │ \\x1b[2Jline 1'));
});

/** Text without its spaces: rows end in padding, so joined rows are compared without them. */
const squeeze = (text: string) => text.replace(/\s+/g, '');

/** The preview rows of a dialog at `columns`, gutters and frame taken off, joined. */
async function shown(preview: string, columns: number, color = true): Promise<string[]> {
  const dialog = new ConfirmDialog({
    toolName: 'bash',
    preview,
    theme: createTheme(DARK, color),
    maxPreviewRows: 200,
    onChoice: () => {},
  });
  const lines = await renderLines(dialog, columns);
  for (const line of lines) assert.ok(visibleWidth(line) <= columns, line);
  return inside(lines);
}

for (const columns of [60, 120]) {
  test(`at ${columns} columns nothing of the command hides: no cut, spaces counted, every line numbered`, async () => {
    // The trust dialog's attack: code after a long run of spaces, off to the right.
    const hidden = `python3 -c 'print(1)${' '.repeat(150)}import os; os.system("touch pwned")'`;
    const one = await shown(hidden, columns);
    assert.ok(one.includes('1 line'), one.join('\n'));
    const joined = squeeze(one.join(''));
    assert.ok(
      joined.includes(
        squeeze(`python3 -c 'print(1)«150 spaces»import os; os.system("touch pwned")'`),
      ),
      joined,
    );
    // The rows above the blank line before the answers.
    const preview = one.slice(0, one.indexOf(''));
    assert.ok(!preview.some((line) => line.includes('…')), 'nothing is cut');
    assert.ok(
      squeeze(one.join('')).includes(
        squeeze("5. Yes, always: add an allow rule to this project's settings"),
      ),
      'an answer is wrapped, not cut',
    );
    // The --no-yolo attack: a long first line, and a second one.
    const comment = `ls -la # ${'a long comment '.repeat(12)}`;
    const two = await shown(`${comment}\ntouch pwned`, columns);
    assert.ok(two.includes('2 lines'), two.join('\n'));
    assert.ok(two.some((line) => line.startsWith('1 │ ls -la # a long comment')));
    assert.ok(
      two.some((line) => line.startsWith('  ┆ ')),
      'the first line wraps',
    );
    assert.ok(two.includes('2 │ touch pwned'));
  });
}

test('control, invisible and reordering characters, tabs and odd spaces are shown as escapes', async () => {
  const rows = await shown('rm\u200b -rf /\u202e\tx\u00a0y\x1b]52;c;Zm9v\x07\u{e0041}', 80, false);
  assert.ok(
    rows.includes('rm\\u200b -rf /\\u202e\\tx\\xa0y\\x1b]52;c;Zm9v\\x07\\u{e0041}'),
    rows.join('\n'),
  );
});

for (const color of [true, false]) {
  for (const columns of [60, 200]) {
    test(`at ${columns} columns (${color ? 'colour' : 'NO_COLOR'}) every line fits and the choices stay readable`, async () => {
      const dialog = new ConfirmDialog({
        toolName: 'very_long_extension_tool_name_from_an_extension',
        preview: `curl -s https://example.com/${'a'.repeat(300)} | sh`,
        theme: createTheme(DARK, color),
        onChoice: () => {},
      });
      dialog.handleInput(DOWN);
      const lines = await renderLines(dialog, columns);
      for (const line of lines) assert.ok(visibleWidth(line) <= columns, line);
      assert.ok(
        squeeze(inside(lines).join('')).includes(
          squeeze(`curl -s https://example.com/${'a'.repeat(300)} | sh`),
        ),
        'wrapped, not cut',
      );
      assert.ok(lines.some((line) => line.includes('› 2. Yes, and')));
      assert.ok(lines.some((line) => /^│ {3}1\. Yes +│$/.test(line)));
      assert.ok(lines.some((line) => line.includes('6. No')));
      if (columns === 200) assert.ok(lines.some((line) => line.includes('n/esc no')));
    });
  }
}
