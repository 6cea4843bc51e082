// The edit tool's diff, twice from one computation: unified text for the model and structured
// hunks (EditDetails) for the UI.
import type { DiffHunk, EditDetails } from '../contract/tool-details.js';
import { truncateHead } from '../util/truncate.js';
import { toEol } from './edit-apply.js';

export interface DiffOptions {
  /** Lines of context around each change (default 3). */
  diffContext?: number;
  /** Cap on the diff text and on the hunks' lines (default 2000 lines / 50 KB). */
  maxDiffLines?: number;
  maxDiffBytes?: number;
}

export interface EditDiff {
  text: string;
  details: EditDetails;
}

/**
 * The change from `before` to `after`, LF-normalized so CRLF files read cleanly.
 * Contract: both forms stay within the limits; `added`/`removed` always count the whole change.
 */
export async function diffOf(
  path: string,
  before: string,
  after: string,
  options: DiffOptions,
): Promise<EditDiff> {
  // Loaded on first use: `diff` adds ~10 ms to start-up otherwise.
  const { structuredPatch, formatPatch } = await import('diff');
  const patch = structuredPatch(path, path, toEol(before, '\n'), toEol(after, '\n'), '', '', {
    context: options.diffContext ?? 3,
  });
  const limits = {
    maxLines: options.maxDiffLines ?? 2000,
    maxBytes: options.maxDiffBytes ?? 50 * 1024,
  };
  // Without the `Index:` and `====` banner: `---`/`+++` already name the file.
  const headers = { includeIndex: false, includeUnderline: false, includeFileHeaders: true };
  const cut = truncateHead(formatPatch(patch, headers), limits);
  const text = cut.truncated
    ? `${cut.text}\n[diff truncated: showing ${cut.shownLines} of ${cut.totalLines} lines]`
    : cut.text;
  return { text, details: editDetails(path, patch.hunks, limits) };
}

type Hunk = {
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  lines: string[];
};

function editDetails(
  path: string,
  hunks: Hunk[],
  limits: { maxLines: number; maxBytes: number },
): EditDetails {
  let added = 0;
  let removed = 0;
  let lines = 0;
  let bytes = 0;
  let truncated = false;
  const kept: DiffHunk[] = [];
  for (const hunk of hunks) {
    for (const line of hunk.lines) {
      if (line.startsWith('+')) added++;
      else if (line.startsWith('-')) removed++;
    }
    if (truncated) continue;
    const size = hunk.lines.reduce((sum, line) => sum + Buffer.byteLength(line) + 1, 0);
    if (
      kept.length > 0 &&
      (lines + hunk.lines.length > limits.maxLines || bytes + size > limits.maxBytes)
    ) {
      truncated = true; // whole hunks only: a cut hunk would contradict its line counts
      continue;
    }
    lines += hunk.lines.length;
    bytes += size;
    kept.push({
      old_start: hunk.oldStart,
      old_lines: hunk.oldLines,
      new_start: hunk.newStart,
      new_lines: hunk.newLines,
      lines: hunk.lines,
    });
  }
  return { kind: 'edit', path, added, removed, hunks: kept, ...(truncated ? { truncated } : {}) };
}
