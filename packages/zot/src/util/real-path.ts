// The real path of a file when there is one.
import { realpathSync } from 'node:fs';

/** `path` with its links resolved, or `path` itself when it cannot be (missing, no access). */
export function realPathOr(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
