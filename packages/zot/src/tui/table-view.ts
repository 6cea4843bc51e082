// A table (an extension's `{"kind":"table"}` details) as aligned text rows: a header, a rule,
// then the rows. Cells are untrusted: each becomes one terminal-safe line; a column is as wide as
// its widest cell up to MAX_COLUMN, and when the table is wider than the room the widest columns
// give way first. A cut cell ends with `…`, so nothing is hidden silently.
import { visibleWidth } from '@mariozechner/pi-tui';
import { cut, oneLine, pad } from './dialog-frame.js';
import type { Theme } from './theme.js';

/** The widest a column gets, in terminal columns. */
export const MAX_COLUMN = 40;
const GAP = '  ';

/** Column widths that fit `room` columns (each at least 1; the widest shrink first). */
export function columnWidths(cells: string[][], columns: number, room: number): number[] {
  const widths = Array.from({ length: columns }, (_, i) =>
    Math.min(MAX_COLUMN, Math.max(1, ...cells.map((row) => visibleWidth(row[i] ?? '')))),
  );
  const available = Math.max(columns, room - GAP.length * (columns - 1));
  let total = widths.reduce((sum, width) => sum + width, 0);
  while (total > available) {
    const widest = widths.indexOf(Math.max(...widths));
    if (widths[widest]! <= 1) break;
    widths[widest]!--;
    total--;
  }
  return widths;
}

/**
 * The header, a rule and `rows` as lines of at most `width` columns, styled.
 * Contract: never throws; every line fits `width` when `width` leaves each column one cell.
 */
export function tableLines(
  columns: readonly string[],
  rows: ReadonlyArray<readonly string[]>,
  width: number,
  theme: Theme,
): string[] {
  const safe = (row: readonly string[]) =>
    Array.from({ length: columns.length }, (_, i) => oneLine(row[i] ?? ''));
  const header = safe(columns);
  const body = rows.map(safe);
  const widths = columnWidths([header, ...body], columns.length, width);
  const line = (cells: string[], style: (text: string) => string) =>
    cells
      .map((cell, i) => {
        const text = cut(cell, widths[i]!);
        return i === cells.length - 1 ? style(text) : style(pad(text, widths[i]!));
      })
      .join(GAP);
  const rule = widths.map((w) => '─'.repeat(w)).join(GAP);
  return [
    line(header, (text) => theme.bold(text)),
    theme.muted(rule),
    ...body.map((cells) => line(cells, theme.toolOutput)),
  ];
}
