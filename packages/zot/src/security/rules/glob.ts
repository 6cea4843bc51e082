// Globs of the rule language. Matched by a small wildcard matcher, not regular expressions: a
// project's rules and a model's commands are both hostile, and a backtracking regex built from
// one and run on the other could stall the event loop. The matcher is O(pattern x text) at
// worst, and texts are capped (MAX_MATCH_CHARS); a longer text never matches.

const STAR = -1;
const ANY = -2;
/** Words and paths longer than this match no glob (allow rules then do not apply). */
export const MAX_MATCH_CHARS = 4096;

/** A compiled glob: `test` says whether a text matches. */
export interface Glob {
  readonly source: string;
  test(text: string): boolean;
}

type Symbols = number[];

function compileSymbols(text: string, wild: (c: string, i: number) => number | undefined) {
  const symbols: Symbols = [];
  for (let i = 0; i < text.length; i++) {
    const special = wild(text[i]!, i);
    // consecutive stars are one star
    if (special === STAR && symbols[symbols.length - 1] === STAR) continue;
    symbols.push(special ?? text.charCodeAt(i));
  }
  return symbols;
}

/** Iterative wildcard match with one backtrack point (the last star): O(p x s) at worst. */
function matchSymbols(pattern: Symbols, text: string): boolean {
  if (text.length > MAX_MATCH_CHARS) return false;
  let p = 0;
  let s = 0;
  let star = -1;
  let mark = 0;
  while (s < text.length) {
    const symbol = pattern[p];
    if (symbol === STAR) {
      star = p++;
      mark = s;
    } else if (symbol !== undefined && (symbol === ANY || symbol === text.charCodeAt(s))) {
      p++;
      s++;
    } else if (star >= 0) {
      p = star + 1;
      s = ++mark;
    } else return false;
  }
  while (pattern[p] === STAR) p++;
  return p === pattern.length;
}

/**
 * A glob of literal pieces between stars, matched with native string search: the first piece
 * is a prefix, the last a suffix, and each middle one is found leftmost after the one before
 * (leftmost is never worse for what follows). Linear in practice, and no regex.
 */
function starGlob(source: string, pieces: readonly string[]): Glob {
  const first = pieces[0]!;
  const last = pieces[pieces.length - 1]!;
  const minimum = pieces.reduce((sum, piece) => sum + piece.length, 0);
  return {
    source,
    test(text) {
      if (text.length > MAX_MATCH_CHARS) return false;
      if (pieces.length === 1) return text === first;
      if (text.length < minimum || !text.startsWith(first) || !text.endsWith(last)) return false;
      let at = first.length;
      const end = text.length - last.length;
      for (let i = 1; i < pieces.length - 1; i++) {
        const found = text.indexOf(pieces[i]!, at);
        if (found < 0 || found + pieces[i]!.length > end) return false;
        at = found + pieces[i]!.length;
      }
      return at <= end;
    },
  };
}

/** A name glob (tool and skill names): `*` is any run of characters. */
export function nameGlob(glob: string): Glob {
  return starGlob(glob, glob.split('*'));
}

/** A word glob whose wildcard positions are given (a quoted `*` stays a literal star). */
export function wordGlob(text: string, stars: ReadonlySet<number>): Glob {
  const pieces: string[] = [];
  let piece = '';
  for (let i = 0; i < text.length; i++) {
    if (stars.has(i)) {
      pieces.push(piece);
      piece = '';
    } else piece += text[i];
  }
  pieces.push(piece);
  return starGlob(text, pieces);
}

/** Whether a text has a glob wildcard (`*` or `?`). */
export const hasWildcard = (text: string) => /[*?]/.test(text);

/**
 * A path glob over absolute, normalised paths: `**` as a whole segment is any number of
 * segments (none included, so `dir/**` also matches `dir` itself), `*` any characters within
 * one segment, `?` one character. Matches dot files too.
 */
export function pathGlob(absolute: string): Glob {
  const segments = absolute
    .split('/')
    .filter((segment) => segment !== '')
    .map((segment) =>
      segment === '**'
        ? ('**' as const)
        : compileSymbols(segment, (c) => (c === '*' ? STAR : c === '?' ? ANY : undefined)),
    );
  // Every match starts with the literal directories before the first wildcard.
  const base = literalPrefix(absolute);
  const prefix = base === '/' ? '/' : `${base}/`;
  return {
    source: absolute,
    test(path) {
      if (path.length > MAX_MATCH_CHARS || !path.startsWith('/')) return false;
      if (path !== base && !path.startsWith(prefix)) return false;
      const parts = path.split('/').filter((part) => part !== '');
      // memo over (segment, part): `**` tries each split once
      const failed = new Set<number>();
      const match = (i: number, j: number): boolean => {
        const key = i * (parts.length + 1) + j;
        if (failed.has(key)) return false;
        let ok: boolean;
        if (i === segments.length) ok = j === parts.length;
        else {
          const segment = segments[i]!;
          if (segment === '**') {
            ok = false;
            for (let k = j; k <= parts.length && !ok; k++) ok = match(i + 1, k);
          } else ok = j < parts.length && matchSymbols(segment, parts[j]!) && match(i + 1, j + 1);
        }
        if (!ok) failed.add(key);
        return ok;
      };
      return match(0, 0);
    },
  };
}

/** The part of an absolute glob before its first wildcard segment (a directory or file). */
export function literalPrefix(absolute: string): string {
  const segments = absolute.split('/');
  const index = segments.findIndex((segment) => hasWildcard(segment));
  if (index < 0) return absolute;
  const prefix = segments.slice(0, index).join('/');
  return prefix === '' ? '/' : prefix;
}
