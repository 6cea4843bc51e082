// Reading a child's output the way real readers do: slowly (a paused pipe), or going away early.
import type { ChildProcess } from 'node:child_process';
import type { Readable } from 'node:stream';

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Collects everything a pipe delivers. `pause()` makes a slow reader: what zot writes stays
 * in the pipe (and in zot) until `resume()`. The listener is attached at once because Node
 * resumes and discards the unread output of a child that has exited.
 */
export class PipeReader {
  private chunks: Buffer[] = [];
  private waiters: Array<() => void> = [];
  /** The last characters read, for cheap checks on multi-megabyte output. */
  tail = '';
  /** Resolves with all the text once the pipe ends (or fails). */
  readonly ended: Promise<string>;

  constructor(
    readonly stream: Readable,
    options: { paused?: boolean } = {},
  ) {
    stream.on('data', (chunk: Buffer) => {
      this.chunks.push(chunk);
      this.tail = (this.tail + chunk.toString('utf8')).slice(-256);
      for (const waiter of this.waiters) waiter();
    });
    if (options.paused) stream.pause();
    this.ended = new Promise((resolve) => {
      stream.on('end', () => resolve(this.text()));
      stream.on('error', () => resolve(this.text()));
    });
  }

  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }

  get bytes(): number {
    return this.chunks.reduce((sum, chunk) => sum + chunk.length, 0);
  }

  pause(): void {
    this.stream.pause();
  }

  /** Resumes reading and resolves with everything once the pipe ends. */
  readAll(): Promise<string> {
    this.stream.resume();
    return this.ended;
  }

  /** Resolves once `check()` holds after some chunk (checked at once too). */
  until(check: (reader: PipeReader) => boolean): Promise<void> {
    return new Promise((resolve) => {
      const waiter = () => {
        if (!check(this)) return;
        this.waiters = this.waiters.filter((other) => other !== waiter);
        resolve();
      };
      this.waiters.push(waiter);
      waiter();
    });
  }
}

/**
 * The exit of `child` (the 'exit' event: it does not wait for its pipes to be drained).
 * Contract: kills the child and rejects when it outlives `timeoutMs`.
 */
export function exitOf(
  child: ChildProcess,
  timeoutMs = 60_000,
): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`zot did not exit within ${timeoutMs} ms`));
    }, timeoutMs);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal });
    });
  });
}

/** Waits (polling) until `check()` holds. Contract: rejects after `timeoutMs`. */
export async function until(check: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await sleep(20);
  }
}
