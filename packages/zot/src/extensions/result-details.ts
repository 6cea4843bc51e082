// An extension tool result's `details` (what front ends render and the model never sees),
// checked and bounded where the frame enters zot: a unified diff, or a table. Anything else is
// left out with a reason for the extension's log, and the result itself stands.
import { EXTENSION_DETAILS_LIMITS as LIMITS } from '../contract/details-limits.js';
import type { DiffDetails, TableDetails } from '../contract/tool-details.js';

export type CheckedDetails =
  | { details: DiffDetails | TableDetails; note?: string }
  | { details?: undefined; note: string };

/** Contract: pure, never throws; what it returns fits the contract's bounds. */
export function checkResultDetails(raw: Record<string, unknown>): CheckedDetails {
  const kind = raw.kind;
  if (kind === 'diff') return checkDiff(raw.diff);
  if (kind === 'table') return checkTable(raw.columns, raw.rows);
  const named = typeof kind === 'string' ? `"${kind.slice(0, 40)}"` : 'no kind';
  return { note: `details of ${named} left out (zot shows "diff" and "table")` };
}

function checkDiff(diff: unknown): CheckedDetails {
  if (typeof diff !== 'string') return { note: 'diff details left out: `diff` is not a string' };
  if (diff.length <= LIMITS.diffChars) return { details: { kind: 'diff', diff } };
  // Cut at a line end: half a line would read as a different change.
  const head = diff.slice(0, LIMITS.diffChars);
  const end = head.lastIndexOf('\n');
  return {
    details: { kind: 'diff', diff: end > 0 ? head.slice(0, end + 1) : head, truncated: true },
    note: `diff details of ${diff.length} characters cut to ${LIMITS.diffChars}`,
  };
}

function checkTable(columns: unknown, rows: unknown): CheckedDetails {
  if (!Array.isArray(columns) || columns.length === 0)
    return { note: 'table details left out: `columns` is not a list of names' };
  if (columns.length > LIMITS.columns)
    return {
      note: `table details left out: ${columns.length} columns (at most ${LIMITS.columns})`,
    };
  if (!Array.isArray(rows)) return { note: 'table details left out: `rows` is not a list' };
  const names = columns.map(cellText);
  if (names.some((name) => name === undefined))
    return { note: 'table details left out: a column name is not text' };
  const kept: string[][] = [];
  for (const [index, row] of rows.slice(0, LIMITS.rows).entries()) {
    if (!Array.isArray(row) || row.length > columns.length)
      return {
        note: `table details left out: row ${index + 1} is not a list of at most ${columns.length} cells`,
      };
    const cells = row.map(cellText);
    if (cells.some((cell) => cell === undefined))
      return {
        note: `table details left out: row ${index + 1} has a cell that is not text or a number`,
      };
    kept.push(cells as string[]);
  }
  const truncated = rows.length > LIMITS.rows;
  return {
    details: {
      kind: 'table',
      columns: names as string[],
      rows: kept,
      ...(truncated ? { truncated: true } : {}),
    },
    ...(truncated ? { note: `table details of ${rows.length} rows cut to ${LIMITS.rows}` } : {}),
  };
}

/** A cell as text within bounds; undefined for what is no cell (an object, a list). */
function cellText(value: unknown): string | undefined {
  let text: string;
  if (typeof value === 'string') text = value;
  else if (typeof value === 'number' || typeof value === 'boolean') text = String(value);
  else if (value === null) text = '';
  else return undefined;
  return text.length <= LIMITS.cellChars ? text : `${text.slice(0, LIMITS.cellChars - 1)}…`;
}
