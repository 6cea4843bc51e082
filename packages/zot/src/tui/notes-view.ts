// Extension notes under the chat: `[name] message`, coloured by level; without colour, warnings
// and errors say so in words. Plain data in; renders nothing when there are no notes.
import { visibleWidth, wrapTextWithAnsi, type Component } from '@mariozechner/pi-tui';
import { terminalSafeBlock } from '../util/terminal-text.js';
import { cut, oneLine } from './dialog-frame.js';
import type { Theme } from './theme.js';

export interface Note {
  /** The extension's name. */
  source: string;
  message: string;
  level: 'info' | 'warn' | 'error';
}

export interface NotesViewOptions {
  theme: Theme;
  /** Only the newest this many notes are shown (default 5). */
  max?: number;
  /** Lines one note may take before it is cut with `…` (default 3). */
  maxLinesPerNote?: number;
}

/** Contract: no line exceeds the width; text from extensions is shown, never interpreted. */
export class NotesView implements Component {
  private notes: readonly Note[] = [];

  constructor(private readonly options: NotesViewOptions) {}

  /** Replaces what is shown (oldest first). */
  setNotes(notes: readonly Note[]): void {
    this.notes = notes;
  }

  invalidate(): void {}

  render(width: number): string[] {
    if (width <= 0) return [];
    const { theme } = this.options;
    const shown = this.notes.slice(-Math.max(1, this.options.max ?? 5));
    const maxLines = Math.max(1, this.options.maxLinesPerNote ?? 3);
    const lines: string[] = [];
    for (const note of shown) {
      const name = `[${cut(oneLine(note.source), Math.max(1, Math.floor(width / 3)))}]`;
      const level =
        note.level === 'info' || theme.color
          ? ''
          : `${note.level === 'warn' ? 'warning' : 'error'}: `;
      const style =
        note.level === 'error' ? theme.error : note.level === 'warn' ? theme.warning : theme.info;
      const indent = visibleWidth(name) + 1;
      const room = width - indent;
      const text = level + terminalSafeBlock(note.message.replace(/\t/g, '  ')).trim();
      if (room < 8) {
        lines.push(cut(`${name} ${text.replace(/\s+/g, ' ')}`, width));
        continue;
      }
      const wrapped = text.split('\n').flatMap((line) => wrapTextWithAnsi(line, room));
      const kept = wrapped.slice(0, maxLines);
      if (wrapped.length > maxLines) kept[maxLines - 1] = cut(`${kept[maxLines - 1]!} …`, room);
      kept.forEach((line, i) => {
        const head = i === 0 ? theme.extensionName(name) + ' ' : ' '.repeat(indent);
        lines.push(head + style(cut(line, room)));
      });
    }
    return lines;
  }
}
