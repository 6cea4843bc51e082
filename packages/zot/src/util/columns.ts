// Two-column text (`/help`, the keys, `/skills`): the second column starts where the widest first
// cell ends, so every line lines up, and one very wide cell cannot push all the others.
import { textWidth } from './text-width.js';

/** First cells wider than this (in terminal columns) stand on their own line. */
export const WIDEST_FIRST_COLUMN = 36;

/**
 * `rows` as lines indented by two spaces: each first cell padded to the widest one that is at
 * most `widest` terminal columns (wide characters count two), two spaces, then the second cell. A
 * first cell wider than `widest` stands on its own line, its second cell on the next one, in the
 * second column. Contract: pure; cells are one line each (the caller makes them so).
 */
export function twoColumns(
  rows: ReadonlyArray<readonly [string, string]>,
  widest = WIDEST_FIRST_COLUMN,
): string[] {
  const measured = rows.map(([left, right]) => ({ left, right, width: textWidth(left) }));
  const fitting = measured.filter(({ width }) => width <= widest).map(({ width }) => width);
  const column = Math.max(0, ...fitting);
  return measured.flatMap(({ left, right, width }) =>
    width > column
      ? [`  ${left}`, `  ${' '.repeat(column)}  ${right}`]
      : [`  ${left}${' '.repeat(column - width)}  ${right}`],
  );
}
