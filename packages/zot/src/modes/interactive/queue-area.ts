// The messages waiting for the running turn, under the chat: steering first, then follow-ups.
// (A stand-in: the tui/queue-view.ts widget replaces it behind the same update/render surface.)
import { truncateToWidth, type Component } from '@mariozechner/pi-tui';
import type { Theme } from '../../tui/theme.js';
import { terminalSafe } from '../../util/terminal-text.js';

export interface QueueContents {
  steering: readonly string[];
  follow_up: readonly string[];
}

/** Contract: one line per waiting message, each cut to the width. */
export class QueueArea implements Component {
  private queue: QueueContents = { steering: [], follow_up: [] };

  constructor(private readonly theme: Theme) {}

  update(queue: QueueContents): void {
    this.queue = queue;
  }

  /** The waiting messages' texts, steering first. */
  get waiting(): string[] {
    return [...this.queue.steering, ...this.queue.follow_up];
  }

  get size(): number {
    return this.queue.steering.length + this.queue.follow_up.length;
  }

  invalidate(): void {}

  render(width: number): string[] {
    const line = (label: string, text: string) =>
      truncateToWidth(
        this.theme.muted(`${label} `) + terminalSafe(text.replace(/\s+/g, ' ')),
        width,
        '…',
      );
    const lines = [
      ...this.queue.steering.map((text) => line('steer ›', text)),
      ...this.queue.follow_up.map((text) => line('queued ›', text)),
    ];
    if (this.queue.follow_up.length > 0) {
      lines.push(
        truncateToWidth(this.theme.dim('  alt+up: edit the last queued message'), width, '…'),
      );
    }
    return lines;
  }
}
