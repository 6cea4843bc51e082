// The editor's prompt history, persisted per project as JSON lines (one prompt per line).
import { appendFileSync, mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { writeFileAtomic } from '../../util/atomic-write.js';
import { readRegularText } from '../../util/regular-file.js';

/** Prompts kept in memory and offered with Up; the file is cut back to this when it grows. */
export const HISTORY_LIMIT = 100;
/** Bytes after which the file is rewritten with the newest HISTORY_LIMIT entries. */
const COMPACT_BYTES = 256 * 1024;
/** Past this, the file is not read at all (it is compacted long before, unless it is not ours). */
const MAX_HISTORY_FILE_BYTES = 16 * 1024 * 1024;

/**
 * Contract: never throws (history is a convenience: an unreadable or corrupt file gives what
 * could be read); returns the prompts oldest first.
 */
export function loadHistory(file: string | undefined): string[] {
  if (!file) return [];
  // Regular files only, bounded: a FIFO or a huge file in its place gives no history.
  const read = readRegularText(file, { limit: MAX_HISTORY_FILE_BYTES });
  if (!read.ok) return [];
  const text = read.text;
  const entries: string[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      const value: unknown = JSON.parse(line);
      if (typeof value === 'string' && value.trim()) entries.push(value);
    } catch {
      // A line cut short by a crash: skipped.
    }
  }
  return entries.slice(-HISTORY_LIMIT);
}

/**
 * Appends one prompt. Contract: never throws; reports a failure once through `onError`.
 */
export function appendHistory(
  file: string | undefined,
  entry: string,
  onError: (message: string) => void = () => undefined,
): void {
  if (!file || !entry.trim()) return;
  try {
    mkdirSync(dirname(file), { recursive: true });
    appendFileSync(file, `${JSON.stringify(entry)}\n`, { mode: 0o600 });
    if (statSync(file).size > COMPACT_BYTES) {
      const kept = loadHistory(file);
      writeFileAtomic(file, kept.map((e) => JSON.stringify(e)).join('\n') + '\n', 0o600);
    }
  } catch (error) {
    onError(`could not save the prompt history in ${file}: ${(error as Error).message}`);
  }
}
