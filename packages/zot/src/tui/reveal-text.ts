// Untrusted text that a person must judge before it runs (a command, a tool's arguments, what an
// extension would start), laid out so that nothing in it can hide: every line is wrapped, never
// cut; control and invisible characters are shown as escapes, styled apart from text that only
// looks like one; a tab or an unusual space is shown as its escape; a long run of spaces (8 inside
// a line, 24 as its indentation) becomes one marker with its count (`«150 spaces»`), so no code
// waits off to the side; and with more than one line, each line starts with its number, so a
// wrapped row is never taken for a line.
import { visibleWidth } from '@mariozechner/pi-tui';
import { escapeChar, terminalSafeParts } from '../util/terminal-text.js';
import type { Style, Theme } from './theme.js';

/** Runs of this many spaces or more inside a line are shown as a marker with their count. */
export const SPACE_RUN = 8;
/** At the start of a line (indentation) a run is shown as a marker from this many spaces. */
export const INDENT_RUN = 24;

// Spaces that are not U+0020 (a shell does not split words on them) and tabs.
const ODD_SPACE = /[\t\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]/;
const PIECES = new RegExp(` {${SPACE_RUN},}|${ODD_SPACE.source}`, 'g');
const SEGMENTER = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

type Kind = 'text' | 'escape' | 'marker';
interface Token {
  text: string;
  kind: Kind;
}

/** One line (no line breaks) as tokens: plain text, escapes, space-run markers. */
function tokens(line: string): Token[] {
  const out: Token[] = [];
  let start = true;
  for (const part of terminalSafeParts(line)) {
    if (part.escape) {
      out.push({ text: part.text, kind: 'escape' });
      start = false;
      continue;
    }
    let last = 0;
    for (const match of part.text.matchAll(PIECES)) {
      const at = match.index!;
      if (at > last) out.push({ text: part.text.slice(last, at), kind: 'text' });
      const piece = match[0];
      const indent = start && at === 0;
      if (piece[0] !== ' ') out.push({ text: escapeChar(piece), kind: 'escape' });
      else if (indent && piece.length < INDENT_RUN) out.push({ text: piece, kind: 'text' });
      else out.push({ text: `«${piece.length} spaces»`, kind: 'marker' });
      last = at + piece.length;
    }
    if (last < part.text.length) out.push({ text: part.text.slice(last), kind: 'text' });
    start = false;
  }
  return out;
}

/** Tokens wrapped to `width` columns; text is cut between graphemes, escapes and markers stay whole when they fit. */
function wrap(line: Token[], width: number): Token[][] {
  const rows: Token[][] = [[]];
  let used = 0;
  const put = (text: string, kind: Kind) => {
    const row = rows.at(-1)!;
    const previous = row.at(-1);
    if (previous && previous.kind === kind) previous.text += text;
    else row.push({ text, kind });
    used += visibleWidth(text);
  };
  const newRow = () => {
    rows.push([]);
    used = 0;
  };
  for (const token of line) {
    const w = visibleWidth(token.text);
    if (token.kind !== 'text' && w <= width) {
      if (used + w > width) newRow();
      put(token.text, token.kind);
      continue;
    }
    for (const { segment } of SEGMENTER.segment(token.text)) {
      const sw = Math.max(visibleWidth(segment), 0);
      if (used + sw > width && used > 0) newRow();
      put(segment, token.kind);
    }
  }
  return rows;
}

export interface RevealOptions {
  /** How plain text is styled (escapes and markers take the theme's warning colour). */
  style?: Style;
  /** Number the lines when there is more than one (default true). */
  numbered?: boolean;
  /** A style for one whole line, chosen by its text (a diff's + and - lines); else `style`. */
  lineStyle?: (line: string) => Style | undefined;
}

export interface Revealed {
  /** Styled rows, none wider than the width asked for. */
  rows: string[];
  /** Lines in the text (line breaks + 1; trailing empty lines are not counted or shown). */
  lines: number;
}

/**
 * Lays `text` out in rows of at most `width` columns, hiding nothing (see the file comment).
 * Contract: never throws; every character of the text is accounted for in the rows, as itself,
 * an escape or a counted marker.
 */
export function revealText(
  text: string,
  width: number,
  theme: Theme,
  options: RevealOptions = {},
): Revealed {
  const style = options.style ?? ((s: string) => s);
  const lines = text.replace(/\r\n/g, '\n').split('\n');
  while (lines.length > 1 && lines.at(-1)!.trim() === '') lines.pop();
  const numbered = (options.numbered ?? true) && lines.length > 1;
  const digits = numbered ? String(lines.length).length : 0;
  const gutter = numbered ? digits + 3 : 0;
  const room = Math.max(1, width - gutter);
  const rows: string[] = [];
  lines.forEach((line, index) => {
    const lineStyle = options.lineStyle?.(line) ?? style;
    const paint = (token: Token) =>
      token.kind === 'text' ? lineStyle(token.text) : theme.warning(token.text);
    wrap(tokens(line), room).forEach((row, i) => {
      const head = !numbered
        ? ''
        : theme.dim(
            i === 0 ? `${String(index + 1).padStart(digits)} │ ` : `${' '.repeat(digits)} ┆ `,
          );
      rows.push(head + row.map(paint).join(''));
    });
  });
  return { rows, lines: lines.length };
}
