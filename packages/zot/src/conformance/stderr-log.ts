// Where the extension's stderr goes while the kit runs it: a file in the kit's scratch directory,
// as zot's own log is, of which the report shows the end.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { ExtensionLog } from '../extensions/log.js';

/**
 * The extension's log as the kit keeps it: the file holds only what the extension wrote on
 * stderr; the transport's own notes (signals sent) are kept apart, out of the report's stderr.
 */
export class KitLog extends ExtensionLog {
  readonly notes: string[] = [];
  override write(message: string): void {
    if (this.notes.length < 20) this.notes.push(message);
  }
}

/** The last `limit` bytes of `path`, and whether there was more. Contract: never throws. */
export function tail(path: string, limit: number): { text: string; truncated: boolean } {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const size = fstatSync(fd).size;
    const start = Math.max(0, size - limit);
    const buffer = Buffer.alloc(size - start);
    const read = readSync(fd, buffer, 0, buffer.length, start);
    return { text: buffer.subarray(0, read).toString('utf8'), truncated: start > 0 };
  } catch {
    return { text: '', truncated: false };
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
