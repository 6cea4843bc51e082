// Short-lived lines above the editor: the ctrl+c hint, extension notes, warnings. Keyed, so a
// newer note of the same source replaces the older one.
import { truncateToWidth, type Component } from '@mariozechner/pi-tui';

/** Contract: lines render in the order their keys were first set; each fits the width. */
export class Notes implements Component {
  private readonly notes = new Map<string, string>();

  constructor(private readonly onChange: () => void) {}

  set(key: string, text: string): void {
    this.notes.set(key, text);
    this.onChange();
  }

  delete(key: string): void {
    if (this.notes.delete(key)) this.onChange();
  }

  /** Removes every note whose key starts with `prefix`. */
  deletePrefix(prefix: string): void {
    let changed = false;
    for (const key of [...this.notes.keys()]) {
      if (key.startsWith(prefix)) changed = this.notes.delete(key) || changed;
    }
    if (changed) this.onChange();
  }

  has(key: string): boolean {
    return this.notes.has(key);
  }

  invalidate(): void {}

  render(width: number): string[] {
    return [...this.notes.values()].flatMap((text) =>
      text.split('\n').map((line) => truncateToWidth(line, width, '…')),
    );
  }
}
