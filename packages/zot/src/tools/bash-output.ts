// Collecting a command's output: a bounded in-memory tail, the full output spilled to a file
// once it outgrows the limits, and throttled progress lines.
import { closeSync, openSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { prepareOutputDir } from '../agent/output-limit.js';
import { StringDecoder } from 'node:string_decoder';
import { errorMessage } from '../util/errors.js';
import { formatBytes, truncateTail, type TruncateLimits } from '../util/truncate.js';

export interface SinkOptions extends TruncateLimits {
  /** Where the full output goes once it exceeds the limits. */
  filePath: string;
  /** The saved file stops growing here (default 100 MB), so a runaway command cannot fill the disk. */
  maxFileBytes?: number;
}

export interface SinkResult {
  /** The tail of the output within the limits, without a final newline. */
  text: string;
  truncated: boolean;
  shownLines: number;
  totalLines: number;
  /** A note for the model when truncated: how much is shown and where the rest is. */
  note?: string;
  /** The file holding the output (all of it, or its first maxFileBytes) when truncated. */
  savedPath?: string;
}

/**
 * Accumulates output chunks in arrival order.
 * Contract: memory stays bounded by about twice `maxBytes`; `write` never throws.
 */
export class OutputSink {
  private kept: Buffer[] = [];
  private keptBytes = 0;
  private totalBytes = 0;
  private newlines = 0;
  private lastByte = -1;
  private fd: number | undefined;
  private fileBytes = 0;
  private fileError: string | undefined;
  private spilled = false;
  private readonly maxFileBytes: number;

  constructor(private readonly options: SinkOptions) {
    this.maxFileBytes = options.maxFileBytes ?? 100 * 1024 * 1024;
  }

  write(chunk: Buffer): void {
    if (chunk.length === 0) return;
    this.totalBytes += chunk.length;
    for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) this.newlines++;
    this.lastByte = chunk[chunk.length - 1] ?? -1;
    this.kept.push(chunk);
    this.keptBytes += chunk.length;
    if (!this.spilled && this.overLimits()) this.spill();
    else if (this.spilled) this.save([chunk]);
    if (this.spilled) this.trimKept();
  }

  private totalLines(): number {
    return this.newlines + (this.totalBytes > 0 && this.lastByte !== 10 ? 1 : 0);
  }

  private overLimits(): boolean {
    return this.totalBytes > this.options.maxBytes || this.totalLines() > this.options.maxLines;
  }

  private spill(): void {
    this.spilled = true;
    try {
      prepareOutputDir(dirname(this.options.filePath));
      this.fd = openSync(this.options.filePath, 'wx', 0o600); // never through a planted name
    } catch (error) {
      this.fileError = errorMessage(error);
      return;
    }
    this.save(this.kept);
  }

  private save(chunks: Buffer[]): void {
    if (this.fd === undefined) return;
    try {
      for (const chunk of chunks) {
        const room = this.maxFileBytes - this.fileBytes;
        if (room <= 0) return;
        const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
        writeSync(this.fd, part);
        this.fileBytes += part.length;
      }
    } catch (error) {
      this.fileError = errorMessage(error);
      this.closeFile();
    }
  }

  /** Keeps at least twice maxBytes, so the tail always holds maxBytes of whole lines. */
  private trimKept(): void {
    const keep = this.options.maxBytes * 2;
    while (this.kept.length > 1 && this.keptBytes - (this.kept[0]?.length ?? 0) >= keep) {
      this.keptBytes -= this.kept.shift()?.length ?? 0;
    }
  }

  private closeFile(): void {
    if (this.fd === undefined) return;
    try {
      closeSync(this.fd);
    } catch {
      // Closing a file we only appended to cannot lose data we still need.
    }
    this.fd = undefined;
  }

  /** Contract: call once, after the last write; closes the saved file. */
  finish(): SinkResult {
    this.closeFile();
    const tail = truncateTail(Buffer.concat(this.kept).toString('utf8'), this.options);
    const totalLines = this.totalLines();
    if (!this.spilled) {
      return { text: tail.text, truncated: false, shownLines: tail.shownLines, totalLines };
    }
    const shown = tail.partialLine
      ? `the last ${formatBytes(Buffer.byteLength(tail.text))} of the last line`
      : `last ${tail.shownLines} of ${totalLines} lines`;
    let where: string;
    if (this.fileError !== undefined) where = `full output could not be saved: ${this.fileError}`;
    else if (this.fileBytes < this.totalBytes) {
      where = `first ${formatBytes(this.fileBytes)} of the output saved to ${this.options.filePath}`;
    } else where = `full output saved to ${this.options.filePath}`;
    return {
      text: tail.text,
      truncated: true,
      shownLines: tail.shownLines,
      totalLines,
      note: `[output truncated: showing ${shown}; ${where}]`,
      ...(this.fileError === undefined ? { savedPath: this.options.filePath } : {}),
    };
  }
}

/**
 * Batches streamed output into whole lines and reports them at most once per `intervalMs`.
 * Contract: never calls `emit` after `close()`; `close()` flushes what is left, a partial
 * last line included; lossy under floods (keeps the newest `maxChars` characters).
 */
export class ProgressLines {
  private pending = '';
  private lastEmit = -Infinity;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly decoder = new StringDecoder('utf8');

  constructor(
    private readonly emit: (text: string) => void,
    private readonly intervalMs = 100,
    private readonly maxChars = 8192,
  ) {}

  push(chunk: Buffer): void {
    if (this.closed) return;
    this.pending += this.decoder.write(chunk);
    if (this.pending.length > this.maxChars) {
      const tail = this.pending.slice(-this.maxChars);
      const newline = tail.indexOf('\n');
      this.pending = newline === -1 ? tail : tail.slice(newline + 1);
    }
    if (this.timer === undefined && this.pending.includes('\n')) {
      const wait = Math.max(0, this.lastEmit + this.intervalMs - performance.now());
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.flush(false);
      }, wait);
    }
  }

  close(): void {
    if (this.closed) return;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.pending += this.decoder.end();
    this.flush(true);
    this.closed = true;
  }

  private flush(all: boolean): void {
    const cut = all ? this.pending.length : this.pending.lastIndexOf('\n') + 1;
    if (cut === 0) return;
    const text = this.pending.slice(0, cut).replace(/\n$/, '');
    this.pending = this.pending.slice(cut);
    if (text === '') return;
    this.lastEmit = performance.now();
    try {
      this.emit(text);
    } catch {
      // A failing progress listener must not break the command.
    }
  }
}
