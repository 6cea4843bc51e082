// The searchable list dialog on a headless terminal: filtering, moving, picking, cancelling,
// an extra key action, the counter, and widths from 60 to 200 columns with and without colour.
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { TUI, visibleWidth } from '@mariozechner/pi-tui';
import { SelectDialog, showSelectDialog, type SelectDialogItem } from './select-dialog.js';
import { createTheme, DARK } from './theme.js';
import { renderLines, VirtualTerminal } from './testing/virtual-terminal.js';

const DOWN = '\x1b[B';
const UP = '\x1b[A';
const PAGE_DOWN = '\x1b[6~';
const ENTER = '\r';
const ESC = '\x1b';

/** Forces a full frame and returns the screen once the terminal has drawn it. */
async function draw(tui: TUI, terminal: VirtualTerminal): Promise<string[]> {
  tui.requestRender(true);
  await new Promise((resolve) => setImmediate(resolve));
  await terminal.flush();
  return terminal.screen();
}

function models(count: number): SelectDialogItem[] {
  return Array.from({ length: count }, (_, i) => ({
    value: `model-${String(i + 1).padStart(2, '0')}`,
    label: `model-${String(i + 1).padStart(2, '0')}`,
    description: i % 2 === 0 ? 'anthropic' : 'openai',
    detail: `${(i + 1) * 10}k`,
  }));
}

/** A started TUI on a virtual terminal, stopped when the test ends. */
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

test('Enter picks the highlighted item after moving down; the overlay closes', async (context) => {
  const t = mount(context, 80, 24);
  const { dialog, result } = showSelectDialog(t.tui, {
    title: 'Select model',
    items: models(5),
    theme: createTheme(DARK, true),
  });
  const screen = await draw(t.tui, t.terminal);
  assert.ok(screen.some((row) => row.includes('Select model')));
  assert.ok(screen.some((row) => row.includes('› model-01')));
  t.terminal.type(DOWN);
  t.terminal.type(DOWN);
  assert.equal(dialog.highlighted()?.value, 'model-03');
  t.terminal.type(ENTER);
  assert.equal((await result)?.value, 'model-03');
  const after = await draw(t.tui, t.terminal);
  assert.ok(!after.some((row) => row.includes('Select model')));
});

test('Esc cancels with no item, and later keys are ignored', async (context) => {
  const t = mount(context, 80, 24);
  const { result } = showSelectDialog(t.tui, {
    title: 'Sessions',
    items: models(3),
    theme: createTheme(DARK, true),
  });
  t.terminal.type(ESC);
  assert.equal(await result, undefined);
});

test('typing filters fuzzily and case-insensitively; Backspace widens again', async (context) => {
  const t = mount(context, 80, 24);
  const items: SelectDialogItem[] = [
    { value: 'a', label: 'claude-sonnet-4-5', description: 'anthropic' },
    { value: 'b', label: 'gpt-4o', description: 'openai' },
    { value: 'c', label: 'claude-haiku-4-5', description: 'anthropic' },
    { value: 'd', label: 'o3-mini', description: 'openai' },
  ];
  const { dialog, result } = showSelectDialog(t.tui, {
    title: 'Model',
    items,
    theme: createTheme(DARK, true),
  });
  for (const key of 'CLHAI') t.terminal.type(key);
  let screen = await draw(t.tui, t.terminal);
  assert.ok(screen.some((row) => row.includes('claude-haiku-4-5')));
  assert.ok(!screen.some((row) => row.includes('claude-sonnet-4-5')));
  assert.ok(!screen.some((row) => row.includes('gpt-4o')));
  assert.equal(dialog.highlighted()?.value, 'c');
  for (let i = 0; i < 5; i++) t.terminal.type('\x7f');
  t.terminal.type('x');
  screen = await draw(t.tui, t.terminal);
  assert.ok(screen.some((row) => row.includes('no matches')));
  t.terminal.type(ENTER);
  t.terminal.type('\x7f');
  t.terminal.type(ENTER);
  assert.equal((await result)?.value, 'a');
});

test('the current item is marked and highlighted first, and is found by search', async () => {
  const items = models(30);
  items[20]!.current = true;
  const dialog = new SelectDialog({
    title: 'Model',
    items,
    theme: createTheme(DARK, false),
    maxVisible: 8,
    onSelect: () => {},
    onCancel: () => {},
  });
  const lines = await renderLines(dialog, 60);
  assert.ok(lines.some((line) => /› model-21 ✓/.test(line)));
  assert.ok(lines.some((line) => line.includes('21/30')));
  for (const key of 'el-21') dialog.handleInput(key);
  const found = await renderLines(dialog, 60);
  assert.ok(found.some((line) => /› model-21 ✓/.test(line)));
});

