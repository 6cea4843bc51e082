// Back-pressure from a mode's output: while the reader of our output lags, the extension host
// stops reading extension output and the RPC mode stops reading requests, instead of queueing
// what they would produce here (docs/extensions.md, docs/rpc.md).
import type { Writable } from 'node:stream';
import type { OneShotSession } from '../contract/front-end.js';
import { writeLine } from './io.js';

/** Whether output is backed up, for those that should stop producing more meanwhile. */
export interface OutputGate {
  readonly blocked: boolean;
  /** Calls `listener` on each change; returns the function that unsubscribes it. */
  onChange(listener: (blocked: boolean) => void): () => void;
}

/**
 * A line writer for `stream` that is blocked once a write is left queued past the stream's
 * high-water mark (write() returned false), and unblocked on 'drain' or when the stream
 * closes (nothing to wait for then). Contract: never throws; reports each change once.
 */
export class OutputPressure implements OutputGate {
  #blocked = false;
  #closed = false;
  readonly #listeners = new Set<(blocked: boolean) => void>();

  constructor(private readonly stream: NodeJS.WritableStream) {
    stream.on('drain', () => this.#set(false));
    stream.once('close', () => {
      this.#closed = true;
      this.#set(false);
    });
  }

  get blocked(): boolean {
    return this.#blocked;
  }

  onChange(listener: (blocked: boolean) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  readonly write = (text: string): void => {
    writeLine(this.stream, text);
    if (!this.#closed && (this.stream as Partial<Writable>).writableNeedDrain === true)
      this.#set(true);
  };

  #set(blocked: boolean): void {
    if (blocked === this.#blocked) return;
    this.#blocked = blocked;
    for (const listener of [...this.#listeners]) {
      try {
        listener(blocked);
      } catch {
        // A listener never stops the others, nor the write that changed the state.
      }
    }
  }
}

/** Tells the session's extension host of every change of `pressure` (and of its state now). */
export function reportToSession(
  pressure: OutputGate,
  session: Pick<OneShotSession, 'setOutputBlocked'>,
): void {
  const report = (blocked: boolean) => session.setOutputBlocked(blocked);
  pressure.onChange(report);
  if (pressure.blocked) report(true);
}

/**
 * A line writer for `stream` whose back-pressure reaches the session's extension host. One per
 * stream. Contract: never throws.
 */
export function outputWriter(
  stream: NodeJS.WritableStream,
  session: Pick<OneShotSession, 'setOutputBlocked'>,
): (text: string) => void {
  const pressure = new OutputPressure(stream);
  reportToSession(pressure, session);
  return pressure.write;
}
