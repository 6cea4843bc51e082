// Per-extension log files: the extension's stderr and the host's notes about it, in one place.
// They may quote what extensions saw, so they are private: 0600 files in a 0700 directory.
import { appendFileSync, closeSync, openSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ensurePrivateDir, PRIVATE_FILE_MODE, tightenMode } from '../util/private-fs.js';

export function extensionLogPath(logsDir: string, name: string): string {
  return join(logsDir, `ext-${name}.log`);
}

/** Appends host-side lines (prefixed `[zot <time>]`) to an extension's log. */
export class ExtensionLog {
  constructor(readonly path: string) {}

  /** The directory 0700 and the file 0600, also when an older zot left them wider. */
  private prepare(): void {
    ensurePrivateDir(dirname(this.path));
    tightenMode(this.path);
  }

  /** Contract: never throws; logging must not break the host. */
  write(message: string): void {
    try {
      this.prepare();
      appendFileSync(this.path, `[zot ${new Date().toISOString()}] ${message}\n`, {
        mode: PRIVATE_FILE_MODE,
      });
    } catch {
      // The log directory may be unwritable; the failure is still reported elsewhere.
    }
  }

  /** Opens the log for the child's stderr (append mode). Contract: returns undefined on failure. */
  openForChild(): number | undefined {
    try {
      this.prepare();
      return openSync(this.path, 'a', PRIVATE_FILE_MODE);
    } catch {
      return undefined;
    }
  }
}

export function closeQuietly(fd: number | undefined): void {
  if (fd === undefined) return;
  try {
    closeSync(fd);
  } catch {
    // already closed
  }
}
