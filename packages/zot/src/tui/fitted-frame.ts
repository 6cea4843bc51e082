// The root of zot's screen: its children's lines, each cut to the terminal's width. pi-tui stops
// the whole UI with an error (and writes a crash log under ~/.pi) when one line is too wide, so
// one widget's mistake would end the session. A frame must also cost little however long the
// transcript is: a child that returns the same lines as last frame is not measured again, a
// line that is the same string as in the child's last frame keeps its cut, and a child that
// promises lines that fit (`fitsWidth`, e.g. tui/settled-log.ts) is taken as it is.
import {
  Container,
  truncateToWidth,
  visibleWidth,
  type Component,
  type TUI,
} from '@mariozechner/pi-tui';

const KITTY_PREFIX = '\x1b_G';

/**
 * How many leading lines of a rendered frame are the very strings of the frame rendered before
 * it, when its maker knows (a long transcript changes only at its end): a frame's later steps
 * then need not compare those lines one by one. Kept per frame array, weakly.
 */
const leadingSameOf = new WeakMap<
  readonly string[],
  { previous: readonly string[]; count: number }
>();

/** Records that the first `count` lines of `lines` are the very strings of `previous`'s. */
function noteLeadingSame(
  lines: readonly string[],
  previous: readonly string[],
  count: number,
): void {
  if (count > 0 && lines !== previous) leadingSameOf.set(lines, { previous, count });
}

/**
 * How many leading lines of `lines` are known to be the very strings of `previous`'s (0 when
 * nothing is known). Contract: for i below the result, `lines[i] === previous[i]`.
 */
export function leadingSame(lines: readonly string[], previous: readonly string[]): number {
  if (lines === previous) return lines.length;
  const known = leadingSameOf.get(lines);
  return known && known.previous === previous
    ? Math.min(known.count, lines.length, previous.length)
    : 0;
}

/** A component whose every line already fits the width it was rendered for. */
export interface FittingComponent extends Component {
  readonly fitsWidth: true;
}

const fits = (component: Component): component is FittingComponent =>
  (component as Partial<FittingComponent>).fitsWidth === true;

/**
 * At least the columns pi-tui's `visibleWidth` gives `line`, counted cheaply: the escape
 * sequences it skips (CSI up to one of m G K H J, OSC and APC up to BEL or ST) take none, a
 * printable ASCII character one, a tab three, anything else two (no character takes more).
 * pi-tui's exact measure walks graphemes and costs a hundred times more; most lines are far
 * enough within the width for this bound to settle it.
 */
function columnsAtMost(line: string): number {
  let columns = 0;
  for (let i = 0; i < line.length; i++) {
    const code = line.charCodeAt(i);
    if (code === 0x1b) {
      const end = escapeEnd(line, i);
      if (end !== -1) {
        i = end;
        continue;
      }
    }
    columns += code >= 0x20 && code < 0x7f ? 1 : code === 0x09 ? 3 : 2;
  }
  return columns;
}

/** Where the sequence pi-tui would skip at `start` ends, or -1 when it would skip none. */
function escapeEnd(line: string, start: number): number {
  const kind = line[start + 1];
  if (kind === '[') {
    for (let i = start + 2; i < line.length; i++) if ('mGKHJ'.includes(line[i]!)) return i;
    return -1;
  }
  if (kind === ']' || kind === '_') {
    for (let i = start + 2; i < line.length; i++) {
      if (line.charCodeAt(i) === 0x07) return i;
      if (line.charCodeAt(i) === 0x1b && line[i + 1] === '\\') return i + 1;
    }
  }
  return -1;
}

/** Whether `line` fits `width` columns (pi-tui's measure, when the cheap bound cannot tell). */
export function fitsWidth(line: string, width: number): boolean {
  return columnsAtMost(line) <= width || visibleWidth(line) <= width;
}

