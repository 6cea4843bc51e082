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

/** The longest delay a timer takes (a longer one would fire at once); later deadlines re-arm. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** One request awaiting its reply. */
interface Pending {
  readonly id: string;
  readonly frame: RequestFrame;
  readonly expects: ReplyType;
  readonly label: string;
  readonly timeoutMs: number;
  readonly signal: AbortSignal | undefined;
  readonly resolve: (reply: ReplyFrame) => void;
  readonly reject: (error: RequestError) => void;
  /** When its deadline runs out (the peer's clock); while paused, when the pause's budget does. */
  dueAt: number;
  /** While paused: the deadline's time left, and when the pause began. */
  leftMs: number;
  pausedAt: number | undefined;
  /** Time already spent paused, counted against a pause's budget. */
  pausedMs: number;
}

/**
 * The asking side: sends requests, correlates replies.
 *
 * Per request it keeps one table entry and nothing else: the deadlines share one timer (armed
 * for the earliest, and unreferenced while nothing waits, so it never keeps a process alive by
 * itself), and each signal gets one 'abort' listener per peer, however many requests wait on
 * it. A timer and a listener per request cost microseconds each on every call.
 */
export class Peer {
  private nextId = 1;
  private readonly pending = new Map<string, Pending>();
  private closedReason: string | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** When the timer fires (the peer's clock); Infinity when there is none. */
  private timerDueAt = Infinity;
  private readonly watched = new WeakSet<AbortSignal>();

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
    /** The deadlines' clock: monotonic, so that a change of the system time moves none. */
    private readonly now: () => number = () => performance.now(),
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
   * refuses the frame (`unsendable`); never leaves a timer that keeps the process alive.
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
    const sent = withId(frame, id);
    return new Promise<ReplyTo<R['type']>>((resolve, reject) => {
      const entry: Pending = {
        id,
        frame: sent,
        expects: REPLY_TYPE[frame.type],
        label,
        timeoutMs,
        signal,
        resolve: resolve as (reply: ReplyFrame) => void, // its type is checked in resolve()
        reject,
        dueAt: this.now() + timeoutMs,
        leftMs: timeoutMs,
        pausedAt: undefined,
        pausedMs: 0,
      };
      this.armFor(entry.dueAt);
      if (signal) this.watch(signal);
      this.pending.set(id, entry);
      this.onPendingChange();
      onId?.(id);
      const refused = this.send(sent);
      if (typeof refused === 'string' && this.settle(entry))
        reject(new RequestError(`${label}: ${refused}`, 'unsendable'));
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
    if (!entry || entry.pausedAt !== undefined) return false;
    const budget = budgetMs - entry.pausedMs;
    if (budget <= 0) return false;
    const now = this.now();
    entry.leftMs = Math.max(0, entry.dueAt - now);
    entry.pausedAt = now;
    entry.dueAt = now + budget;
    this.armFor(entry.dueAt);
    return true;
  }

  /** Starts the clock of request `id` again with the time it had left; false if not paused. */
  resume(id: string): boolean {
    const entry = this.pending.get(id);
    if (!entry || entry.pausedAt === undefined) return false;
    this.restartClock(entry, this.now());
    this.armFor(entry.dueAt);
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
    this.settle(entry);
    entry.resolve(reply);
    return 'resolved';
  }

  /** Fails one request whose reply (of `type`) was malformed; false if none matches. */
  fail(id: string, type: ReplyType, message: string): boolean {
    const entry = this.pending.get(id);
    if (!entry || entry.expects !== type) return false;
    this.settle(entry);
    entry.reject(new RequestError(`${entry.label}: ${message}`, 'invalid'));
    return true;
  }

  /** Fails every pending request now and refuses new ones (design D11). */
  close(reason: string): void {
    this.closedReason = reason;
    for (const entry of [...this.pending.values()]) {
      if (!this.settle(entry)) continue;
      entry.reject(new RequestError(reason, 'closed'));
      this.abandoned(entry.frame, 'closed');
    }
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.timerDueAt = Infinity;
  }

  /** Takes `entry` out of the table (false if it was no longer there). */
  private settle(entry: Pending): boolean {
    if (this.pending.get(entry.id) !== entry) return false;
    this.pending.delete(entry.id);
    // Nothing waits: the timer may stay armed (it will find nothing due) but holds nothing open.
    if (this.pending.size === 0) this.timer?.unref();
    this.onPendingChange();
    return true;
  }

  /** Makes the shared timer fire by `dueAt`, and keeps the process alive while it waits. */
  private armFor(dueAt: number): void {
    if (this.timer !== undefined && this.timerDueAt <= dueAt) {
      this.timer.ref();
      return;
    }
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timerDueAt = dueAt;
    const delay = Math.min(MAX_TIMER_MS, Math.max(1, dueAt - this.now()));
    this.timer = setTimeout(this.onTimer, delay);
  }

  /**
   * The shared timer: each request whose time is up expires (or, paused, has its clock
   * restarted), in the order they were sent; then the timer is armed for the next deadline.
   * A timer that fires early (its clock is the event loop's) finds nothing due and re-arms.
   */
  private readonly onTimer = (): void => {
    this.timer = undefined;
    this.timerDueAt = Infinity;
    const now = this.now();
    const due: Pending[] = [];
    for (const entry of this.pending.values()) if (entry.dueAt <= now) due.push(entry);
    for (const entry of due) {
      if (this.pending.get(entry.id) !== entry) continue;
      if (entry.pausedAt !== undefined) this.restartClock(entry, now);
      else this.expire(entry);
    }
    let next = Infinity;
    for (const entry of this.pending.values()) if (entry.dueAt < next) next = entry.dueAt;
    if (next !== Infinity) this.armFor(next);
  };

  private restartClock(entry: Pending, now: number): void {
    entry.pausedMs += now - entry.pausedAt!;
    entry.pausedAt = undefined;
    entry.dueAt = now + entry.leftMs;
  }

  private expire(entry: Pending): void {
    this.settle(entry);
    entry.reject(
      new RequestError(`${entry.label}: no reply within ${entry.timeoutMs} ms`, 'timeout'),
    );
    this.abandoned(entry.frame, 'timeout');
  }

  /** One 'abort' listener per signal: it fails this peer's requests waiting on that signal. */
  private watch(signal: AbortSignal): void {
    if (this.watched.has(signal)) return;
    this.watched.add(signal);
    signal.addEventListener('abort', () => this.abortAll(signal), { once: true });
  }

  /** Fails the requests waiting on `signal`, in the order they were sent. */
  private abortAll(signal: AbortSignal): void {
    const due: Pending[] = [];
    for (const entry of this.pending.values()) if (entry.signal === signal) due.push(entry);
    for (const entry of due) {
      try {
        if (!this.settle(entry)) continue;
        this.abandoned(entry.frame, 'aborted');
        entry.reject(new RequestError(`${entry.label}: aborted`, 'aborted'));
      } catch (error) {
        // As a throwing listener would: reported, and the other requests still fail.
        queueMicrotask(() => {
          throw error;
        });
      }
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
 * The request as it travels: `type` and `id` first, then the caller's fields. (A spread followed
 * by a new key takes a slow path in V8: over a microsecond on every call.)
 */
function withId(frame: OutgoingRequest, id: string): RequestFrame {
  const sent = { type: frame.type, id, ...(frame as object) } as RequestFrame;
  if (sent.id !== id) sent.id = id; // a caller's own `id` never wins
  return sent;
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
