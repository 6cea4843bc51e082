// How (and whether yet) the other side of a transport went away, for those who wait on it.
import type { ExitInfo } from './transport.js';

/** Contract: settle() records the first exit only; wait() never rejects and leaves no timer. */
export class ExitWatch {
  private exit: ExitInfo | undefined;
  private readonly waiters: Array<() => void> = [];

  get info(): ExitInfo | undefined {
    return this.exit;
  }

  settle(info: ExitInfo): void {
    if (this.exit) return;
    this.exit = info;
    for (const waiter of this.waiters.splice(0)) waiter();
  }

  /** True once the exit is known, false after `timeoutMs` without it. */
  wait(timeoutMs: number): Promise<boolean> {
    if (this.exit) return Promise.resolve(true);
    return new Promise((resolve) => {
      const waiter = () => {
        clearTimeout(timer);
        resolve(true);
      };
      const timer = setTimeout(() => {
        this.waiters.splice(this.waiters.indexOf(waiter), 1);
        resolve(false);
      }, timeoutMs);
      this.waiters.push(waiter);
    });
  }
}
