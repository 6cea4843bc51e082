// The messages waiting under the chat while a turn runs: one line each, marked `follow-up` (runs
// after the turn) or `steer` (joins the running turn at its next step), and the key that takes
// the last one back into the editor. Plain data in; renders nothing when the queue is empty.
import type { Component } from '@mariozechner/pi-tui';
import { cut, oneLine } from './dialog-frame.js';
import type { Theme } from './theme.js';

export interface QueuedMessage {
  text: string;
  kind: 'follow-up' | 'steer';
}

export interface QueueViewOptions {
  theme: Theme;
  /** The key that edits the last queued message, as shown in the hint (default `alt+up`). */
  editKey?: string;
}

const MARK_WIDTH = 'follow-up'.length;

/** Contract: one line per message plus one hint line; no line exceeds the width. */
export class QueueView implements Component {
  private messages: readonly QueuedMessage[] = [];

  constructor(private readonly options: QueueViewOptions) {}

  /** Replaces what is shown (the runtime's queue, oldest first). */
  setMessages(messages: readonly QueuedMessage[]): void {
    this.messages = messages;
  }

  invalidate(): void {}

  render(width: number): string[] {
    if (this.messages.length === 0 || width <= 0) return [];
    const { theme } = this.options;
    const lines = this.messages.map((message) => {
      const mark = `${message.kind.padEnd(MARK_WIDTH)} `;
      const styledMark = message.kind === 'steer' ? theme.warning(mark) : theme.accent(mark);
      const prefix = `  ↳ `;
      const room = width - prefix.length - mark.length;
      if (room < 4) return theme.muted(cut(`${prefix}${message.kind}`, width));
      return theme.muted(prefix) + styledMark + theme.text(cut(oneLine(message.text), room));
    });
    const count = this.messages.length;
    const hint = `  ${count} queued · ${this.options.editKey ?? 'alt+up'} to edit the last`;
    lines.push(theme.dim(cut(hint, width)));
    return lines;
  }
}
