// tool_progress from an extension: each line goes to the tool call it names while that call is in
// flight, at a bounded rate; a line for a finished or unknown call is dropped and logged.
import type { ToolProgressFrame } from '@zot/protocol';

/** Per call: a burst of lines, then a steady rate; the rest is dropped (and counted). */
export const PROGRESS_RATE = { burst: 100, perSecond: 50 } as const;

interface Sink {
  deliver(text: string): void;
  tokens: number;
  refilledAt: number;
  dropped: number;
}

export class ProgressRelay {
  private readonly sinks = new Map<string, Sink>();
  private strays = 0;

  constructor(
    private readonly warn: (message: string) => void,
    private readonly log: (message: string) => void,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Routes progress of call `id` to `deliver` until the returned function is called. */
  watch(id: string, deliver: (text: string) => void): () => void {
    const sink: Sink = { deliver, tokens: PROGRESS_RATE.burst, refilledAt: this.now(), dropped: 0 };
    this.sinks.set(id, sink);
    return () => {
      if (this.sinks.get(id) !== sink) return;
      this.sinks.delete(id);
      if (sink.dropped > 0)
        this.log(
          `tool call ${id}: dropped ${sink.dropped} tool_progress lines over the rate limit (${PROGRESS_RATE.perSecond} a second after a burst of ${PROGRESS_RATE.burst})`,
        );
    };
  }

  /**
   * `inFlight`: whether the call still waits for its result. A line read right after the result
   * (in the same chunk) finds the call answered before its watch ends: it is a stray too.
   */
  deliver(frame: ToolProgressFrame, inFlight = true): void {
    const sink = inFlight ? this.sinks.get(frame.id) : undefined;
    if (!sink) {
      // The first stray is a warning; a flood of them only counts in the log.
      this.strays += 1;
      if (this.strays === 1)
        this.warn(
          `dropped tool_progress for call ${frame.id}: no tool call of that id is in flight (finished, cancelled or never sent)`,
        );
      else if (this.strays % 1000 === 0)
        this.log(`${this.strays} tool_progress lines for calls not in flight dropped so far`);
      return;
    }
    const now = this.now();
    sink.tokens = Math.min(
      PROGRESS_RATE.burst,
      sink.tokens + ((now - sink.refilledAt) / 1000) * PROGRESS_RATE.perSecond,
    );
    sink.refilledAt = now;
    if (sink.tokens < 1) {
      sink.dropped += 1;
      return;
    }
    sink.tokens -= 1;
    sink.deliver(frame.text);
  }
}
