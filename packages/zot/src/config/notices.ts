// notices.json: the one-time notes zot has shown (a model it knows no limits for ...), so that
// each is said once rather than at every run. A note whose text changes is new and shown again.
import { readJsonObject, updateJsonObject } from './json-file.js';

/** Notes remembered at most; the oldest are forgotten first (and would be said once more). */
export const MAX_NOTICES = 200;

type NoticeFile = { shown?: Record<string, unknown> };

/**
 * Whether the note `text` under `key` is new, i.e. has not been shown with this text before;
 * a new one is recorded (atomically, under the file's lock) before this returns.
 * Contract: never throws. A file that cannot be read or written counts as empty: the note is
 * then shown, at worst once more than needed, and a broken file is replaced on the next write.
 */
export function firstShowing(path: string, key: string, text: string): boolean {
  const read = readJsonObject<NoticeFile>(path);
  if (read.ok && shownOf(read.value)[key] === text) return false;
  try {
    updateJsonObject<NoticeFile>(path, 0o644, (current) => {
      const shown = shownOf(current.ok ? current.value : undefined);
      if (shown[key] === text) return undefined;
      delete shown[key]; // re-added last: the newest
      shown[key] = text;
      const keys = Object.keys(shown);
      for (const old of keys.slice(0, Math.max(0, keys.length - MAX_NOTICES))) delete shown[old];
      return { shown };
    });
  } catch {
    // Not remembered: the note is said again next time, which is all a failed write costs.
  }
  return true;
}

function shownOf(file: NoticeFile | undefined): Record<string, string> {
  const shown = file?.shown;
  if (!shown || typeof shown !== 'object' || Array.isArray(shown)) return {};
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(shown)) if (typeof value === 'string') out[key] = value;
  return out;
}
