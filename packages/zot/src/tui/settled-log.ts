// A column of blocks (the chat's transcript) that stays cheap to draw however long it grows.
// pi-tui renders the whole component tree for every frame, a typed key included, and a resumed
// session holds thousands of blocks. A block marked settled will not change any more: its lines
// are kept per width, cut to it, and the lines of the settled blocks at the top are kept joined,
// so a frame renders only the live blocks (a streaming answer, a running tool) and copies the
// rest. Blocks are separated by one blank line.
import type { Component } from '@mariozechner/pi-tui';
import { fitLines, type FitMemo, type FittingComponent } from './fitted-frame.js';

interface Block {
  component: Component;
  settled: boolean;
  /** Its lines at the last width it was drawn at (settled: valid until invalidated). */
  memo: FitMemo | undefined;
}

/**
 * Contract: `render` returns lines that fit the width, and the very same array while nothing
 * changed; an array it returned is never changed afterwards. A settled block is not rendered
 * again until `changed`, `invalidate` or a new width; a live block is rendered every frame.
 */
export class SettledLog implements FittingComponent {
  readonly fitsWidth = true;
  private blocks: Block[] = [];
  /** The joined lines of blocks[0..count), all settled, at `width`. */
  private joined = { width: -1, count: 0, lines: [] as readonly string[] };
  /** The last frame's lines, and the joined and live parts they were made of. */
  private last: string[] = [];
  private lastJoined: readonly string[] | undefined;
  private lastTail: readonly string[] = [];

  get size(): number {
    return this.blocks.length;
  }

  /** Adds a block at the end; a settled one (a prompt, a notice) never changes. */
  add(component: Component, settled = false): void {
    this.blocks.push({ component, settled, memo: undefined });
  }

  /** The block will not change any more (its answer ended, its tool finished). */
  settle(component: Component): void {
    const block = this.blocks[this.indexOf(component)];
    if (!block || block.settled) return;
    block.settled = true;
    // It may have changed since it was last drawn (a tool row finished): drawn once more.
    block.memo = undefined;
  }

  /** A block changed after all: it is drawn again (and whatever follows it). */
  changed(component: Component): void {
    const index = this.indexOf(component);
    if (index === -1) return;
    this.blocks[index]!.memo = undefined;
    this.cutJoined(index);
  }

  remove(component: Component): void {
    const index = this.indexOf(component);
    if (index === -1) return;
    this.blocks.splice(index, 1);
    this.cutJoined(index);
  }

  clear(): void {
    this.blocks = [];
    this.cutJoined(0);
  }

  /** Every block is drawn again, as it is now (ctrl+o expanded or collapsed them). */
  redraw(): void {
    for (const block of this.blocks) block.memo = undefined;
    this.cutJoined(0);
  }

  /** Everything is drawn again, from scratch (a theme change). */
  invalidate(): void {
    for (const block of this.blocks) {
      block.memo = undefined;
      block.component.invalidate();
    }
    this.cutJoined(0);
  }

  private cutJoined(index: number): void {
    if (this.joined.count > index) this.joined = { width: -1, count: 0, lines: [] };
  }

  /** Where `component` is, searched from the end (where the live blocks are); -1 if absent. */
  private indexOf(component: Component): number {
    for (let i = this.blocks.length - 1; i >= 0; i--)
      if (this.blocks[i]!.component === component) return i;
    return -1;
  }

  /** A block's lines, fitted to the width (a settled block's as they were). */
  private linesOf(index: number, width: number): readonly string[] {
    const block = this.blocks[index]!;
    const memo = block.memo;
    if (block.settled && memo && memo.width === width) return memo.fitted;
    block.memo = fitLines(block.component.render(width), width, memo);
    return block.memo.fitted;
  }

  /** Adds block `index` to `lines`, after the blank line that separates it from the one before. */
  private append(lines: string[], index: number, width: number): void {
    if (index > 0) lines.push('');
    for (const line of this.linesOf(index, width)) lines.push(line);
  }

  render(width: number): string[] {
    let joined = this.joined;
    if (joined.width !== width) joined = { width, count: 0, lines: [] };
    // Settled blocks that follow the joined ones join them (one copy per frame that adds any).
    let count = joined.count;
    while (count < this.blocks.length && this.blocks[count]!.settled) count++;
    if (count > joined.count) {
      const lines = joined.lines.slice();
      for (let i = joined.count; i < count; i++) this.append(lines, i, width);
      joined = { width, count, lines };
    }
    this.joined = joined;
    const tail: string[] = [];
    for (let i = count; i < this.blocks.length; i++) this.append(tail, i, width);
    if (joined.lines === this.lastJoined && sameLines(tail, this.lastTail)) return this.last;
    this.lastJoined = joined.lines;
    this.lastTail = tail;
    this.last = tail.length === 0 ? (joined.lines as string[]) : joined.lines.concat(tail);
    return this.last;
  }
}

function sameLines(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
