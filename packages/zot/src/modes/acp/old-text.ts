// What a file held before `write` replaced it, so the editor is shown a diff rather than the
// whole new text: read from the disk when the call is announced (before the tool runs), or from
// the editor just before its fs/write_text_file.
import { closeSync, fstatSync, openSync, readSync, realpathSync } from 'node:fs';

/** Older content than this is not kept: the diff then shows the new text alone. */
export const MAX_OLD_TEXT_BYTES = 1024 * 1024;

export class OldTexts {
  private readonly byPath = new Map<string, string>();
  /** False once writes go to the editor (its text is read before each write instead). */
  readDiskOnCall = true;

  /** `denied`: why the sandbox or a rule keeps `path` from being read (then it is not). */
  constructor(private readonly denied: (path: string) => string | undefined) {}

  /** The file at `path` as the disk has it, when it is a readable text file within the bound. */
  fromDisk(path: string): void {
    if (this.denied(path) !== undefined) return;
    let fd: number | undefined;
    try {
      fd = openSync(path, 'r');
      const stats = fstatSync(fd);
      if (!stats.isFile() || stats.size > MAX_OLD_TEXT_BYTES) return;
      const buffer = Buffer.alloc(stats.size);
      const read = readSync(fd, buffer, 0, stats.size, 0);
      this.remember(path, buffer.subarray(0, read).toString('utf8'));
    } catch {
      // No file (a new one), or unreadable: no old text.
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
  }

  /** The editor's text of `path` before its write. */
  remember(path: string, text: string): void {
    if (Buffer.byteLength(text) > MAX_OLD_TEXT_BYTES || this.denied(path) !== undefined) return;
    this.byPath.set(path, text);
  }

  /** The old text of `path` (or of what it links to), once; undefined when none was kept. */
  take(path: string): string | undefined {
    for (const key of [path, resolved(path)]) {
      const text = key === undefined ? undefined : this.byPath.get(key);
      if (text !== undefined) {
        this.byPath.delete(key!);
        return text;
      }
    }
    return undefined;
  }

  /** Forgets what a failed or refused call left behind. */
  drop(path: string): void {
    this.byPath.delete(path);
    const real = resolved(path);
    if (real !== undefined) this.byPath.delete(real);
  }
}

function resolved(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}
