// One dialog at a time for what arrives unasked: the tool confirmation (--no-yolo, ask rules)
// and extensions' questions (ui_request) wait their turn in one line, so neither covers or
// replaces the other; each shows when the one before it is answered.
export class DialogLine {
  private last: Promise<unknown> = Promise.resolve();

  /** Runs `show` once every dialog queued before it is done. Contract: as `show`'s promise. */
  run<T>(show: () => Promise<T>): Promise<T> {
    const turn = this.last.then(show);
    this.last = turn.catch(() => undefined);
    return turn;
  }
}
