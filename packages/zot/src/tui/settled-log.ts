// A column of blocks (the chat's transcript) that stays cheap to draw however long it grows.
// pi-tui renders the whole component tree for every frame, a typed key included, and a resumed
// session holds thousands of blocks. A block marked settled will not change any more: its lines
// are kept per width, cut to it, and the lines of the settled blocks at the top are kept joined,
// so a frame renders only the live blocks (a streaming answer, a running tool) and copies the
// rest. Blocks are separated by one blank line. A block can be held back (added but not drawn
// yet): a resumed session draws the screen's worth of its newest turns first and the rest in one
// later frame, rendered meanwhile in slices (the oldest block of the first frame may show only
// its last lines, as a scrolled screen would).
import type { Component } from '@mariozechner/pi-tui';
import { fitLines, type FitMemo, type PartedComponent } from './fitted-frame.js';

interface Block {
  component: Component;
  settled: boolean;
  /** Its lines at the last width it was drawn at (settled: valid until invalidated). */
  memo: FitMemo | undefined;
  /** Added but not drawn (no lines, no separator) until released... */
  held: boolean;
  /** ...or only its last lines, this many. */
  tail?: number;
}

/**
 * Contract: `render` returns lines that fit the width, and the very same array while nothing
 * changed; an array it returned is never changed afterwards. A settled block is not rendered
 * again until `changed`, `invalidate` or a new width; a live block is rendered every frame.
 */
export class SettledLog implements PartedComponent {
  readonly fitsWidth = true;
  private blocks: Block[] = [];
  /** The joined lines of blocks[0..count), all settled, at `width`. */
  private joined = SettledLog.noJoined();
  private static noJoined(width = -1) {
    return { width, count: 0, drawn: false, lines: [] as string[] };
  }
  /** The last frame's lines, and the joined and live parts they were made of. */
  private last: string[] = [];
  private lastJoined: readonly string[] | undefined;
  private lastJoinedLength = 0;
  private lastTail: readonly string[] = [];

  /** How many times it was rendered (a frame drew it). */
  renders = 0;

  get size(): number {
    return this.blocks.length;
  }

  /** Adds a block at the end; a settled one (a prompt, a notice) never changes. */
  add(component: Component, settled = false): void {
    this.blocks.push({ component, settled, memo: undefined, held: false });
  }

  /**
   * Adds a block before `before` (at the end when it is absent or undefined); a `held` one is
   * not drawn until `release`.
   */
  insert(component: Component, settled: boolean, before: Component | undefined, held: boolean) {
    const at = before === undefined ? -1 : this.indexOf(before);
    const block = { component, settled, memo: undefined, held };
    if (at === -1) this.blocks.push(block);
    else {
      this.blocks.splice(at, 0, block);
      this.cutJoined(at);
    }
  }

  /** Draws the held blocks among `components` (all of them when absent) from the next frame. */
  release(components?: readonly Component[]): void {
    const wanted = components ? new Set(components) : undefined;
    for (let i = 0; i < this.blocks.length; i++) {
      const block = this.blocks[i]!;
      if (!block.held || (wanted && !wanted.has(block.component))) continue;
      block.held = false;
      delete block.tail;
      this.cutJoined(i);
    }
  }

  /** Draws the last `lines` lines of a held block until it is released. */
  peek(component: Component, lines: number): void {
    const index = this.indexOf(component);
    const block = this.blocks[index];
    if (!block?.held) return;
    block.tail = lines;
    this.cutJoined(index);
  }

  /**
   * Renders `components` (when they are blocks here) at `width`, as a frame would, keeping the
   * settled ones' lines; returns the lines they take with their separators.
   */
  measure(components: readonly Component[], width: number): number {
    let lines = 0;
    for (const component of components) {
      const index = this.indexOf(component);
      if (index !== -1) lines += this.linesOf(index, width).length + 1;
    }
    return lines;
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
    if (this.joined.count > index) this.joined = SettledLog.noJoined();
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

  /**
   * Adds block `index` to `lines`, after the blank line that separates it from the one before;
   * returns whether it was drawn (a held block is not). `after` says whether one was drawn before.
   */
  private append(lines: string[], index: number, width: number, after: boolean): boolean {
    const { held, tail } = this.blocks[index]!;
    if (held && tail === undefined) return false;
    const own = this.linesOf(index, width);
    // A block of no lines (an answer not begun) takes no room, nor a separator.
    if (own.length === 0) return false;
    if (after) lines.push('');
    for (let i = held ? Math.max(0, own.length - tail!) : 0; i < own.length; i++)
      lines.push(own[i]!);
    return true;
  }

  render(width: number): string[] {
    const { joined, tail } = this.assemble(width);
    const joinedLength = joined.length;
    if (
      joined === this.lastJoined &&
      joinedLength === this.lastJoinedLength &&
      sameLines(tail, this.lastTail)
    )
      return this.last;
    this.lastJoined = joined;
    this.lastJoinedLength = joinedLength;
    this.lastTail = tail;
    // Always a copy (a plain copy of references): the joined lines then grow in place.
    this.last = joined.concat(tail);
    return this.last;
  }

  /**
   * What a frame draws, as `render` would, in two parts and without the copy: the joined lines
   * of the settled blocks at the top (an array that only grows in place, until the next change
   * above its end or a new width starts another) and the lines of the blocks after them. A frame
   * copies them at once (tui/fitted-frame.ts).
   */
  renderParts(width: number, parts: (readonly string[])[]): void {
    const { joined, tail } = this.assemble(width);
    parts.push(joined, tail);
  }

  /** The joined lines (joining the blocks that settled since) and the lines after them. */
  private assemble(width: number): { joined: string[]; tail: string[] } {
    this.renders++;
    let joined = this.joined;
    if (joined.width !== width) joined = SettledLog.noJoined(width);
    // Settled blocks that follow the joined ones join them, added in place (a streamed answer
    // settles a block every few frames).
    let count = joined.count;
    while (count < this.blocks.length && this.blocks[count]!.settled) count++;
    if (count > joined.count) {
      const lines = joined.lines;
      let drawn = joined.drawn;
      for (let i = joined.count; i < count; i++)
        drawn = this.append(lines, i, width, drawn) || drawn;
      joined = { width, count, drawn, lines };
    }
    this.joined = joined;
    const tail: string[] = [];
    let drawn = joined.drawn;
    for (let i = count; i < this.blocks.length; i++)
      drawn = this.append(tail, i, width, drawn) || drawn;
    return { joined: joined.lines, tail };
  }
}

function sameLines(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
