// Line-aware truncation of tool output to a model-friendly size.

export interface TruncateLimits {
  maxLines: number;
  maxBytes: number;
}

export interface Truncated {
  /** The kept text, lines joined with LF, without a final newline. */
  text: string;
  truncated: boolean;
  /** Lines in the input; a final newline does not start another line. */
  totalLines: number;
  /** Lines kept, whole or (see `partialLine`) cut. */
  shownLines: number;
  /** True when a single line was larger than `maxBytes` and was cut inside. */
  partialLine: boolean;
}

/** Splits on LF; a final LF ends the last line instead of starting an empty one. */
export function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

function utf8(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/** The last `maxBytes` bytes of `text`, starting on a character boundary. */
export function tailBytes(text: string, maxBytes: number): string {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= maxBytes) return text;
  let start = bytes.length - maxBytes;
  // Skip UTF-8 continuation bytes (10xxxxxx) so the cut never splits a character.
  while (start < bytes.length && ((bytes[start] ?? 0) & 0xc0) === 0x80) start++;
  return bytes.subarray(start).toString('utf8');
}

/** The first `maxBytes` bytes of `text`, ending on a character boundary. */
export function headBytes(text: string, maxBytes: number): string {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= maxBytes) return text;
  let end = maxBytes;
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end).toString('utf8');
}

/**
 * Keeps the last lines of `text` within both limits, cutting at line boundaries.
 * Contract: only when the last line alone exceeds `maxBytes` is a line cut (its tail is kept).
 */
export function truncateTail(text: string, limits: TruncateLimits): Truncated {
  return truncate(text, limits, 'tail');
}

/**
 * Keeps the first lines of `text` within both limits, cutting at line boundaries.
 * Contract: only when the first line alone exceeds `maxBytes` is a line cut (its head is kept).
 */
export function truncateHead(text: string, limits: TruncateLimits): Truncated {
  return truncate(text, limits, 'head');
}

function truncate(text: string, limits: TruncateLimits, keep: 'head' | 'tail'): Truncated {
  const lines = splitLines(text);
  const totalLines = lines.length;
  const kept: string[] = [];
  let bytes = 0;
  for (let i = 0; i < lines.length && kept.length < limits.maxLines; i++) {
    const line = lines[keep === 'tail' ? lines.length - 1 - i : i] ?? '';
    const size = utf8(line) + (kept.length > 0 ? 1 : 0);
    if (bytes + size > limits.maxBytes) break;
    bytes += size;
    kept.push(line);
  }
  if (kept.length === 0 && totalLines > 0 && limits.maxLines > 0) {
    const line = (keep === 'tail' ? lines[lines.length - 1] : lines[0]) ?? '';
    const cut =
      keep === 'tail' ? tailBytes(line, limits.maxBytes) : headBytes(line, limits.maxBytes);
    return { text: cut, truncated: true, totalLines, shownLines: 1, partialLine: true };
  }
  if (keep === 'tail') kept.reverse();
  return {
    text: kept.join('\n'),
    truncated: kept.length < totalLines,
    totalLines,
    shownLines: kept.length,
    partialLine: false,
  };
}

/**
 * Cuts a line to at most `maxChars` UTF-16 units without splitting a surrogate pair.
 * Contract: `cut` is true exactly when characters were removed.
 */
export function truncateLine(line: string, maxChars: number): { text: string; cut: boolean } {
  if (line.length <= maxChars) return { text: line, cut: false };
  let end = maxChars;
  const code = line.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return { text: line.slice(0, end), cut: true };
}

/** `51200` -> `50 KB`, for notes shown to the model. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${Math.round((bytes / 1024) * 10) / 10} KB`;
  return `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MB`;
}
