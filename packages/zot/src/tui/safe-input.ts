// pi-tui's Editor and Input holding only text that can be drawn as it is. Whatever comes in
// (typed, pasted, an extension's insert, a history entry, a completed file name) has its control,
// invisible and reordering characters turned into visible escapes (`\x1b`, `\u202e`) on the way
// in, so the editor never draws a raw escape sequence and what the user sends is exactly what
// they saw. Kept, not stripped: an escape that was there stays in view as evidence.
import { Editor, Input, truncateToWidth, visibleWidth } from '@mariozechner/pi-tui';
import { terminalSafe } from '../util/terminal-text.js';

/** One editor line as it may be held: tabs as four spaces (pi's own rule), the rest escaped. */
function safeLine(line: string): string {
  return terminalSafe(line.includes('\t') ? line.replace(/\t/g, '    ') : line);
}

/**
 * Text as an editor may hold it: line breaks kept (CRLF and CR become LF, as pi-tui does),
 * everything else that is not drawn as itself shown escaped. Contract: idempotent; never throws.
 */
export function editorText(text: string): string {
  return text.replace(/\r\n?/g, '\n').split('\n').map(safeLine).join('\n');
}

// pi-tui keeps these private; the pinned version has them (safe-input.test.ts checks).
interface EditorInternals {
  state: { lines: string[]; cursorLine: number; cursorCol: number };
  pastes: Map<number, string>;
}
interface InputInternals {
  value: string;
  cursor: number;
}

/**
 * pi-tui's Editor, holding only safe text. Programmatic text (`setText`, `insertTextAtCursor`,
 * `addToHistory`) is made safe before it enters; what pi-tui adds by itself (a paste, a typed
 * character, a completion applied after an asynchronous lookup) is made safe before each key is
 * handled and before each frame is drawn, so neither a submit nor a frame ever sees it raw.
 */
export class SafeEditor extends Editor {
  override setText(text: string): void {
    super.setText(editorText(text));
  }

  override insertTextAtCursor(text: string): void {
    super.insertTextAtCursor(editorText(text));
  }

  override addToHistory(text: string): void {
    super.addToHistory(editorText(text));
  }

  override handleInput(data: string): void {
    this.keepSafe();
    super.handleInput(data);
    this.keepSafe();
  }

  /** What a submit sends (long pastes expanded), safe even before the next frame. */
  override getExpandedText(): string {
    this.keepSafe();
    return super.getExpandedText();
  }

  override render(width: number): string[] {
    this.keepSafe();
    // pi-tui's scroll indicators are wider than a very narrow terminal; pi-tui refuses such lines.
    return super
      .render(width)
      .map((line) => (visibleWidth(line) > width ? truncateToWidth(line, width, '') : line));
  }

  /** Escapes what is unsafe in place; the cursor stays after the same character. */
  protected keepSafe(): void {
    const { state, pastes } = this as unknown as EditorInternals;
    for (let i = 0; i < state.lines.length; i++) {
      const line = state.lines[i]!;
      const safe = safeLine(line);
      if (safe === line) continue;
      if (i === state.cursorLine) {
        state.cursorCol = safeLine(line.slice(0, state.cursorCol)).length;
      }
      state.lines[i] = safe;
    }
    // A long paste is held apart and shown as `[paste #1 +40 lines]`; it is sent as it is held.
    for (const [id, text] of pastes) {
      const safe = editorText(text);
      if (safe !== text) pastes.set(id, safe);
    }
  }
}

/** pi-tui's one-line Input (dialog search, rename), holding only safe text like SafeEditor. */
export class SafeInput extends Input {
  override setValue(value: string): void {
    super.setValue(terminalSafe(value));
  }

  override handleInput(data: string): void {
    super.handleInput(data);
    this.keepSafe();
  }

  override render(width: number): string[] {
    this.keepSafe();
    return super.render(width);
  }

  private keepSafe(): void {
    const input = this as unknown as InputInternals;
    const safe = terminalSafe(input.value);
    if (safe === input.value) return;
    input.cursor = terminalSafe(input.value.slice(0, input.cursor)).length;
    input.value = safe;
  }
}
