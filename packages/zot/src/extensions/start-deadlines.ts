// The clocks of an extension's start: one deadline at a time (its hello within helloMs of the
// spawn, then "ready" within its ready deadline of the hello), and the quiet period after a
// registration at whose end an extension that sent no "ready" is auto-readied.
export class StartDeadlines {
  private deadline: NodeJS.Timeout | undefined;
  private quiet: NodeJS.Timeout | undefined;

  /** Replaces the current deadline: `onMissed` runs unless cleared within `ms`. */
  expect(ms: number, onMissed: () => void): void {
    clearTimeout(this.deadline);
    this.deadline = setTimeout(onMissed, ms);
  }

  /** Starts the quiet period anew: `onQuiet` runs after `ms` without another call. */
  restartQuiet(ms: number, onQuiet: () => void): void {
    clearTimeout(this.quiet);
    this.quiet = setTimeout(onQuiet, ms);
  }

  /** The start has ended (ready, failed or stopped): no clock runs on. */
  clear(): void {
    clearTimeout(this.deadline);
    clearTimeout(this.quiet);
    this.deadline = this.quiet = undefined;
  }
}
