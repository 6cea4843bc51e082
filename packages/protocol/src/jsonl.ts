// JSONL framing shared by the host, the RPC mode and the SDK: bytes in, lines out.
// Splits on LF (0x0A) only, never on U+2028/U+2029 (legal inside JSON strings), which is
// why this is not `readline`. Framing only: lines are not parsed here.
import { isUtf8 } from 'node:buffer';
import { MAX_FRAME_BYTES } from './constants.js';

export interface LineDecoderOptions {
  /** Longest accepted line in bytes, excluding its LF (and counting a trailing CR). */
  maxLineBytes?: number;
  /** Receives each complete line without its LF and without one trailing CR. */
  onLine: (line: string) => void;
  /** Receives the total byte length of each line that exceeded the cap (once per line). */
  onOversize?: (byteLength: number) => void;
  /**
   * When set, lines that are not valid UTF-8 are reported here and not delivered; `bytes` is
   * the line (without LF/CR), valid only during the call. When unset, lines are delivered
   * with U+FFFD replacement characters.
   */
  onInvalidUtf8?: (byteLength: number, bytes: Uint8Array) => void;
  /** Deliver empty lines too (default false: a blank line is not a frame). */
  keepEmptyLines?: boolean;
}

/**
 * Incremental LF splitter with a per-line byte cap.
 * Contract: linear time (pieces of a long line are joined once, when its LF arrives);
 * memory bounded by the cap (an oversize line is counted, not buffered, up to its LF, then
 * the next line is delivered normally); multi-byte UTF-8 split across chunks is safe
 * because only whole lines are decoded. Chunks are not copied: do not mutate a chunk after
 * pushing it. Callbacks run synchronously inside push()/end(); if one throws, the
 * exception propagates and the rest of that chunk is dropped.
 */
export class LineSplitter {
  readonly #max: number;
  readonly #onLine: (line: string) => void;
  readonly #onOversize: ((byteLength: number) => void) | undefined;
  readonly #onInvalidUtf8: ((byteLength: number, bytes: Uint8Array) => void) | undefined;
  readonly #keepEmpty: boolean;
  #pieces: Buffer[] = [];
  #size = 0; // bytes of the current unfinished line (counted, not kept, when discarding)
  #discarding = false;
  #ended = false;

  constructor(options: LineDecoderOptions) {
    this.#max = options.maxLineBytes ?? MAX_FRAME_BYTES;
    this.#onLine = options.onLine;
    this.#onOversize = options.onOversize;
    this.#onInvalidUtf8 = options.onInvalidUtf8;
    this.#keepEmpty = options.keepEmptyLines ?? false;
  }

  /** Bytes held for the current unfinished line. */
  get bufferedBytes(): number {
    return this.#discarding ? 0 : this.#size;
  }

  /** Feeds a chunk; strings are encoded as UTF-8. Ignored after end(). */
  push(chunk: Uint8Array | string): void {
    if (this.#ended) return;
    const buf = toBuffer(chunk);
    const len = buf.length;
    let start = 0;
    if (this.#size > 0 || this.#discarding) {
      // The chunk first finishes the line an earlier chunk began.
      const nl = buf.indexOf(0x0a);
      if (nl === -1) {
        this.#append(buf, 0, len);
        return;
      }
      this.#append(buf, 0, nl);
      this.#finishPending();
      start = nl + 1;
    }
    const last = buf.lastIndexOf(0x0a);
    if (last >= start) {
      this.#emitLines(buf, start, last);
      start = last + 1;
    }
    if (start < len) this.#append(buf, start, len);
  }

  /**
   * Delivers the complete lines in bytes [start, end) (`end` is an LF). Fast path: one UTF-8
   * check and one decode for the whole run, then a split on the string; a run that is not
   * valid UTF-8, or longer than the cap, goes line by line. Same lines either way: LF is
   * ASCII, so a run is valid UTF-8 exactly when each of its lines is.
   */
  #emitLines(buf: Buffer, start: number, end: number): void {
    if (end - start > this.#max || !isUtf8(buf.subarray(start, end))) {
      for (let nl = buf.indexOf(0x0a, start); nl !== -1 && nl <= end; ) {
        this.#emit(buf, start, nl);
        start = nl + 1;
        nl = start <= end ? buf.indexOf(0x0a, start) : -1;
      }
      return;
    }
    const text = buf.toString('utf8', start, end);
    const stop = text.length;
    // A UTF-16 unit is at most 3 UTF-8 bytes: shorter lines cannot exceed the cap.
    const safeLength = Math.floor(this.#max / 3);
    let from = 0;
    while (from <= stop) {
      let to = text.indexOf('\n', from);
      if (to === -1) to = stop;
      const length = to - from;
      if (length > safeLength) {
        const bytes = Buffer.byteLength(text.slice(from, to));
        if (bytes > this.#max) {
          this.#onOversize?.(bytes);
          from = to + 1;
          continue;
        }
      }
      const lineEnd = length > 0 && text.charCodeAt(to - 1) === 0x0d ? to - 1 : to;
      if (lineEnd > from || this.#keepEmpty) this.#onLine(text.slice(from, lineEnd));
      from = to + 1;
    }
  }

  /** Delivers a final line that had no LF. Later pushes are ignored. */
  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    if (this.#size > 0 || this.#discarding) this.#finishPending();
  }

  #append(buf: Buffer, start: number, end: number): void {
    const n = end - start;
    if (n === 0) return;
    this.#size += n;
    if (this.#discarding) return;
    if (this.#size > this.#max) {
      this.#discarding = true;
      this.#pieces = [];
      return;
    }
    this.#pieces.push(buf.subarray(start, end));
  }

  #finishPending(): void {
    const size = this.#size;
    const pieces = this.#pieces;
    const discarding = this.#discarding;
    this.#pieces = [];
    this.#size = 0;
    this.#discarding = false;
    if (discarding) {
      this.#onOversize?.(size);
      return;
    }
    const line = pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces, size);
    this.#emit(line, 0, line.length);
  }

  // Delivers bytes [start, end) as one complete line (pending state is already reset).
  #emit(buf: Buffer, start: number, end: number): void {
    if (end - start > this.#max) {
      this.#onOversize?.(end - start);
      return;
    }
    if (end > start && buf[end - 1] === 0x0d) end--;
    if (end === start && !this.#keepEmpty) return;
    if (this.#onInvalidUtf8 !== undefined) {
      const bytes = buf.subarray(start, end);
      if (!isUtf8(bytes)) {
        this.#onInvalidUtf8(end - start, bytes);
        return;
      }
    }
    this.#onLine(buf.toString('utf8', start, end));
  }
}

function toBuffer(chunk: Uint8Array | string): Buffer {
  if (typeof chunk === 'string') return Buffer.from(chunk, 'utf8');
  if (Buffer.isBuffer(chunk)) return chunk;
  return Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
}

/** Factory form of LineSplitter, for callers that prefer a function. */
export function createLineDecoder(options: LineDecoderOptions): LineSplitter {
  return new LineSplitter(options);
}
