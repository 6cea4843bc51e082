// The editor and the dialogs' input on a headless terminal that records every byte written:
// hostile text that enters them (an extension's insert, a history entry, a paste, a typed
// character, a completed file name) is drawn as visible escapes, never as a sequence the
// terminal obeys, and what is submitted is exactly what was shown.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { Editor, Input, TUI } from '@mariozechner/pi-tui';
import { CommandAutocompleteProvider, useSuggestionList } from './command-autocomplete.js';
import { editorText, SafeEditor, SafeInput } from './safe-input.js';
import { HOSTILE, HOSTILE_SHOWN, terminalHazards } from './testing/terminal-bytes.js';
import { VirtualTerminal } from './testing/virtual-terminal.js';
import { createTheme, DARK } from './theme.js';

const UP = '\x1b[A';
const TAB = '\t';
const ENTER = '\r';
const paste = (text: string) => `\x1b[200~${text}\x1b[201~`;

function mount(context: TestContext, cwd?: string) {
  const terminal = new VirtualTerminal({ columns: 100, rows: 20, record: true });
  const tui = new TUI(terminal);
  const theme = createTheme(DARK, true);
  const editor = new SafeEditor(tui, {
    borderColor: theme.border,
    selectList: {
      selectedPrefix: theme.selected,
      selectedText: theme.selected,
      description: theme.muted,
      scrollInfo: theme.dim,
      noMatch: theme.muted,
    },
  });
  if (cwd) {
    editor.setAutocompleteProvider(new CommandAutocompleteProvider({ commands: () => [], cwd }));
    useSuggestionList(editor, theme);
  }
  const submitted: string[] = [];
  editor.onSubmit = (text) => submitted.push(text);
  tui.addChild(editor);
  tui.setFocus(editor);
  tui.start();
  context.after(() => {
    tui.stop();
    terminal.dispose();
  });
  const draw = async () => {
    tui.requestRender(true);
    await new Promise((resolve) => setImmediate(resolve));
    await terminal.flush();
    return terminal.screen().join('\n');
  };
  return { terminal, tui, editor, submitted, draw };
}

function assertSafe(raw: string): void {
  assert.deepEqual(terminalHazards(raw), [], 'nothing but text reached the terminal');
}

test('pi-tui still keeps the internals SafeEditor and SafeInput rewrite', () => {
  const editor = new Editor(new TUI(new VirtualTerminal()), {
    borderColor: (s) => s,
    selectList: {
      selectedPrefix: (s) => s,
      selectedText: (s) => s,
      description: (s) => s,
      scrollInfo: (s) => s,
      noMatch: (s) => s,
    },
  }) as unknown as Record<string, unknown>;
  const state = editor.state as Record<string, unknown>;
  assert.ok(Array.isArray(state.lines) && 'cursorLine' in state && 'cursorCol' in state);
  assert.ok(editor.pastes instanceof Map);
  const input = new Input() as unknown as Record<string, unknown>;
  assert.equal(typeof input.value, 'string');
  assert.equal(typeof input.cursor, 'number');
});

test('an insert with an OSC 52 and a clear screen is drawn escaped and sent as shown', async (context) => {
  const t = mount(context);
  assert.ok(terminalHazards(HOSTILE).length >= 3, 'the checker sees the raw text');
  t.editor.insertTextAtCursor(`say ${HOSTILE}`);
  const screen = await t.draw();
  assert.ok(screen.includes(`say ${HOSTILE_SHOWN}`), screen);
  assertSafe(t.terminal.recorded);
  t.terminal.type(ENTER);
  assert.deepEqual(t.submitted, [`say ${HOSTILE_SHOWN}`]);
});

test('setText and a history entry (an untrusted file) are made safe; Up recalls them safely', async (context) => {
  const t = mount(context);
  t.editor.addToHistory(`from history ${HOSTILE}`);
  t.editor.setText(`set ${HOSTILE}\r\nsecond\tline`);
  assert.equal(t.editor.getText(), `set ${HOSTILE_SHOWN}\nsecond    line`);
  t.editor.setText('');
  t.terminal.type(UP);
  const screen = await t.draw();
  assert.ok(screen.includes(`from history ${HOSTILE_SHOWN}`), screen);
  assertSafe(t.terminal.recorded);
});

