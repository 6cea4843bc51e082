// Request/reply correlation shared by both ends of the link. The request table (which request
// frame is answered by which reply frame) is direction-neutral; `Peer` is the asking side (the
// host: monotonic ids, a timeout and an AbortSignal per request, every pending request failed
// at once when the other side goes away); `answer` is the answering side (an SDK: the reply of
// the right type for a request, with its id, checked at the boundary before it is written).
import { FRAME_LIMITS, jsonLimitProblem } from './bounds.js';
import { checkFrameFromExtension } from './decode.js';
import type { FrameFromExtension } from './frames-extension.js';
import type { FrameFromHost } from './frames-host.js';

export class RequestError extends Error {
  constructor(
    message: string,
    /** `unsendable`: the request itself could not go out (e.g. past the frame bounds). */
    readonly reason: 'timeout' | 'closed' | 'aborted' | 'invalid' | 'unsendable',
  ) {
    super(message);
  }
}

/** Each request frame and the one reply type that answers it. */
export const REPLY_TYPE = {
  tool_call: 'tool_result',
  command_invoked: 'command_response',
  event_intercept: 'event_intercept_response',
} as const;

export type RequestType = keyof typeof REPLY_TYPE;
export type ReplyType = (typeof REPLY_TYPE)[RequestType];
export type ReplyFrame = Extract<FrameFromExtension, { type: ReplyType }>;
/** The reply frame a request of type `T` resolves with. */
export type ReplyTo<T extends RequestType> = Extract<ReplyFrame, { type: (typeof REPLY_TYPE)[T] }>;
/** A request frame as it travels (with its id). */
export type RequestFrame = Extract<FrameFromHost, { type: RequestType }>;

type WithoutId<F> = F extends unknown ? Omit<F, 'id'> : never;
type WithoutIdAndType<F> = F extends unknown ? Omit<F, 'id' | 'type'> : never;
/** A request as the caller writes it; the peer adds the id. */
export type OutgoingRequest = WithoutId<RequestFrame>;
export type RequestOf<T extends RequestType> = Extract<OutgoingRequest, { type: T }>;
/** The body of the reply to a request of type `T`: what `answer` completes with type and id. */
export type ReplyBody<T extends RequestType> = WithoutIdAndType<ReplyTo<T>>;

const REPLY_TYPES: ReadonlySet<string> = new Set(Object.values(REPLY_TYPE));

export function isReplyType(type: string | undefined): type is ReplyType {
  return type !== undefined && REPLY_TYPES.has(type);
}

export function isRequestType(type: string | undefined): type is RequestType {
  return type !== undefined && Object.hasOwn(REPLY_TYPE, type);
}

/** Why the asking side stopped waiting for a request without a reply. */
export type AbandonReason = 'timeout' | 'aborted' | 'closed';

/** What became of a reply: taken, unknown or expired id (a late reply), or the wrong type. */
export type Delivery = 'resolved' | 'unknown' | { expected: ReplyType };

interface Pending {
  expects: ReplyType;
  resolve(reply: ReplyFrame): void;
  reject(error: RequestError): void;
  timer: ReturnType<typeof setTimeout> | undefined;
  label: string;
  frame: RequestFrame;
  /** The deadline's time left when its clock last (re)started, and when that was. */
  leftMs: number;
  startedAt: number;
  /** Set while the clock is stopped (`pause`): when it stopped. */
  pausedAt?: number;
  /** Time already spent paused, counted against a pause's budget. */
  pausedMs: number;
  expire?: () => void;
}

/**
 * One 'abort' listener per signal, however many requests wait on it (a turn's signal is shared
 * by all its tool calls): adding and removing an EventTarget listener costs microseconds, a Set
 * entry a fraction of one. Callbacks run in the order they were added, as listeners would.
 */
const abortWatchers = new WeakMap<AbortSignal, Set<() => void>>();