/** One line cut to `width` (a Kitty image line is left alone). */
export function fitLine(line: string, width: number): string {
  return fitsWidth(line, width) || line.includes(KITTY_PREFIX)
    ? line
    : truncateToWidth(line, width, '');
}

/** What a component's lines were last frame, and their cut. */
export interface FitMemo {
  width: number;
  raw: readonly string[];
  fitted: readonly string[];
}

/**
 * `raw` cut to `width`, reusing `memo` (the same child's last frame): the same array costs
 * nothing, and a line that is the same string at the same index keeps its cut.
 * Contract: never mutates `raw`; the result is a new array unless it is `memo.fitted`.
 */
export function fitLines(raw: readonly string[], width: number, memo?: FitMemo): FitMemo {
  if (memo && memo.width === width && memo.raw === raw) return memo;
  const same = memo && memo.width === width ? memo : undefined;
  // Filled by push, not preallocated: a holey array makes every later copy of it slow.
  const fitted: string[] = [];
  for (let i = 0; i < raw.length; i++) {
    const line = raw[i]!;
    fitted.push(same && same.raw[i] === line ? same.fitted[i]! : fitLine(line, width));
  }
  return { width, raw, fitted };
}

/**
 * A component whose lines fit, handed to a frame in parts that the frame copies at once. A part
 * may be an array handed out before that has grown in place since (never changed otherwise).
 */
export interface PartedComponent extends FittingComponent {
  renderParts(width: number, parts: (readonly string[])[]): void;
}

const parted = (component: Component): component is PartedComponent =>
  fits(component) && typeof (component as Partial<PartedComponent>).renderParts === 'function';

export class FittedFrame extends Container implements FittingComponent, PartedComponent {
  readonly fitsWidth = true;
  private memos = new WeakMap<Component, FitMemo>();
  /** The parts of the last render, with their lengths then, and its lines. */
  private lastParts: (readonly string[])[] = [];
  private lastLengths: number[] = [];
  private lastLines: readonly string[] = [];

  override render(width: number): string[] {
    const parts: (readonly string[])[] = [];
    this.renderParts(width, parts);
    // pi-tui keeps the frame it is given as the last frame: it must be an array of its own.
    const lines = ([] as string[]).concat(...parts);
    // A part that is the very array of last render holds the same lines at the same places, up
    // to its length then (parts only grow in place); counting stops at the first other part.
    let same = 0;
    for (let k = 0; k < parts.length; k++) {
      const part = parts[k]!;
      if (part !== this.lastParts[k]) break;
      const was = this.lastLengths[k]!;
      same += Math.min(was, part.length);
      if (part.length !== was) break;
    }
    noteLeadingSame(lines, this.lastLines, same);
    this.lastParts = parts;
    this.lastLengths = parts.map((part) => part.length);
    this.lastLines = lines;
    return lines;
  }

  /** Each child's fitted lines, in order; a child that renders in parts adds them (no copy). */
  renderParts(width: number, parts: (readonly string[])[]): void {
    for (const child of this.children) {
      if (parted(child)) {
        child.renderParts(width, parts);
        continue;
      }
      const raw = child.render(width);
      if (fits(child)) {
        parts.push(raw);
        continue;
      }
      const memo = fitLines(raw, width, this.memos.get(child));
      this.memos.set(child, memo);
      parts.push(memo.fitted);
    }
  }

  override invalidate(): void {
    this.memos = new WeakMap();
    super.invalidate();
  }

  /**
   * Makes this frame the TUI's whole screen: added as its child, and drawn without the copy
   * that pi-tui's Container makes of every line (a long transcript has tens of thousands).
   * While anything else is a child of the TUI as well, the TUI renders as before.
   */
  mount(tui: TUI): void {
    tui.addChild(this);
    const render = tui.render.bind(tui);
    tui.render = (width: number) =>
      tui.children.length === 1 && tui.children[0] === this ? this.render(width) : render(width);
  }
}
