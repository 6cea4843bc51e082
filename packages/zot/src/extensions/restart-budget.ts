// When a crashed extension may be started again (design D25): backoff 1 s, 2 s, 4 s, and at
// most 3 restarts in any 5 minutes. Time comes from an injectable clock, so tests never wait.

/** The time source of supervision; tests drive a fake one. */
export interface SupervisorClock {
  now(): number;
  setTimeout(run: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const systemClock: SupervisorClock = {
  now: () => Date.now(),
  setTimeout: (run, ms) => {
    const timer = setTimeout(run, ms);
    // A pending restart must not keep a finished zot alive.
    timer.unref?.();
    return timer;
  },
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

export const MAX_RESTARTS = 3;
export const RESTART_WINDOW_MS = 5 * 60_000;
export const DEFAULT_BACKOFF_MS = 1_000;
/** For tests only: the first backoff in ms (then doubled), instead of 1 s. */
export const BACKOFF_ENV = 'ZOT_EXT_RESTART_BACKOFF_MS';

/** The first backoff: 1 s, or the test override. Contract: never throws. */
export function restartBackoffMs(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env[BACKOFF_ENV];
  const value = raw === undefined || raw === '' ? NaN : Number(raw);
  return Number.isFinite(value) && value >= 0 ? value : DEFAULT_BACKOFF_MS;
}

export type RestartDecision =
  | { restart: true; delayMs: number; attempt: number }
  | { restart: false; recent: number };

/**
 * The restarts of one extension within the sliding window.
 * Contract: at most MAX_RESTARTS restarts are granted in any RESTART_WINDOW_MS; the n-th restart
 * within the window waits backoff * 2^(n-1).
 */
export class RestartBudget {
  private readonly starts: number[] = [];
  /** Every restart granted since the budget was made (a load or reload). */
  total = 0;

  constructor(
    private readonly clock: SupervisorClock,
    private readonly backoffMs: number,
  ) {}

  /** Restarts within the window ending now. */
  recent(): number {
    const since = this.clock.now() - RESTART_WINDOW_MS;
    while (this.starts.length > 0 && this.starts[0]! <= since) this.starts.shift();
    return this.starts.length;
  }

  /** Grants (and counts) the next restart, or says why not. */
  next(): RestartDecision {
    const recent = this.recent();
    if (recent >= MAX_RESTARTS) return { restart: false, recent };
    this.starts.push(this.clock.now());
    this.total++;
    return { restart: true, delayMs: this.backoffMs * 2 ** recent, attempt: recent + 1 };
  }
}
