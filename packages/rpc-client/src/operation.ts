// The events of one operation (a prompt, a compaction, a command) as an async iterator: every
// event from the moment it runs up to and including the one that ends it.
import { RpcRequestError } from './errors.js';
import type { RequestId, RpcEvent, RpcFailureResponse, RpcResponse } from './types.js';

type Waiter = {
  resolve: (result: IteratorResult<RpcEvent>) => void;
  reject: (error: Error) => void;
};

/**
 * Contract: yields events in the order zot wrote them and ends after the operation's last
 * event (`done`, or `command_done` for a command); throws RpcRequestError when zot refused
 * the request, RpcClosedError when the connection ended first. One consumer; events wait in
 * memory until it reads them.
 */
export class Operation implements AsyncIterable<RpcEvent> {
  /** The response to the request that started it (a failure is a value, not a throw). */
  readonly response: Promise<RpcResponse>;
  private readonly queue: RpcEvent[] = [];
  private waiter: Waiter | undefined;
  private ended = false;
  private failure: Error | undefined;
  private iterated = false;

  constructor(
    /** The id of its request: the `id` of the `done` (or `command_done`) that ends it. */
    readonly id: RequestId,
    response: Promise<RpcResponse>,
    /** Called once it has ended, however it ended. */
    private readonly onEnd: (operation: Operation) => void,
  ) {
    this.response = response;
    response.then(
      (answer) => {
        if (!answer.success) this.fail(new RpcRequestError(answer as RpcFailureResponse));
      },
      (error: Error) => this.fail(error),
    );
  }

  /** Whether `event` ends this operation. */
  endsWith(event: RpcEvent): boolean {
    return (event.type === 'done' || event.type === 'command_done') && event.id === this.id;
  }

  /** Takes the next event (the client calls this); the last one ends the stream. */
  push(event: RpcEvent): void {
    if (this.ended) return;
    const last = this.endsWith(event);
    if (this.waiter) {
      const waiter = this.waiter;
      this.waiter = undefined;
      waiter.resolve({ value: event, done: false });
    } else {
      this.queue.push(event);
    }
    if (last) this.finish(undefined);
  }

  /** Ends the stream with `error` after the events already taken. */
  fail(error: Error): void {
    if (!this.ended) this.finish(error);
  }

  private finish(error: Error | undefined): void {
    this.ended = true;
    this.failure = error;
    this.onEnd(this);
    if (this.waiter && this.queue.length === 0) {
      const waiter = this.waiter;
      this.waiter = undefined;
      if (error) waiter.reject(error);
      else waiter.resolve({ value: undefined, done: true });
    }
  }

  [Symbol.asyncIterator](): AsyncIterator<RpcEvent> {
    if (this.iterated) throw new Error('an operation can be iterated once');
    this.iterated = true;
    return {
      next: () => {
        const value = this.queue.shift();
        if (value !== undefined) return Promise.resolve({ value, done: false });
        if (this.ended) {
          return this.failure
            ? Promise.reject(this.failure)
            : Promise.resolve({ value: undefined, done: true });
        }
        return new Promise((resolve, reject) => (this.waiter = { resolve, reject }));
      },
      // Leaving the loop early stops the stream here; the operation itself goes on in zot.
      return: () => {
        this.queue.length = 0;
        if (!this.ended) this.finish(undefined);
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }

  /** Every event up to the end, collected (for when the whole run is wanted at once). */
  async events(): Promise<RpcEvent[]> {
    const all: RpcEvent[] = [];
    for await (const event of this) all.push(event);
    return all;
  }
}
