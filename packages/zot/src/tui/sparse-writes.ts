// pi-tui's differential frame rewrites every line from the first changed one to the last, the
// unchanged ones between them included: an answer line and the status line changing in the
// same frame rewrite the editor and its rules in between (a few KB per frame, what users feel
// over SSH). Given the last frame and the new one, this finds the exact text pi-tui writes for
// that range and puts in its place the changed lines alone, moving the cursor over the rest.
// The screen ends up the same; when the text is not what pi-tui was expected to write (another
// kind of frame, a changed pi-tui), nothing is replaced.

const CLEAR_LINE = '\x1b[2K';

/**
 * The lines pi-tui rewrites from `previous` to `next`, or undefined when there is no change.
 * `same` leading lines are known to be the same strings in both (the scan starts after them).
 */
export function changedRange(
  previous: readonly string[],
  next: readonly string[],
  same = 0,
): { first: number; end: number } | undefined {
  let first = -1;
  let last = -1;
  const count = Math.max(previous.length, next.length);
  for (let i = Math.min(same, count); i < count; i++) {
    if ((previous[i] ?? '') !== (next[i] ?? '')) {
      if (first === -1) first = i;
      last = i;
    }
  }
  if (next.length > previous.length) {
    if (first === -1) first = previous.length;
    last = next.length - 1;
  }
  if (first === -1) return undefined;
  const end = Math.min(last, next.length - 1);
  return end < first ? undefined : { first, end };
}

/**
 * The text pi-tui writes for `range` (every line cleared and written) and the same change with
 * only the changed lines written; undefined when they would be the same.
 */
export function sparseRewrite(
  previous: readonly string[],
  next: readonly string[],
  range: { first: number; end: number },
): { full: string; sparse: string } | undefined {
  let full = '';
  let sparse = '';
  let skipped = 0;
  for (let i = range.first; i <= range.end; i++) {
    const line = next[i]!;
    if (i > range.first) full += '\r\n';
    full += CLEAR_LINE + line;
    // A line already on screen as it is now is stepped over (never the last: the cursor must
    // end where pi-tui's would, at the end of the last line written).
    const same = i > range.first && i < range.end && i < previous.length && previous[i] === line;
    if (same) {
      skipped++;
      continue;
    }
    if (i > range.first) {
      // The rows stepped over are on screen: moving down cannot scroll, and needs no \r.
      if (skipped >= 3) sparse += `\x1b[${skipped}B\r\n`;
      else sparse += '\r\n'.repeat(skipped + 1);
    }
    skipped = 0;
    sparse += CLEAR_LINE + line;
  }
  return sparse.length < full.length ? { full, sparse } : undefined;
}

/**
 * A writer's filter for one frame: `expect` is called with the last and the new frame before
 * pi-tui writes it; the next write has pi-tui's text for the changed range replaced with the
 * sparse one when it holds it exactly once.
 */
export class SparseWrites {
  private pending: { full: string; sparse: string } | undefined;

  /** `same` leading lines of `next` are known to be those of `previous` (0: none known). */
  expect(previous: readonly string[], next: readonly string[], rows: number, same = 0): void {
    const range = changedRange(previous, next, same);
    // A change above the screen's top is drawn whole by pi-tui: there is nothing to replace.
    const onScreen = range && range.first >= previous.length - rows;
    this.pending = onScreen ? sparseRewrite(previous, next, range) : undefined;
  }

  /** Contract: returns `data` itself unless it holds the expected text exactly once. */
  filter(data: string): string {
    const pending = this.pending;
    this.pending = undefined;
    if (!pending) return data;
    const at = data.indexOf(pending.full);
    if (at === -1 || data.indexOf(pending.full, at + 1) !== -1) return data;
    return data.slice(0, at) + pending.sparse + data.slice(at + pending.full.length);
  }
}
