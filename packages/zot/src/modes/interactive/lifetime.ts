// When the interactive run ends: the user exits (code 0) or the caller's signal stops it (1).
export class Lifetime {
  /** Resolves with the exit code, once. */
  readonly finished: Promise<number>;
  private finish: (code: number) => void = () => undefined;
  private stop: AbortSignal | undefined;

  constructor() {
    this.finished = new Promise<number>((resolve) => (this.finish = resolve));
  }

  readonly exit = (): void => this.finish(0);

  private readonly onStop = (): void => this.finish(1);

  /** Ends the run when `stop` aborts (at once if it already has). */
  watch(stop: AbortSignal | undefined): void {
    this.stop = stop;
    stop?.addEventListener('abort', this.onStop, { once: true });
    if (stop?.aborted) this.onStop();
  }

  unwatch(): void {
    this.stop?.removeEventListener('abort', this.onStop);
  }
}
