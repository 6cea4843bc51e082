// Reads a stream as JSONL lines (LF only, capped) and hands them over one at a time, in order.
import { LineSplitter } from '@zot/protocol/jsonl';

export interface LineHandlers {
  /** Awaited before the next line is handled; `stop()` ends reading early. */
  onLine(line: string, stop: () => void): Promise<void> | void;
  onOversize?(byteLength: number): void;
}

/** Resolves when the stream ends or a handler calls stop(). Contract: never rejects. */
export function readLines(
  stream: NodeJS.ReadableStream,
  handlers: LineHandlers,
  signal?: AbortSignal,
): Promise<void> {
  return new Promise((resolve) => {
    const queue: string[] = [];
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
        try {
          await handlers.onLine(queue.shift()!, stop);
        } catch {
          // Handlers report their own errors; one failing line must not stop the reader.
        }
      }
      running = false;
      if (stopped || ended) finish();
    };
    const splitter = new LineSplitter({
      onLine: (line) => queue.push(line),
      onOversize: (bytes) => handlers.onOversize?.(bytes),
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
    signal?.addEventListener('abort', () => (stop(), finish()), { once: true });
    stream.on('data', onData);
    stream.on('end', onEnd);
    stream.on('error', onEnd);
  });
}
