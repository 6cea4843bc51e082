// Request/reply correlation for one extension: monotonic ids, a timeout and an AbortSignal per
// request, and every pending request failed at once when the extension goes away.

export class RequestError extends Error {
  constructor(
    message: string,
    readonly reason: 'timeout' | 'closed' | 'aborted' | 'invalid',
  ) {
    super(message);
  }
}

export type OutgoingFrame = Record<string, unknown> & { type: string };

interface Pending {
  resolve(reply: unknown): void;
  reject(error: RequestError): void;
  timer: NodeJS.Timeout | undefined;
  label: string;
}

export class Peer {
  private nextId = 1;
  private readonly pending = new Map<string, Pending>();
  private closedReason: string | undefined;

  /**
   * `send` writes a frame (the peer adds the id); `onPendingChange` runs after a request is
   * added or settled (the extension reads its output while a reply is awaited).
   */
  constructor(
    private readonly send: (frame: OutgoingFrame) => void,
    private readonly onPendingChange: () => void = () => undefined,
  ) {}

  get pendingCount(): number {
    return this.pending.size;
  }

  /**
   * Sends `frame` with a fresh id and resolves with the reply frame.
   * Contract: rejects with RequestError on timeout, abort or close; never leaves a timer behind.
   */
  request<R>(
    frame: OutgoingFrame,
    label: string,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<R> {
    if (this.closedReason !== undefined) {
      return Promise.reject(new RequestError(this.closedReason, 'closed'));
    }
    if (signal?.aborted) return Promise.reject(new RequestError(`${label}: aborted`, 'aborted'));
    const id = String(this.nextId++);
    return new Promise<R>((resolve, reject) => {
      const cleanup = () => {
        if (entry.timer) clearTimeout(entry.timer);
        signal?.removeEventListener('abort', onAbort);
        this.pending.delete(id);
        this.onPendingChange();
      };
      const onAbort = () => {
        cleanup();
        reject(new RequestError(`${label}: aborted`, 'aborted'));
      };
      const entry: Pending = {
        label,
        timer: undefined,
        resolve: (reply) => {
          cleanup();
          resolve(reply as R);
        },
        reject: (error) => {
          cleanup();
          reject(error);
        },
      };
      entry.timer = setTimeout(
        () =>
          entry.reject(new RequestError(`${label}: no reply within ${timeoutMs} ms`, 'timeout')),
        timeoutMs,
      );
      signal?.addEventListener('abort', onAbort, { once: true });
      this.pending.set(id, entry);
      this.onPendingChange();
      this.send({ ...frame, id });
    });
  }

  /** Delivers a reply; returns false for an unknown or expired id (a late reply). */
  resolve(id: string, reply: unknown): boolean {
    const entry = this.pending.get(id);
    if (!entry) return false;
    entry.resolve(reply);
    return true;
  }

  /** Fails one request, e.g. when its reply frame was malformed. */
  fail(id: string, message: string): boolean {
    const entry = this.pending.get(id);
    if (!entry) return false;
    entry.reject(new RequestError(`${entry.label}: ${message}`, 'invalid'));
    return true;
  }

  /** Fails every pending request now and refuses new ones (DECISIONS 11). */
  close(reason: string): void {
    this.closedReason = reason;
    for (const entry of [...this.pending.values()])
      entry.reject(new RequestError(reason, 'closed'));
  }
}
