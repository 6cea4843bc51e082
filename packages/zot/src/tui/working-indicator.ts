// "working… 3s" with a spinner while the model thinks. It asks for a redraw a few times a
// second only while shown (the clock is injected for tests).
import { type Component, truncateToWidth } from '@mariozechner/pi-tui';
import { SPINNER } from './tool-row.js';
import type { Theme } from './theme.js';

export class WorkingIndicator implements Component {
  private since: number | undefined;
  private timer: NodeJS.Timeout | undefined;
  private label = 'working';

  constructor(
    private readonly theme: Theme,
    private readonly requestRender: () => void,
    private readonly now: () => number = Date.now,
  ) {}

  get active(): boolean {
    return this.since !== undefined;
  }

  /** Shows the indicator (keeps the start time if already shown). */
  show(label = 'working'): void {
    this.label = label;
    if (this.since !== undefined) return;
    this.since = this.now();
    this.timer = setInterval(this.requestRender, 100);
    this.timer.unref?.();
  }

  hide(): void {
    this.since = undefined;
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  invalidate(): void {}

  render(width: number): string[] {
    if (this.since === undefined) return [];
    const elapsed = this.now() - this.since;
    const frame = SPINNER[Math.floor(elapsed / 80) % SPINNER.length]!;
    const text = `${this.theme.accent(frame)} ${this.theme.muted(`${this.label}… ${Math.floor(elapsed / 1000)}s`)}`;
    return [truncateToWidth(text, width)];
  }
}
