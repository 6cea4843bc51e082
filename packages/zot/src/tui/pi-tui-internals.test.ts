// Fails when an upgrade of pi-tui changes a private method zot patches: follow the change in
// pi-tui-internals.ts (and its users), then update PI_TUI_VERIFIED.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import { Editor, TUI, type EditorTheme } from '@mariozechner/pi-tui';
import {
  editorCompletion,
  editorCompletionMismatch,
  frameStepsMismatch,
  PI_TUI_VERIFIED,
} from './pi-tui-internals.js';
import { VirtualTerminal } from './testing/virtual-terminal.js';

const plain = (text: string) => text;
const EDITOR_THEME: EditorTheme = {
  borderColor: plain,
  selectList: {
    selectedPrefix: plain,
    selectedText: plain,
    description: plain,
    scrollInfo: plain,
    noMatch: plain,
  },
};

function installedVersion(): string {
  const main = createRequire(import.meta.url).resolve('@mariozechner/pi-tui');
  const manifest = main.replace(/dist[/\\][^/\\]*$/, 'package.json');
  return (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
}

test('the installed pi-tui still has the frame steps the frame memo patches', () => {
  const terminal = new VirtualTerminal({ columns: 20, rows: 4 });
  const mismatch = frameStepsMismatch(new TUI(terminal));
  terminal.dispose();
  assert.equal(
    mismatch,
    undefined,
    `pi-tui ${installedVersion()} (checked: ${PI_TUI_VERIFIED}) changed: ${mismatch}`,
  );
});

test('a doRender that no longer calls the frame steps is a mismatch', () => {
  const terminal = new VirtualTerminal({ columns: 20, rows: 4 });
  const rewritten = new TUI(terminal);
  (rewritten as unknown as { doRender(): void }).doRender = function () {};
  assert.match(frameStepsMismatch(rewritten) ?? '', /no longer passes the frame/);
  terminal.dispose();
});

test('the installed pi-tui still has the editor completion steps the / list uses', () => {
  const editor = new Editor(new TUI(new VirtualTerminal({ columns: 20, rows: 4 })), EDITOR_THEME);
  const mismatch = editorCompletionMismatch(editor);
  assert.equal(
    mismatch,
    undefined,
    `pi-tui ${installedVersion()} (checked: ${PI_TUI_VERIFIED}) changed: ${mismatch}`,
  );
});

test('an editor whose completion steps changed keeps the list pi-tui makes, with one note', () => {
  const editor = new Editor(new TUI(new VirtualTerminal({ columns: 20, rows: 4 })), EDITOR_THEME);
  const internals = editor as unknown as { cancelAutocomplete: unknown };
  const changed = (_reason: string) => undefined;
  internals.cancelAutocomplete = changed;
  const notes: string[] = [];
  assert.equal(
    editorCompletion(editor, (line) => notes.push(line)),
    undefined,
  );
  assert.equal(
    editorCompletion(editor, (line) => notes.push(line)),
    undefined,
  );
  assert.equal(notes.length, 1);
  assert.match(notes[0]!, /Editor\.cancelAutocomplete takes 1 arguments;.*\/ list is off/);
  assert.equal(internals.cancelAutocomplete, changed);
});
