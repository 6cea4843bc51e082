// The notes extensions push (notify / display), kept for the TUI to render below the transcript.
import type { NotifyLevel } from '@zot/protocol';

export interface Note {
  extension: string;
  kind: 'notify' | 'display';
  level: NotifyLevel;
  text: string;
  time: number;
}

/**
 * Notes are one-shot: cleared on the next prompt, on /clear, on a reload, or by their extension.
 * Contract: clearAll() reports each extension whose notes it removed to `onCleared`, so front
 * ends holding those notes can drop them; clearFrom() is an extension's own request, which its
 * caller reports.
 */
export class NotesModel {
  private items: Note[] = [];
  private readonly listeners = new Set<() => void>();

  constructor(private readonly onCleared: (extension: string) => void = () => undefined) {}

  get notes(): readonly Note[] {
    return this.items;
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(): void {
    for (const listener of this.listeners) listener();
  }

  add(note: Omit<Note, 'time'>): void {
    this.items.push({ ...note, time: Date.now() });
    // Bound memory under a flood: only the newest notes can be shown anyway.
    if (this.items.length > 200) this.items.splice(0, this.items.length - 200);
    this.changed();
  }

  /** Removes only `extension`'s notes. */
  clearFrom(extension: string): void {
    const before = this.items.length;
    this.items = this.items.filter((note) => note.extension !== extension);
    if (this.items.length !== before) this.changed();
  }

  /** Removes every note; returns the extensions whose notes were removed, in order. */
  clearAll(): string[] {
    if (this.items.length === 0) return [];
    const extensions = [...new Set(this.items.map((note) => note.extension))];
    this.items = [];
    this.changed();
    for (const extension of extensions) this.onCleared(extension);
    return extensions;
  }
}
