// Reads a stream as JSONL lines (LF only, capped) and hands them over one at a time, in order.
import { LineSplitter } from '@zot/protocol/jsonl';

export interface LineHandlers {
  /** Awaited before the next line is handled; `stop()` ends reading early. */
  onLine(line: string, stop: () => void): Promise<void> | void;
  /** A line over the cap (dropped), in its place among the lines; `stop()` as for onLine. */
  onOversize?(byteLength: number, stop: () => void): void;
}

/**
 * Resolves when the stream ends, a handler calls stop() or `signal` aborts (at once if it
 * already has). Contract: never rejects.
 */
export function readLines(
  stream: NodeJS.ReadableStream,
  handlers: LineHandlers,
  signal?: AbortSignal,
): Promise<void> {
  return new Promise((resolve) => {
    // A number stands for an oversize line: it is reported in order, like the lines around it.
    const queue: Array<string | number> = [];
    let running = false;
    let ended = false;
    let stopped = false;
    const finish = () => {
      stream.removeListener('data', onData);
      stream.removeListener('end', onEnd);
      stream.removeListener('error', onEnd);
      resolve();
    };
    const stop = () => {
      stopped = true;
      queue.length = 0;
    };
    const drain = async () => {
      if (running) return;
      running = true;
      while (queue.length > 0 && !stopped) {
        const next = queue.shift()!;
        try {
          if (typeof next === 'string') await handlers.onLine(next, stop);
          else handlers.onOversize?.(next, stop);
        } catch {
          // Handlers report their own errors; one failing line must not stop the reader.
        }
      }
      running = false;
      if (stopped || ended) finish();
    };
    const splitter = new LineSplitter({
      onLine: (line) => queue.push(line),
      onOversize: (bytes) => queue.push(bytes),
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
    stream.on('data', onData);
    stream.on('end', onEnd);
    stream.on('error', onEnd);
  });
}
