// A Terminal that passes everything through and lets the app wait for the next frame (the
// last one, drawn before the TUI stops).
import type { Terminal } from '@mariozechner/pi-tui';

export class WatchedTerminal implements Terminal {
  private waiters: Array<() => void> = [];

  constructor(private readonly inner: Terminal) {}

  /** Resolves after the next write, or after `limitMs` when nothing is written. */
  nextWrite(limitMs: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, limitMs);
      timer.unref?.();
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.waiters.push(done);
    });
  }

  write(data: string): void {
    this.inner.write(data);
    const waiters = this.waiters;
    this.waiters = [];
    for (const waiter of waiters) waiter();
  }

  start(onInput: (data: string) => void, onResize: () => void): void {
    this.inner.start(onInput, onResize);
  }
  stop(): void {
    this.inner.stop();
  }
  drainInput(maxMs?: number, idleMs?: number): Promise<void> {
    return this.inner.drainInput(maxMs, idleMs);
  }
  get columns(): number {
    return this.inner.columns;
  }
  get rows(): number {
    return this.inner.rows;
  }
  get kittyProtocolActive(): boolean {
    return this.inner.kittyProtocolActive;
  }
  moveBy(lines: number): void {
    this.inner.moveBy(lines);
  }
  hideCursor(): void {
    this.inner.hideCursor();
  }
  showCursor(): void {
    this.inner.showCursor();
  }
  clearLine(): void {
    this.inner.clearLine();
  }
  clearFromCursor(): void {
    this.inner.clearFromCursor();
  }
  clearScreen(): void {
    this.inner.clearScreen();
  }
  setTitle(title: string): void {
    this.inner.setTitle(title);
  }
  setProgress(active: boolean): void {
    this.inner.setProgress(active);
  }
}
