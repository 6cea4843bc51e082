// A value loaded on first need, for code too large to import at start-up.

/**
 * load() starts the load on its first call and every call returns that same promise (a failed
 * load stays failed); `now` is the value once it has arrived, for synchronous code whose caller
 * awaited load() first.
 */
export class LoadOnce<T> {
  private value: T | undefined;
  private loading: Promise<T> | undefined;

  constructor(private readonly start: () => Promise<T>) {}

  load(): Promise<T> {
    this.loading ??= this.start().then((value) => (this.value = value));
    return this.loading;
  }

  get now(): T | undefined {
    return this.value;
  }
}
