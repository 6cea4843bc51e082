// Which words of a changed line changed: a removed line and the added line that replaced it are
// split into words, spaces and punctuation, and the tokens outside their longest common
// subsequence are the changes. Bounded: past MAX_TOKENS a side, the whole line is the change.

/** A changed stretch of a line: `[start, end)` in UTF-16 units. */
export type Span = readonly [start: number, end: number];

/** Tokens a side at most: the table is MAX_TOKENS² cells (a 64k-cell table stays fast). */
export const MAX_TOKENS = 256;

const TOKEN = /[\p{L}\p{N}_]+|\s+|./gsu;

function tokens(text: string): string[] {
  return text.match(TOKEN) ?? [];
}

/**
 * The changed spans of `before` and `after`. Contract: pure, never throws; undefined when the
 * lines are too long to compare or share nothing (the whole line is then the change, and
 * marking every word says nothing).
 */
export function wordChanges(
  before: string,
  after: string,
): { removed: Span[]; added: Span[] } | undefined {
  const a = tokens(before);
  const b = tokens(after);
  if (a.length === 0 || b.length === 0 || a.length > MAX_TOKENS || b.length > MAX_TOKENS)
    return undefined;
  // lengths[i][j]: the longest common subsequence of a[i..] and b[j..], in a flat table.
  const width = b.length + 1;
  const lengths = new Uint16Array((a.length + 1) * width);
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lengths[i * width + j] =
        a[i] === b[j]
          ? lengths[(i + 1) * width + j + 1]! + 1
          : Math.max(lengths[(i + 1) * width + j]!, lengths[i * width + j + 1]!);
    }
  }
  const keptA = new Array<boolean>(a.length).fill(false);
  const keptB = new Array<boolean>(b.length).fill(false);
  let common = 0;
  for (let i = 0, j = 0; i < a.length && j < b.length; ) {
    if (a[i] === b[j]) {
      keptA[i++] = true;
      keptB[j++] = true;
      common++;
    } else if (lengths[(i + 1) * width + j]! >= lengths[i * width + j + 1]!) i++;
    else j++;
  }
  // Only spaces in common: the lines are different, not edited.
  const meaningful = a.some((token, i) => keptA[i] && token.trim() !== '');
  if (common === 0 || !meaningful) return undefined;
  return { removed: spans(a, keptA), added: spans(b, keptB) };
}

/** Runs of tokens not kept, as spans; a space between two changed words joins them. */
function spans(list: string[], kept: boolean[]): Span[] {
  const out: Array<[number, number]> = [];
  let at = 0;
  for (let i = 0; i < list.length; i++) {
    const start = at;
    at += list[i]!.length;
    if (kept[i]) continue;
    const last = out.at(-1);
    if (last && last[1] === start) last[1] = at;
    else if (
      last &&
      i >= 2 &&
      kept[i - 1] &&
      !kept[i - 2] &&
      list[i - 1]!.trim() === '' &&
      last[1] === start - list[i - 1]!.length
    )
      last[1] = at;
    else out.push([start, at]);
  }
  return out;
}