test('the counter follows the selection when the list scrolls, and PageDown jumps a page', async () => {
  const picked: string[] = [];
  const dialog = new SelectDialog({
    title: 'Sessions',
    items: models(41),
    theme: createTheme(DARK, true),
    maxVisible: 10,
    onSelect: (item) => picked.push(item.value),
    onCancel: () => {},
  });
  let lines = await renderLines(dialog, 80);
  assert.ok(lines.some((line) => /1\/41 │$/.test(line)));
  dialog.handleInput(DOWN);
  dialog.handleInput(DOWN);
  lines = await renderLines(dialog, 80);
  assert.ok(lines.some((line) => /3\/41 │$/.test(line)));
  dialog.handleInput(PAGE_DOWN);
  lines = await renderLines(dialog, 80);
  assert.ok(lines.some((line) => /13\/41 │$/.test(line)));
  assert.ok(lines.some((line) => line.includes('› model-13')));
  assert.ok(!lines.some((line) => line.includes('model-01')));
  dialog.handleInput(UP);
  dialog.handleInput(ENTER);
  dialog.handleInput(ENTER);
  assert.deepEqual(picked, ['model-12']);
});

test('Up from the first item wraps to the last; a short list shows no counter', async () => {
  const dialog = new SelectDialog({
    title: 'Provider',
    items: models(4),
    theme: createTheme(DARK, true),
    onSelect: () => {},
    onCancel: () => {},
  });
  dialog.handleInput(UP);
  assert.equal(dialog.highlighted()?.value, 'model-04');
  const lines = await renderLines(dialog, 80);
  assert.ok(!lines.some((line) => /\d+\/4\b/.test(line)));
});

test('an extra key acts on the highlighted item and the dialog stays open with new items', async (context) => {
  const t = mount(context, 100, 24);
  const renamed: string[] = [];
  const items = models(3);
  const { dialog, result } = showSelectDialog(t.tui, {
    title: 'Sessions',
    items,
    theme: createTheme(DARK, true),
    actions: [{ key: 'ctrl+r', name: 'rename', run: (item) => renamed.push(item.value) }],
  });
  t.terminal.type(DOWN);
  t.terminal.type('\x12');
  assert.deepEqual(renamed, ['model-02']);
  let screen = await draw(t.tui, t.terminal);
  assert.ok(screen.some((row) => row.includes('ctrl+r rename')));
  dialog.setItems(
    items.map((item) => (item.value === 'model-02' ? { ...item, label: 'my session' } : item)),
  );
  screen = await draw(t.tui, t.terminal);
  assert.ok(screen.some((row) => row.includes('› my session')));
  t.terminal.type(ENTER);
  assert.equal((await result)?.label, 'my session');
});

for (const color of [true, false]) {
  for (const columns of [60, 200]) {
    test(`at ${columns} columns (${color ? 'colour' : 'NO_COLOR'}) rows fit and long text ends with …`, async () => {
      const items: SelectDialogItem[] = [
        {
          value: 's1',
          label: '2h ago',
          description:
            'refactor the session store so that it writes atomically and never loses a line '.repeat(
              3,
            ),
          detail: 'claude-sonnet-4-5 · 14 msgs · $0.31',
          current: true,
        },
        {
          value: 's2',
          label: '3d ago',
          description: 'fix the flaky test',
          detail: 'gpt-4o · 2 msgs · $0.01',
        },
      ];
      const dialog = new SelectDialog({
        title: 'Sessions in /work/zot',
        items,
        theme: createTheme(DARK, color),
        onSelect: () => {},
        onCancel: () => {},
      });
      dialog.focused = true;
      const lines = await renderLines(dialog, columns);
      for (const line of lines) assert.ok(visibleWidth(line) <= columns, line);
      const first = lines.find((line) => line.includes('2h ago'));
      assert.ok(first, lines.join('\n'));
      assert.match(first, /› 2h ago ✓/);
      assert.ok(first.includes('…'));
      assert.ok(lines.some((line) => line.includes('fix the flaky test')));
      if (columns === 200)
        assert.ok(lines.some((line) => line.includes('gpt-4o · 2 msgs · $0.01')));
      assert.ok(lines.some((line) => line.includes('esc cancel')));
    });
  }
}

test('without colour the highlighted row is still marked', async () => {
  const dialog = new SelectDialog({
    title: 'Theme',
    items: [
      { value: 'dark', label: 'dark' },
      { value: 'light', label: 'light' },
    ],
    theme: createTheme(DARK, false),
    onSelect: () => {},
    onCancel: () => {},
  });
  dialog.handleInput(DOWN);
  const lines = await renderLines(dialog, 60);
  assert.ok(lines.some((line) => line.includes('› light')));
  assert.ok(lines.some((line) => /│ {3}dark/.test(line)));
  assert.ok(!dialog.render(60).join('').includes('\x1b[38'));
});

test('the highlight is reported whenever it changes: by moving and by typing a filter', () => {
  const seen: Array<string | undefined> = [];
  const dialog = new SelectDialog({
    title: 'Theme',
    items: [
      { value: 'dark', label: 'dark', current: true },
      { value: 'light', label: 'light' },
      { value: 'paper', label: 'paper' },
    ],
    theme: createTheme(DARK, true),
    onHighlight: (item) => seen.push(item?.value),
    onSelect: () => {},
    onCancel: () => {},
  });
  dialog.handleInput(DOWN);
  for (const key of 'pap') dialog.handleInput(key);
  dialog.handleInput('x'); // nothing matches
  dialog.handleInput('\x7f'); // Backspace: paper again
  assert.deepEqual(seen, ['light', 'paper', undefined, 'paper']);
});
