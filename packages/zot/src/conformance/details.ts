// `details` on a version-2 tool result: what front ends render and the model never sees. zot
// renders a unified diff and a table; any other kind is ignored.
import { cut } from './report.js';

export interface DetailsVerdict {
  status: 'pass' | 'warn' | 'fail';
  message: string;
}

const isStrings = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every((item) => typeof item === 'string');

/** How zot would take `details` (a JSON object: the decoder has checked that much). */
export function judgeDetails(details: Record<string, unknown>): DetailsVerdict {
  const kind = details.kind;
  if (typeof kind !== 'string')
    return { status: 'fail', message: 'details without a string "kind": zot renders nothing' };
  if (kind === 'diff') {
    if (typeof details.diff !== 'string')
      return { status: 'fail', message: 'details of kind diff without a string "diff"' };
    const lines = details.diff.split('\n').length;
    return { status: 'pass', message: `a diff of ${lines} line(s)` };
  }
  if (kind === 'table') {
    const { columns, rows } = details;
    if (!isStrings(columns) || columns.length === 0)
      return {
        status: 'fail',
        message: 'details of kind table: "columns" must be a non-empty list of strings',
      };
    if (!Array.isArray(rows))
      return { status: 'fail', message: 'details of kind table: "rows" must be a list of rows' };
    const bad = rows.findIndex((row) => !Array.isArray(row) || row.length !== columns.length);
    if (bad >= 0)
      return {
        status: 'fail',
        message: `details of kind table: row ${bad} is ${cut(JSON.stringify(rows[bad]) ?? 'undefined', 80)}, not a list of ${columns.length} cell(s) (one per column)`,
      };
    return {
      status: 'pass',
      message: `a table of ${columns.length} column(s) and ${rows.length} row(s)`,
    };
  }
  return {
    status: 'warn',
    message: `details of kind ${JSON.stringify(cut(kind, 40))}: zot renders only diff and table, and ignores it`,
  };
}
