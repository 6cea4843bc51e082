// The first bytes of a file, read no further: for files that are only ever used up to a bound
// (context files, themes), so a huge or endless file costs no more than the bound.
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';

/**
 * Up to `limit` bytes from the start of the regular file at `path`, and whether it holds more.
 * Contract: never throws; undefined when `path` is not a readable regular file.
 */
export function readHead(
  path: string,
  limit: number,
): { bytes: Buffer; more: boolean } | undefined {
  let fd: number;
  try {
    // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer, for ever
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch {
    return undefined;
  }
  try {
    if (!fstatSync(fd).isFile()) return undefined;
    const buffer = Buffer.alloc(limit + 1);
    let filled = 0;
    while (filled < buffer.length) {
      const read = readSync(fd, buffer, filled, buffer.length - filled, filled);
      if (read === 0) break;
      filled += read;
    }
    return { bytes: buffer.subarray(0, Math.min(filled, limit)), more: filled > limit };
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}
