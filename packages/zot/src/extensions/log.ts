// Per-extension log files: the extension's stderr and the host's notes about it, in one place.
import { appendFileSync, closeSync, mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';

export function extensionLogPath(logsDir: string, name: string): string {
  return join(logsDir, `ext-${name}.log`);
}

/** Appends host-side lines (prefixed `[zot <time>]`) to an extension's log. */
export class ExtensionLog {
  constructor(readonly path: string) {}

  /** Contract: never throws; logging must not break the host. */
  write(message: string): void {
    try {
      mkdirSync(join(this.path, '..'), { recursive: true });
      appendFileSync(this.path, `[zot ${new Date().toISOString()}] ${message}\n`);
    } catch {
      // The log directory may be unwritable; the failure is still reported elsewhere.
    }
  }

  /** Opens the log for the child's stderr (append mode). Contract: returns undefined on failure. */
  openForChild(): number | undefined {
    try {
      mkdirSync(join(this.path, '..'), { recursive: true });
      return openSync(this.path, 'a');
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