test('a paste and typed characters are made safe before they are drawn or sent', async (context) => {
  const t = mount(context);
  // A paste keeps what pi-tui keeps (it drops C0 controls itself); C1, bidi and invisible
  // characters and a long paste held apart are escaped.
  t.terminal.type(paste('pasted \u009b2J\u202eevil\u200b'));
  t.terminal.type('\u202e');
  assert.equal(t.editor.getText(), 'pasted \\x9b2J\\u202eevil\\u200b\\u202e');
  const long = Array.from({ length: 12 }, (_, i) => `row ${i}\u202e`).join('\n');
  t.terminal.type(paste(long));
  assert.match(t.editor.getText(), /\[paste #\d+ \+12 lines\]$/);
  const screen = await t.draw();
  assert.ok(screen.includes('pasted \\x9b2J\\u202eevil\\u200b\\u202e'), screen);
  t.terminal.type(ENTER);
  assert.ok(t.submitted[0]!.includes('row 11\\u202e'), 'the held paste is sent escaped');
  assertSafe(t.terminal.recorded);
});

test('@ and Tab complete a hostile file name: it is inserted escaped', async (context) => {
  const cwd = mkdtempSync(join(tmpdir(), 'zot-safe-editor-'));
  context.after(() => rmSync(cwd, { recursive: true, force: true }));
  writeFileSync(join(cwd, 'evil\x1b]52;c;SEFDSw==\x07name.txt'), '');
  writeFileSync(join(cwd, 'report\u202etxt.exe'), '');
  const t = mount(context, cwd);
  for (const key of '@ev') t.terminal.type(key);
  await until(() => t.editor.isShowingAutocomplete());
  let screen = await t.draw();
  assert.ok(screen.includes('evil\\x1b]52;c;SEFDSw==\\x07name.txt'), screen);
  t.terminal.type(TAB);
  assert.equal(t.editor.getText(), '@evil\\x1b]52;c;SEFDSw==\\x07name.txt ');
  t.editor.setText('');
  for (const key of '@rep') t.terminal.type(key);
  await until(() => t.editor.isShowingAutocomplete());
  t.terminal.type(TAB);
  screen = await t.draw();
  assert.ok(screen.includes('@report\\u202etxt.exe'), screen);
  assertSafe(t.terminal.recorded);
});

test('text pi-tui puts in by itself between frames (a completion after a lookup) is safe when read', (context) => {
  const t = mount(context);
  const { state } = t.editor as unknown as {
    state: { lines: string[]; cursorLine: number; cursorCol: number };
  };
  state.lines = [`late ${HOSTILE}`, 'next'];
  state.cursorLine = 0;
  state.cursorCol = 5 + HOSTILE.length;
  assert.equal(t.editor.getExpandedText(), `late ${HOSTILE_SHOWN}\nnext`);
  assert.equal(state.cursorCol, 5 + HOSTILE_SHOWN.length, 'the cursor stays after the same text');
});

test('editorText keeps line breaks, expands tabs, escapes the rest; idempotent', () => {
  assert.equal(editorText('a\r\nb\rc\td\x1b'), 'a\nb\nc    d\\x1b');
  assert.equal(editorText(editorText(HOSTILE)), editorText(HOSTILE));
});

test('SafeInput: a pasted escape sequence is held and drawn escaped', async (context) => {
  const terminal = new VirtualTerminal({ columns: 80, rows: 5, record: true });
  const tui = new TUI(terminal);
  const input = new SafeInput();
  tui.addChild(input);
  tui.setFocus(input);
  tui.start();
  context.after(() => {
    tui.stop();
    terminal.dispose();
  });
  terminal.type(paste(HOSTILE));
  assert.equal(input.getValue(), HOSTILE_SHOWN);
  input.setValue(`set ${HOSTILE}`);
  assert.equal(input.getValue(), `set ${HOSTILE_SHOWN}`);
  tui.requestRender();
  await new Promise((resolve) => setImmediate(resolve));
  await terminal.flush();
  assert.ok(terminal.screen().join('\n').includes(HOSTILE_SHOWN.slice(0, 30)));
  assertSafe(terminal.recorded);
});

/** Waits for the editor's asynchronous lookup (a directory walk). */
async function until(ready: () => boolean): Promise<void> {
  for (let i = 0; i < 4000 && !ready(); i++) await new Promise((r) => setTimeout(r, 5));
  assert.ok(ready(), 'timed out waiting');
}
