// Reads a stream as JSONL lines (LF only, capped, UTF-8 only) and hands them over one at a
// time, in order, reading no further while the output they cause is backed up.
import { LineSplitter } from '@zot/protocol/jsonl';
import type { OutputGate } from './pressure.js';

export interface LineHandlers {
  /** Awaited before the next line is handled; `stop()` ends reading early. */
  onLine(line: string, stop: () => void): Promise<void> | void;
  /** A line over the cap (dropped), in its place among the lines; `stop()` as for onLine. */
  onOversize?(byteLength: number, stop: () => void): void;
  /**
   * A line that is not valid UTF-8 (not delivered to onLine), in its place among the lines;
   * `text` is the line decoded leniently (U+FFFD for the bad bytes), to name what it was.
   */
  onInvalidUtf8?(byteLength: number, text: string, stop: () => void): void;
}

export interface ReadOptions {
  /** Ends reading (at once if it already has). */
  signal?: AbortSignal;
  /**
   * While blocked, no further line is handled and the stream is paused, so whoever writes to
   * it is held back by the pipe instead of zot queueing the output its lines would cause.
   */
  gate?: OutputGate;
}

type Queued = string | { oversize: number } | { invalid: number; text: string };

/**
 * Resolves when the stream ends (and its lines were handled), a handler calls stop() or
 * `signal` aborts. Contract: never rejects; memory is bounded by one chunk's lines while the
 * gate is blocked.
 */
export function readLines(
  stream: NodeJS.ReadableStream,
  handlers: LineHandlers,
  options: ReadOptions = {},
): Promise<void> {
  const { signal, gate } = options;
  return new Promise((resolve) => {
    // Oversize and invalid lines are reported in order, like the lines around them.
    const queue: Queued[] = [];
    let running = false;
    let ended = false;
    let stopped = false;
    let unsubscribe: (() => void) | undefined;
    const finish = () => {
      stream.removeListener('data', onData);
      stream.removeListener('end', onEnd);
      stream.removeListener('error', onEnd);
      unsubscribe?.();
      resolve();
    };
    const stop = () => {
      stopped = true;
      queue.length = 0;
    };
    const drain = async () => {
      if (running) return;
      running = true;
      while (queue.length > 0 && !stopped && gate?.blocked !== true) {
        const next = queue.shift()!;
        try {
          if (typeof next === 'string') await handlers.onLine(next, stop);
          else if ('oversize' in next) handlers.onOversize?.(next.oversize, stop);
          else handlers.onInvalidUtf8?.(next.invalid, next.text, stop);
        } catch {
          // Handlers report their own errors; one failing line must not stop the reader.
        }
      }
      running = false;
      if (stopped || (ended && queue.length === 0)) finish();
    };
    const splitter = new LineSplitter({
      onLine: (line) => queue.push(line),
      onOversize: (bytes) => queue.push({ oversize: bytes }),
      onInvalidUtf8: (bytes, line) =>
        queue.push({
          invalid: bytes,
          text: Buffer.from(line.buffer, line.byteOffset, line.byteLength).toString('utf8'),
        }),
    });
    const onData = (chunk: Buffer | string) => {
      splitter.push(chunk);
      void drain();
    };
    const onEnd = () => {
      splitter.end();
      ended = true;
      void drain();
    };
    if (signal?.aborted) return finish();
    signal?.addEventListener('abort', () => (stop(), finish()), { once: true });
    unsubscribe = gate?.onChange((blocked) => {
      if (stopped) return;
      if (blocked) return void stream.pause();
      stream.resume();
      void drain();
    });
    stream.on('data', onData);
    stream.on('end', onEnd);
    stream.on('error', onEnd);
    if (gate?.blocked) stream.pause();
  });
}
