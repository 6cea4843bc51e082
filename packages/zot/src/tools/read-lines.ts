// Streams a text file once, keeping a window of lines and counting all of them.
import { createReadStream } from 'node:fs';
import { truncateLine } from '../util/truncate.js';

export interface WindowLine {
  /** The line without its ending (LF or CRLF), cut to `maxLineChars` characters. */
  text: string;
  /** True when the line was longer than `maxLineChars`. */
  cut: boolean;
  /** Length of the whole line in bytes, without its ending. */
  bytes: number;
}

export interface WindowOptions {
  /** First line to keep, 1-based. */
  first: number;
  /** How many lines to keep at most. */
  count: number;
  maxLineChars: number;
  /** Stop keeping lines once the kept text reaches this many bytes (counting continues). */
  maxKeptBytes: number;
}

export interface LineWindow {
  lines: WindowLine[];
  totalLines: number;
}

/**
 * Keeps a window of lines of a file (a path, or its bytes) and counts every line; a final newline does not start
 * another line, and a UTF-8 BOM is dropped.
 * Contract: memory stays bounded by `maxKeptBytes` plus one line whatever the file size.
 */
export async function readLineWindow(
  source: string | Buffer,
  options: WindowOptions,
): Promise<LineWindow> {
  const { first, maxLineChars, maxKeptBytes } = options;
  // A character takes at most 4 bytes, so this many bytes always hold maxLineChars characters.
  const maxLineBytes = maxLineChars * 4 + 4;
  const lines: WindowLine[] = [];
  let last = first + options.count - 1;
  let keptTotal = 0;
  let lineNo = 1;
  let parts: Buffer[] = [];
  let kept = 0;
  let bytes = 0;

  const endLine = (): void => {
    if (lineNo >= first && lineNo <= last) {
      let text = Buffer.concat(parts).toString('utf8');
      let size = bytes;
      if (kept === bytes && text.endsWith('\r')) {
        text = text.slice(0, -1);
        size--;
      }
      if (lineNo === 1 && text.startsWith('\uFEFF')) text = text.slice(1);
      const line = truncateLine(text, maxLineChars);
      lines.push({ text: line.text, cut: line.cut || kept < bytes, bytes: size });
      keptTotal += Buffer.byteLength(line.text) + 1;
      if (keptTotal >= maxKeptBytes) last = lineNo;
    }
    lineNo++;
    parts = [];
    kept = 0;
    bytes = 0;
  };

  // A path is streamed; text the editor holds (ACP) comes as its bytes.
  const chunks =
    typeof source === 'string' ? (createReadStream(source) as AsyncIterable<Buffer>) : [source];
  for await (const chunk of chunks) {
    let start = 0;
    for (;;) {
      const newline = chunk.indexOf(0x0a, start);
      const end = newline === -1 ? chunk.length : newline;
      if (lineNo >= first && lineNo <= last && kept < maxLineBytes && end > start) {
        const piece = chunk.subarray(start, Math.min(end, start + maxLineBytes - kept));
        parts.push(piece);
        kept += piece.length;
      }
      bytes += end - start;
      if (newline === -1) break;
      endLine();
      start = newline + 1;
    }
  }
  if (bytes > 0) endLine();
  return { lines, totalLines: lineNo - 1 };
}