function watchAbort(signal: AbortSignal, callback: () => void): () => void {
  let callbacks = abortWatchers.get(signal);
  if (!callbacks) {
    const watching = new Set<() => void>();
    callbacks = watching;
    abortWatchers.set(signal, watching);
    signal.addEventListener(
      'abort',
      () => {
        const due = [...watching];
        watching.clear();
        for (const run of due) {
          try {
            run();
          } catch (error) {
            // As a throwing listener would: reported, and the others still run.
            queueMicrotask(() => {
              throw error;
            });
          }
        }
      },
      { once: true },
    );
  }
  callbacks.add(callback);
  const watching = callbacks;
  return () => void watching.delete(callback);
}

/** The asking side: sends requests, correlates replies. */
export class Peer {
  private nextId = 1;
  private readonly pending = new Map<string, Pending>();
  private closedReason: string | undefined;

  /**
   * `send` writes a frame, or returns why it would not (the request then fails at once);
   * `onPendingChange` runs after a request is added or settled (the extension reads its output
   * while a reply is awaited).
   */
  constructor(
    private readonly send: (frame: FrameFromHost) => string | void,
    private readonly onPendingChange: () => void = () => undefined,
    /** Runs when a sent request is given up without its reply (the other side may be told). */
    private readonly onAbandon: (frame: RequestFrame, reason: AbandonReason) => void = () =>
      undefined,
  ) {}

  /** The requests awaiting a reply, as sent. */
  pendingFrames(): RequestFrame[] {
    return [...this.pending.values()].map((entry) => entry.frame);
  }

  /** Whether a request of this id and type still awaits its reply. */
  isPending(id: string, type: RequestType): boolean {
    return this.pending.get(id)?.frame.type === type;
  }

  get pendingCount(): number {
    return this.pending.size;
  }

  /**
   * Sends `frame` with a fresh id and resolves with the reply of the type it expects.
   * Contract: rejects with RequestError on timeout, abort or close, and at once when `send`
   * refuses the frame (`unsendable`); never leaves a timer behind.
   */
  request<R extends OutgoingRequest>(
    frame: R,
    label: string,
    timeoutMs: number,
    signal?: AbortSignal,
    /** Called with the request's id just before it is sent. */
    onId?: (id: string) => void,
  ): Promise<ReplyTo<R['type']>> {
    if (this.closedReason !== undefined) {
      return Promise.reject(new RequestError(this.closedReason, 'closed'));
    }
    if (signal?.aborted) return Promise.reject(new RequestError(`${label}: aborted`, 'aborted'));
    const id = String(this.nextId++);
    return new Promise<ReplyTo<R['type']>>((resolve, reject) => {
      const cleanup = () => {
        if (entry.timer) clearTimeout(entry.timer);
        unwatchAbort?.();
        this.pending.delete(id);
        this.onPendingChange();
      };
      const sent = { ...frame, id } as RequestFrame;
      const onAbort = () => {
        cleanup();
        this.abandoned(sent, 'aborted');
        reject(new RequestError(`${label}: aborted`, 'aborted'));
      };
      const entry: Pending = {
        expects: REPLY_TYPE[frame.type],
        label,
        frame: sent,
        timer: undefined,
        leftMs: timeoutMs,
        startedAt: Date.now(),
        pausedMs: 0,
        resolve: (reply) => {
          cleanup();
          resolve(reply as ReplyTo<R['type']>); // its type was checked in resolve()
        },
        reject: (error) => {
          cleanup();
          reject(error);
        },
      };
      entry.expire = () => {
        entry.reject(new RequestError(`${label}: no reply within ${timeoutMs} ms`, 'timeout'));
        this.abandoned(sent, 'timeout');
      };
      entry.timer = setTimeout(entry.expire, timeoutMs);
      const unwatchAbort = signal ? watchAbort(signal, onAbort) : undefined;
      this.pending.set(id, entry);
      this.onPendingChange();
      onId?.(id);
      const refused = this.send(sent);
      if (typeof refused === 'string')
        entry.reject(new RequestError(`${label}: ${refused}`, 'unsendable'));
    });
  }

