// Reading and writing the small JSON state files under ZOT_HOME.
import { writeFileAtomic } from '../util/atomic-write.js';
import { errorMessage } from '../util/errors.js';
import { readRegularText } from '../util/regular-file.js';
import { withFileLock } from '../util/file-lock.js';
import { parseBoundedJson } from '@zot/protocol/bounds';

export type JsonRead<T> = { ok: true; value: T | undefined } | { ok: false; error: string };

/** Far beyond any state file zot writes; a bigger one is refused unread. */
export const MAX_JSON_FILE_BYTES = 16 * 1024 * 1024;

/**
 * Reads a JSON object file. A missing file is `value: undefined`; bad JSON, or a file that is not
 * a regular file (a FIFO never blocks the read), is an error naming the file.
 */
export function readJsonObject<T extends object>(path: string): JsonRead<T> {
  const read = readRegularText(path, { limit: MAX_JSON_FILE_BYTES });
  if (!read.ok) {
    if (read.missing) return { ok: true, value: undefined };
    return { ok: false, error: read.error };
  }
  const text = read.text;
  const parsed = parseBoundedJson(text);
  if (!parsed.ok) return { ok: false, error: `${path}: ${parsed.error}` };
  const value = parsed.value;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { ok: false, error: `${path}: expected a JSON object` };
  }
  return { ok: true, value: value as T };
}

export function writeJsonFile(path: string, value: unknown, mode = 0o644): void {
  writeFileAtomic(path, JSON.stringify(value, null, 2) + '\n', mode);
}

/**
 * One read-modify-write of a JSON object file, under `<path>.lock` so that concurrent zot
 * processes never lose each other's changes. `update` gets the current read and returns the
 * new content, or undefined to leave the file as it is.
 * Contract: throws what `update` throws, and an Error naming the file when the lock cannot be
 * taken or the write fails.
 */
export function updateJsonObject<T extends object>(
  path: string,
  mode: number,
  update: (current: JsonRead<T>) => T | undefined,
): void {
  withFileLock(path, () => {
    const next = update(readJsonObject<T>(path));
    if (next === undefined) return;
    try {
      writeJsonFile(path, next, mode);
    } catch (error) {
      throw new Error(`cannot write ${path}: ${errorMessage(error)}`);
    }
  });
}
