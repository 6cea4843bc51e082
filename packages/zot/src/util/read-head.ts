// The first bytes of a file, read no further: for files that are only ever used up to a bound
// (settings files), so a huge or endless file costs no more than the bound. A thin form of
// regular-file.ts (regular files only, O_NONBLOCK, fstat on the opened descriptor).
import { readRegularFile } from './regular-file.js';

/**
 * Up to `limit` bytes from the start of the regular file at `path`, and whether it holds more.
 * Contract: never throws; undefined when `path` is not a readable regular file.
 */
export function readHead(
  path: string,
  limit: number,
): { bytes: Buffer; more: boolean } | undefined {
  const read = readRegularFile(path, { limit, over: 'cut' });
  return read.ok ? { bytes: read.bytes, more: read.more } : undefined;
}
