// The session's operations (prompts, compactions, extension reloads) run one at a time, in the
// order they came: the RPC queue. Its length is part of the snapshot, so every change publishes.
import type { ErrorKind } from '../contract/errors.js';
import type { SessionEvent } from '../contract/events.js';

import type { RequestId } from '../contract/front-end.js';

/** An operation that ends with `done`: the request it runs for, and how to read its failure. */
export interface DoneOptions<T> {
  requestId: RequestId | undefined;
  errorKind(value: T): ErrorKind | undefined;
}

export const ending = (requestId: RequestId | undefined) => ({
  requestId,
  errorKind: (outcome: { errorKind?: ErrorKind }) => outcome.errorKind,
});

export class OperationQueue {
  private tail: Promise<unknown> = Promise.resolve();
  private count = 0;

  constructor(
    private readonly publish: () => void,
    private readonly emit: (event: SessionEvent) => void,
  ) {}

  /** Operations running or waiting. */
  get pending(): number {
    return this.count;
  }

  /**
   * Runs one operation at a time; later ones wait their turn (the RPC queue). Prompts and
   * compactions end with `done`, after the state event that says the runtime is idle again.
   */
  enqueue<T>(run: () => Promise<T>, done?: DoneOptions<NoInfer<T>>): Promise<T> {
    this.count++;
    this.publish();
    let kind: ErrorKind | undefined;
    const result = this.tail
      .then(run)
      .then((value) => ((kind = done?.errorKind(value)), value))
      .finally(() => {
        this.count--;
        // The state (busy off) goes out first, so `done` is the last word of the operation.
        this.publish();
        if (done) {
          this.emit({
            type: 'done',
            ...(done.requestId !== undefined ? { id: done.requestId } : {}),
            ...(kind !== undefined ? { error_kind: kind } : {}),
          });
        }
      });
    this.tail = result.catch(() => undefined);
    return result;
  }

  /** Resolves once nothing runs or waits. Contract: never rejects. */
  async idle(): Promise<void> {
    while (this.count > 0) await this.tail;
  }

  /** Settles when every operation queued so far has ended. Contract: never rejects. */
  drained(): Promise<unknown> {
    return this.tail;
  }
}
