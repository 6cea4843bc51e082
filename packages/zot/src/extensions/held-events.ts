// What a transport has read, handed to its handlers in order while the reader may pause it: an
// event runs at once while reading and nothing is held, otherwise after the ones held. The
// process, WebSocket and HTTP transports share it; each pauses and resumes its own source.
import type { TransportHandlers } from '@zot/protocol';

/** What a reader of lines (the protocol's LineSplitter, the event stream's reader) calls. */
export type LineSink = Required<Pick<TransportHandlers, 'onLine' | 'onOversize' | 'onInvalidUtf8'>>;

export class HeldEvents {
  private on = true;
  private readonly held: Array<() => void> = [];
  private draining = false;

  /** Whether the handlers are taking events. */
  get reading(): boolean {
    return this.on;
  }

  /** True when an event would run now: a hot path may then call the handler without a closure. */
  get runsNow(): boolean {
    return this.on && this.held.length === 0;
  }

  /** Runs `event` now, or after those held while reading is paused (order is kept). */
  deliver(event: () => void): void {
    if (this.runsNow) event();
    else this.held.push(event);
  }

  /**
   * What a reader calls to hand lines to `handlers` through these held events (a line that is
   * not UTF-8 is copied: its bytes are only valid during the call).
   */
  sinkFor(handlers: TransportHandlers): LineSink {
    return {
      // No closure per line unless reading is paused: this runs for every frame of a flood.
      onLine: (line) =>
        this.runsNow ? handlers.onLine(line) : this.deliver(() => handlers.onLine(line)),
      onOversize: (bytes) => this.deliver(() => handlers.onOversize?.(bytes)),
      onInvalidUtf8: (length, bytes) => {
        const copy = Buffer.from(bytes);
        this.deliver(() =>
          handlers.onInvalidUtf8
            ? handlers.onInvalidUtf8(length, copy)
            : handlers.onLine(copy.toString('utf8')),
        );
      },
    };
  }

  /**
   * Pauses (`pause` stops the source) or resumes reading: the held events run first, then
   * `resume` restarts the source unless a handler paused again. Contract: a handler may call
   * this re-entrantly; the outer loop carries on.
   */
  setReading(on: boolean, pause: () => void, resume: () => void): void {
    if (this.on === on) return;
    this.on = on;
    if (!on) {
      pause();
      return;
    }
    if (this.draining) return;
    this.draining = true;
    try {
      while (this.on && this.held.length > 0) this.held.shift()!();
    } finally {
      this.draining = false;
    }
    if (this.on) resume();
  }

  /** Drops what is held: nobody listens any more. */
  clear(): void {
    this.held.length = 0;
  }
}
