// Supervision (design D25): an extension that dies after `ready` is started again after a
// backoff, within a budget; every crash is one ext_error and every restart one ext_restarted.
import type { RunningExtension } from './extension.js';
import type { HostEvent } from './host.js';
import {
  MAX_RESTARTS,
  RESTART_WINDOW_MS,
  RestartBudget,
  type SupervisorClock,
} from './restart-budget.js';

export interface SupervisorDeps {
  clock: SupervisorClock;
  /** The first backoff in ms (doubled for each further restart within the window). */
  backoffMs: number;
  emit(event: HostEvent): void;
  /**
   * Puts `fresh` where `old` was in the running list (load order is kept); from then on it
   * follows zot's output back-pressure with the others.
   */
  replace(old: RunningExtension, fresh: RunningExtension): void;
  /** `fresh` is ready in its predecessor's place: the host replays what the session had. */
  restarted(fresh: RunningExtension, restarts: number): void;
  /** Whether zot's output is backed up now (a fresh process must follow it, too). */
  outputBlocked(): boolean;
}

interface Slot {
  /** A fresh process, or why it may not start (the trust gate's refusal). */
  respawn(): RunningExtension | string;
  budget: RestartBudget;
  timer?: unknown;
  /** The replacement being started (until it is ready or has failed). */
  starting?: RunningExtension;
}

const WINDOW_TEXT = `${RESTART_WINDOW_MS / 60_000} minutes`;

function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

/**
 * Contract: never throws; a crash loop is bounded by the restart budget (at most MAX_RESTARTS
 * restarts, ext_error and ext_restarted events per window and extension); after stop() no timer
 * is pending and no replacement is left running.
 */
export class Supervisor {
  private readonly slots = new Map<RunningExtension, Slot>();
  private stopped = false;

  constructor(private readonly deps: SupervisorDeps) {}

  /** Supervises `extension`; `respawn` makes a fresh process of the same extension. */
  watch(extension: RunningExtension, respawn: () => RunningExtension | string): void {
    this.stopped = false;
    this.slots.set(extension, {
      respawn,
      budget: new RestartBudget(this.deps.clock, this.deps.backoffMs),
    });
  }

  /**
   * `extension` died after `ready` (`message` says how): reported once, then restarted after its
   * backoff, or left down (restart "never", budget spent) with the reason on every later call.
   */
  crashed(extension: RunningExtension, message: string): void {
    extension.restarting = false;
    const slot = this.slots.get(extension);
    const report = (suffix: string) =>
      this.deps.emit({
        type: 'ext_error',
        extension: extension.name,
        message: `${message}${suffix}`,
        log_path: extension.logPath,
      });
    if (!slot || this.stopped) return report('');
    if (extension.policy.restart === 'never') {
      extension.stayDown = 'not restarted ("restart": "never"); /reload-ext starts it again';
      extension.log.write(`${message}; not restarting ("restart": "never")`);
      return report('; not restarted ("restart": "never" in its manifest)');
    }
    const decision = slot.budget.next();
    if (!decision.restart) {
      const why = `restarted ${MAX_RESTARTS} times within ${WINDOW_TEXT}`;
      extension.stayDown = `${why}; stays down until /reload-ext`;
      extension.log.write(`${message}; ${why}: giving up until /reload-ext`);
      return report(`; ${why}, so it stays down until /reload-ext`);
    }
    const { delayMs, attempt } = decision;
    extension.restarting = true;
    extension.restartAt = this.deps.clock.now() + delayMs;
    extension.log.write(
      `${message}; restart ${slot.budget.total} (${attempt} of at most ${MAX_RESTARTS} within ${WINDOW_TEXT}) in ${seconds(delayMs)}`,
    );
    report(`; restarting in ${seconds(delayMs)} (restart ${attempt} of ${MAX_RESTARTS})`);
    slot.timer = this.deps.clock.setTimeout(() => void this.restart(extension, slot), delayMs);
  }

  private async restart(old: RunningExtension, slot: Slot): Promise<void> {
    slot.timer = undefined;
    if (this.stopped) return;
    const fresh = slot.respawn();
    if (typeof fresh === 'string') {
      old.restarting = false;
      old.stayDown = `not restarted: ${fresh}`;
      old.log.write(`not restarted: ${fresh}`);
      this.deps.emit({
        type: 'ext_error',
        extension: old.name,
        message: `extension ${old.name} was not restarted: ${fresh}`,
        log_path: old.logPath,
      });
      return;
    }
    slot.starting = fresh;
    if (this.deps.outputBlocked()) fresh.setOutputBlocked(true);
    const state = await fresh.start();
    slot.starting = undefined;
    if (state === 'stopped') return; // stop() shut it down while it started
    if (this.stopped) {
      await fresh.shutdown();
      return;
    }
    if (state !== 'ready') {
      // Failed before `ready` again: one more crash of the same extension, on the same budget.
      this.crashed(old, `extension ${old.name} failed to restart: ${fresh.whyNotRunning}`);
      return;
    }
    old.restarting = false;
    old.successor = fresh;
    this.slots.delete(old);
    this.slots.set(fresh, slot);
    this.deps.replace(old, fresh);
    const restarts = slot.budget.total;
    fresh.log.write(`restarted (restart ${restarts}; pid ${fresh.pid ?? '?'})`);
    this.deps.restarted(fresh, restarts);
  }

  /** Cancels pending restarts and shuts down replacements being started. Never rejects. */
  async stop(): Promise<void> {
    this.stopped = true;
    const starting: RunningExtension[] = [];
    for (const slot of this.slots.values()) {
      if (slot.timer !== undefined) this.deps.clock.clearTimeout(slot.timer);
      slot.timer = undefined;
      if (slot.starting) starting.push(slot.starting);
    }
    await Promise.all(starting.map((extension) => extension.shutdown()));
  }

  /** Forgets every extension (before a reload: budgets start afresh). */
  clear(): void {
    this.slots.clear();
  }

  /** Synchronous last resort for replacements being started (process exit hook). */
  killAllNow(): void {
    for (const slot of this.slots.values()) slot.starting?.killNow();
  }
}