  /**
   * Stops the deadline's clock of request `id` (the other side is waiting on something the host
   * owns, such as the user), for as long as `budgetMs` minus the time this request has already
   * spent paused; after that the clock runs on by itself. False when no such request awaits a
   * reply, its clock is already stopped, or its budget is spent.
   */
  pause(id: string, budgetMs: number): boolean {
    const entry = this.pending.get(id);
    if (!entry || entry.pausedAt !== undefined || !entry.expire) return false;
    const budget = budgetMs - entry.pausedMs;
    if (budget <= 0) return false;
    const now = Date.now();
    clearTimeout(entry.timer);
    entry.leftMs = Math.max(0, entry.leftMs - (now - entry.startedAt));
    entry.pausedAt = now;
    entry.timer = setTimeout(() => this.resume(id), budget);
    return true;
  }

  /** Starts the clock of request `id` again with the time it had left; false if not paused. */
  resume(id: string): boolean {
    const entry = this.pending.get(id);
    if (!entry || entry.pausedAt === undefined || !entry.expire) return false;
    clearTimeout(entry.timer);
    const now = Date.now();
    entry.pausedMs += now - entry.pausedAt;
    entry.pausedAt = undefined;
    entry.startedAt = now;
    entry.timer = setTimeout(entry.expire, entry.leftMs);
    return true;
  }

  /**
   * Delivers a reply. Contract: a reply of another type than its request expects is not
   * taken (the request keeps waiting, and times out if nothing better arrives).
   */
  resolve(reply: ReplyFrame): Delivery {
    const entry = this.pending.get(reply.id);
    if (!entry) return 'unknown';
    if (entry.expects !== reply.type) return { expected: entry.expects };
    entry.resolve(reply);
    return 'resolved';
  }

  /** Fails one request whose reply (of `type`) was malformed; false if none matches. */
  fail(id: string, type: ReplyType, message: string): boolean {
    const entry = this.pending.get(id);
    if (!entry || entry.expects !== type) return false;
    entry.reject(new RequestError(`${entry.label}: ${message}`, 'invalid'));
    return true;
  }

  /** Fails every pending request now and refuses new ones (design D11). */
  close(reason: string): void {
    this.closedReason = reason;
    for (const entry of [...this.pending.values()]) {
      entry.reject(new RequestError(reason, 'closed'));
      this.abandoned(entry.frame, 'closed');
    }
  }

  private abandoned(frame: RequestFrame, reason: AbandonReason): void {
    try {
      this.onAbandon(frame, reason);
    } catch {
      // Telling the other side is best effort; the request has already failed here.
    }
  }
}

/**
 * The answering side: the reply to `request` (its reply type, its id) with `body`, checked as
 * the receiver will check it. Contract: never throws; `ok: false` names what is wrong, so the
 * caller can send a fallback reply instead of one the other side would drop.
 */
export function answer<T extends RequestType>(
  request: { type: T; id: string },
  body: ReplyBody<T>,
): { ok: true; reply: ReplyTo<T> } | { ok: false; error: string } {
  // `type` and `id` first (as a person reading the wire expects), and never overridden by body.
  const type = REPLY_TYPE[request.type];
  const reply: Record<string, unknown> = { type, id: request.id, ...body };
  reply['type'] = type;
  reply['id'] = request.id;
  // The receiver drops a frame past its bounds: the request would wait for its timeout.
  const tooBig = jsonLimitProblem(reply, FRAME_LIMITS);
  if (tooBig !== undefined) return { ok: false, error: `the reply is ${tooBig}` };
  const checked = checkFrameFromExtension(reply);
  if (!checked.ok) return { ok: false, error: checked.error };
  return { ok: true, reply: reply as unknown as ReplyTo<T> };
}
