// The transcript as session-file entries rebuild it: messages append, a compaction keeps a
// summary plus the last messages, a clear empties it.
import type { LineMessage } from './repair.js';

/**
 * Contract: each operation is amortised O(1) plus the messages it drops, so replaying any file
 * is linear (a naive `[summary, ...kept]` copy is quadratic on a file of many compactions).
 */
export class TranscriptReplay {
  /** The transcript is items[start..]; slots before `start` are free room for summaries. */
  private items: Array<LineMessage | undefined> = [];
  private start = 0;

  append(message: LineMessage): void {
    this.items.push(message);
  }

  clear(): void {
    this.items = [];
    this.start = 0;
  }

  /** The transcript becomes `summary` followed by its last `kept` messages. */
  compact(summary: LineMessage, kept: number): void {
    const length = this.items.length - this.start;
    const first = this.items.length - Math.min(kept, length);
    if (first === 0) {
      // Room at the front, doubling like a growing array, so that prepends stay amortised O(1).
      const room = Math.max(16, length);
      this.items = [...new Array<undefined>(room), ...this.items];
      this.start = room - 1;
    } else {
      this.items.fill(undefined, this.start, first - 1);
      this.start = first - 1;
    }
    this.items[this.start] = summary;
  }

  /** The transcript keeps its first `count` messages (a conversation rewind). */
  truncate(count: number): void {
    const length = this.items.length - this.start;
    this.items.length = this.start + Math.min(count, length);
  }

  /** How many messages the transcript holds. */
  get length(): number {
    return this.items.length - this.start;
  }

  messages(): LineMessage[] {
    return this.items.slice(this.start) as LineMessage[];
  }
}
