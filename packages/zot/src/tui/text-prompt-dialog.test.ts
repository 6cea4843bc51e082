// The one-line prompt dialog on a headless terminal: masking, validation (sync and async),
// Enter and Esc, and widths from 60 to 200 columns with and without colour.
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { TUI, visibleWidth } from '@mariozechner/pi-tui';
import { showTextPrompt, TextPromptDialog } from './text-prompt-dialog.js';
import { createTheme, DARK } from './theme.js';
import { renderLines, VirtualTerminal } from './testing/virtual-terminal.js';

const ENTER = '\r';
const ESC = '\x1b';
const paste = (text: string) => `\x1b[200~${text}\x1b[201~`;

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

test('a masked key is shown as bullets, never as text, and Enter submits the real value', async (context) => {
  const t = mount(context, 80, 24);
  const { result } = showTextPrompt(t.tui, {
    title: 'Log in to anthropic',
    message: 'Paste your API key',
    mask: true,
    theme: createTheme(DARK, true),
  });
  t.terminal.type(paste('sk-ant-secret'));
  t.terminal.type('9');
  const screen = await draw(t.tui, t.terminal);
  assert.ok(screen.some((row) => row.includes('Log in to anthropic')));
  assert.ok(screen.some((row) => row.includes('Paste your API key')));
  assert.ok(screen.some((row) => row.includes('> ••••••••••••••')));
  assert.ok(!screen.some((row) => row.includes('secret')));
  t.terminal.type(ENTER);
  assert.equal(await result, 'sk-ant-secret9');
  assert.equal(t.tui.hasOverlay(), false);
});

test('an unmasked prompt shows its text; the initial value is kept and typing appends', async () => {
  const submitted: string[] = [];
  const dialog = new TextPromptDialog({
    title: 'Rename session',
    initialValue: 'fix the',
    theme: createTheme(DARK, false),
    onSubmit: (value) => submitted.push(value),
    onCancel: () => assert.fail('cancelled'),
  });
  for (const key of ' bug') dialog.handleInput(key);
  const lines = await renderLines(dialog, 60);
  assert.ok(lines.some((line) => line.includes('> fix the bug')));
  dialog.handleInput(ENTER);
  dialog.handleInput(ENTER);
  assert.deepEqual(submitted, ['fix the bug']);
});

test('a failed validation keeps the dialog open with the message until the text changes', async () => {
  const submitted: string[] = [];
  const dialog = new TextPromptDialog({
    title: 'Rename session',
    theme: createTheme(DARK, true),
    validate: (value) => (value.trim() === '' ? 'the name must not be empty' : undefined),
    onSubmit: (value) => submitted.push(value),
    onCancel: () => {},
  });
  dialog.handleInput(ENTER);
  let lines = await renderLines(dialog, 60);
  assert.ok(lines.some((line) => line.includes('✗ the name must not be empty')));
  assert.deepEqual(submitted, []);
  dialog.handleInput('a');
  lines = await renderLines(dialog, 60);
  assert.ok(!lines.some((line) => line.includes('must not be empty')));
  dialog.handleInput(ENTER);
  assert.deepEqual(submitted, ['a']);
});

test('an asynchronous check shows that it runs, then its error; Esc still cancels', async () => {
  let finish!: (error: string | undefined) => void;
  let renders = 0;
  let cancelled = 0;
  const dialog = new TextPromptDialog({
    title: 'Log in',
    mask: true,
    theme: createTheme(DARK, true),
    validate: () => new Promise((resolve) => (finish = resolve)),
    requestRender: () => renders++,
    onSubmit: () => assert.fail('submitted'),
    onCancel: () => cancelled++,
  });
  dialog.handleInput(paste('bad-key'));
  dialog.handleInput(ENTER);
  let lines = await renderLines(dialog, 60);
  assert.ok(lines.some((line) => line.includes('checking…')));
  dialog.handleInput('x');
  assert.equal(dialog.value, 'bad-key');
  finish('401 from anthropic: the key was refused');
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(renders, 1);
  lines = await renderLines(dialog, 60);
  assert.ok(lines.some((line) => line.includes('✗ 401 from anthropic: the key was refused')));
  dialog.handleInput(ESC);
  dialog.handleInput(ESC);
  assert.equal(cancelled, 1);
});

test('a validator that throws shows its message instead of crashing', async () => {
  const dialog = new TextPromptDialog({
    title: 'Log in',
    theme: createTheme(DARK, true),
    validate: () => {
      throw new Error('network unreachable');
    },
    onSubmit: () => assert.fail('submitted'),
    onCancel: () => {},
  });
  dialog.handleInput(ENTER);
  const lines = await renderLines(dialog, 60);
  assert.ok(lines.some((line) => line.includes('network unreachable')));
});

test('Esc through the TUI resolves with no value', async (context) => {
  const t = mount(context, 60, 24);
  const { result } = showTextPrompt(t.tui, { title: 'Rename', theme: createTheme(DARK, false) });
  t.terminal.type('abc');
  t.terminal.type(ESC);
  assert.equal(await result, undefined);
});

for (const color of [true, false]) {
  for (const columns of [60, 200]) {
    test(`at ${columns} columns (${color ? 'colour' : 'NO_COLOR'}) a long value and message fit`, async () => {
      const dialog = new TextPromptDialog({
        title: 'Log in to a provider with a rather long name that goes on',
        message: 'Paste the key from the provider console; it is saved to auth.json. '.repeat(4),
        mask: true,
        theme: createTheme(DARK, color),
        validate: () => 'the provider said: ' + 'no '.repeat(100),
        onSubmit: () => {},
        onCancel: () => {},
      });
      dialog.focused = true;
      dialog.handleInput(paste('k'.repeat(400)));
      dialog.handleInput(ENTER);
      const lines = await renderLines(dialog, columns);
      for (const line of lines) assert.ok(visibleWidth(line) <= columns, line);
      assert.ok(lines.some((line) => /Paste the key.*…/.test(line)));
      assert.ok(lines.some((line) => /✗ the provider said: no.*…/.test(line)));
      assert.ok(lines.some((line) => line.includes('•••')));
      assert.ok(!lines.some((line) => line.includes('kkk')));
    });
  }
}
