// `details` on a version-2 tool result: what front ends render and the model never sees, judged
// by the host's own check (extensions/result-details.ts): a unified diff or a table.
import { checkResultDetails } from '../extensions/result-details.js';

export interface DetailsVerdict {
  status: 'pass' | 'warn' | 'fail';
  message: string;
}

/** How zot would take `details` (a JSON object: the decoder has checked that much). */
export function judgeDetails(raw: Record<string, unknown>): DetailsVerdict {
  const checked = checkResultDetails(raw);
  if (!checked.details) {
    // A kind zot does not draw is ignored by design; a diff or table it cannot use is a bug.
    const known = raw.kind === 'diff' || raw.kind === 'table';
    return {
      status: known ? 'fail' : 'warn',
      message: `zot leaves the details out: ${checked.note}`,
    };
  }
  if (checked.note !== undefined) return { status: 'warn', message: checked.note };
  const { details } = checked;
  return {
    status: 'pass',
    message:
      details.kind === 'diff'
        ? `a diff of ${details.diff.split('\n').length} line(s)`
        : `a table of ${details.columns.length} column(s) and ${details.rows.length} row(s)`,
  };
}
