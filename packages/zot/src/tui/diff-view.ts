// The edit tool's change as numbered, coloured lines: old and new line numbers, `-` removed in
// the removed colour, `+` added in the added colour, context dimmed; hunks separated by `⋯`.
// A removed line replaced by an added one marks the words that changed (inverse, which NO_COLOR
// keeps). Collapsed rows cut each line so the numbers stay aligned; expanded rows wrap it under
// its text, never cut.
import { visibleWidth, wrapTextWithAnsi } from '@mariozechner/pi-tui';
import type { EditDetails } from '../contract/tool-details.js';
import { cut } from './dialog-frame.js';
import { terminalSafe } from '../util/terminal-text.js';
import type { Style, Theme } from './theme.js';
import { wordChanges, type Span } from './word-diff.js';

export type DiffLineKind = '+' | '-' | ' ' | '⋯';

export interface DiffLine {
  /** The whole line as plain text: number, marker and body. */
  text: string;
  kind: DiffLineKind;
  /** Columns of `text` before the body (number and marker). */
  prefix: number;
  /** The words of the body that changed (a replaced or replacing line). */
  changes?: Span[];
}

/** Pairs of lines compared word by word in one diff, at most (each costs up to 64k steps). */
const MAX_COMPARED = 400;

/** Plain lines of the diff (numbers and markers included), each with the style it takes. */
export function diffLines(details: EditDetails): DiffLine[] {
  const last = details.hunks.at(-1);
  const widest = last
    ? Math.max(last.old_start + last.old_lines, last.new_start + last.new_lines)
    : 1;
  const digits = String(widest).length;
  const prefix = digits + 3;
  const out: DiffLine[] = [];
  const compared = { count: 0 };
  for (const [index, hunk] of details.hunks.entries()) {
    if (index > 0) out.push({ text: '⋯', kind: '⋯', prefix: 0 });
    let oldLine = hunk.old_start;
    let newLine = hunk.new_start;
    let removedRun: DiffLine[] = [];
    let addedRun: DiffLine[] = [];
    const endRun = () => {
      markWords(removedRun, addedRun, compared);
      removedRun = [];
      addedRun = [];
    };
    for (const raw of hunk.lines) {
      const marker = raw[0];
      const body = terminalSafe(raw.slice(1));
      if (marker === '-') {
        if (addedRun.length > 0) endRun();
        const line: DiffLine = {
          text: `${String(oldLine++).padStart(digits)} - ${body}`,
          kind: '-',
          prefix,
        };
        removedRun.push(line);
        out.push(line);
      } else if (marker === '+') {
        const line: DiffLine = {
          text: `${String(newLine++).padStart(digits)} + ${body}`,
          kind: '+',
          prefix,
        };
        addedRun.push(line);
        out.push(line);
      } else if (marker === ' ') {
        endRun();
        out.push({ text: `${String(newLine).padStart(digits)}   ${body}`, kind: ' ', prefix });
        oldLine++;
        newLine++;
      }
    }
    endRun();
  }
  return out;
}

/** The i-th removed line of a run was replaced by the i-th added line after it. */
function markWords(removed: DiffLine[], added: DiffLine[], compared: { count: number }): void {
  const pairs = Math.min(removed.length, added.length);
  for (let i = 0; i < pairs && compared.count < MAX_COMPARED; i++, compared.count++) {
    const before = removed[i]!;
    const after = added[i]!;
    const changes = wordChanges(before.text.slice(before.prefix), after.text.slice(after.prefix));
    if (!changes) continue;
    before.changes = changes.removed;
    after.changes = changes.added;
  }
}

function styleOf(kind: DiffLineKind, theme: Theme): Style {
  if (kind === '+') return theme.diffAdded;
  if (kind === '-') return theme.diffRemoved;
  if (kind === '⋯') return theme.muted;
  return theme.diffContext;
}

/** `body` in `base`, its changed spans (clipped to the body) also inverse. */
function styledBody(body: string, changes: Span[] | undefined, base: Style, theme: Theme): string {
  if (!changes || changes.length === 0) return body === '' ? '' : base(body);
  let out = '';
  let at = 0;
  for (const [start, end] of changes) {
    if (start >= body.length) break;
    if (start > at) out += base(body.slice(at, start));
    out += theme.inverse(base(body.slice(start, Math.min(end, body.length))));
    at = Math.min(end, body.length);
  }
  if (at < body.length) out += base(body.slice(at));
  return out;
}

/**
 * One diff line for `width` columns: cut with `…` (collapsed: one row a line, numbers aligned)
 * or, with `wrap`, wrapped with the rows after the first indented under the text.
 */
export function styleDiffLine(line: DiffLine, width: number, theme: Theme, wrap = false): string[] {
  const base = styleOf(line.kind, theme);
  const head = line.text.slice(0, line.prefix);
  const body = line.text.slice(line.prefix);
  const room = width - visibleWidth(head);
  if (room < 4) return [base(cut(line.text, width))];
  if (wrap) {
    const rows = wrapTextWithAnsi(styledBody(body, line.changes, base, theme), room);
    if (rows.length === 0) return [base(head)];
    const indent = ' '.repeat(visibleWidth(head));
    return rows.map((row, i) => (i === 0 ? base(head) + row : indent + row));
  }
  const shown = cut(body, room);
  if (shown === body) return [base(head) + styledBody(body, line.changes, base, theme)];
  const kept = shown.slice(0, -1);
  return [base(head) + styledBody(kept, line.changes, base, theme) + base('…')];
}
