// The extension's end of the link when zot runs it: frames out on stdout, lines in from stdin,
// through the protocol's JSONL splitter (LF only, line cap).
import { format } from 'node:util';
import { encodeFrame, LineSplitter, type Transport, type TransportHandlers } from '@zot/protocol';

/** console.log/info/debug write to stderr: on stdio, stdout belongs to the protocol. */
export function redirectConsole(write: (text: string) => void): void {
  const toStderr = (...args: unknown[]) => write(format(...args) + '\n');
  console.log = toStderr;
  console.info = toStderr;
  console.debug = toStderr;
}

/**
 * stdio as a Transport. Frames are written in order; while stdout is backed up (the host is not
 * reading) stdin is paused, so no new work is taken on until the output drains.
 * Contract: as Transport; `flushed()` resolves once everything sent so far is written.
 */
export class StdioTransport<Out extends { readonly type: string }> implements Transport<Out> {
  private handlers: TransportHandlers | undefined;
  private wantReading = true;
  private backedUp = false;
  private ended = false;
  private exited = false;

  constructor(
    private readonly input: NodeJS.ReadableStream & {
      pause(): unknown;
      resume(): unknown;
    } = process.stdin,
    private readonly output: NodeJS.WritableStream = process.stdout,
  ) {}

  start(handlers: TransportHandlers): void {
    this.handlers = handlers;
    const splitter = new LineSplitter({
      onLine: (line) => handlers.onLine(line),
      onOversize: (n) => handlers.onOversize?.(n),
      // Refused, not read with U+FFFD in place of its bytes: as the host does with our lines.
      onInvalidUtf8: (n, bytes) => handlers.onInvalidUtf8?.(n, bytes),
    });
    this.input.on('data', (chunk: Buffer | string) => splitter.push(chunk));
    this.input.on('end', () => {
      splitter.end();
      handlers.onOutputEnd?.();
    });
    this.input.on('error', () => handlers.onOutputEnd?.());
    this.output.on('error', () => this.exit()); // EPIPE: the host is gone
    this.output.on('drain', () => {
      this.backedUp = false;
      this.applyReading();
    });
    this.applyReading();
  }

  send(frame: Out): boolean {
    if (this.ended || this.exited) return true;
    if (!this.output.write(encodeFrame(frame)) && !this.backedUp) {
      this.backedUp = true;
      this.applyReading();
    }
    return true;
  }

  setReading(on: boolean): void {
    this.wantReading = on;
    this.applyReading();
  }

  /** Resolves once every frame sent so far has been handed to the OS. */
  flushed(): Promise<void> {
    if (this.exited) return Promise.resolve();
    return new Promise((resolve) => this.output.write('', () => resolve()));
  }

  close(): void {
    this.ended = true;
  }

  terminate(): Promise<void> {
    this.close();
    this.exit();
    return Promise.resolve();
  }

  private applyReading(): void {
    if (this.wantReading && !this.backedUp) this.input.resume();
    else this.input.pause();
  }

  private exit(): void {
    if (this.exited) return;
    this.exited = true;
    this.handlers?.onExit({ code: null, signal: null });
  }
}
