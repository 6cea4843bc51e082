// The notes extensions push (notify / display), kept for the TUI to render below the transcript.
import type { NotifyLevel } from '@zot/protocol';

export interface Note {
  extension: string;
  kind: 'notify' | 'display';
  level: NotifyLevel;
  text: string;
  time: number;
}

/** Only the newest notes can be shown anyway: memory stays bounded under a flood. */
const KEPT_NOTES = 200;

/**
 * Notes are one-shot: cleared on the next prompt, on /clear, on a reload, or by their extension.
 * Contract: clearAll() reports each extension whose notes it removed to `onCleared`, so front
 * ends holding those notes can drop them; clearFrom() is an extension's own request, which its
 * caller reports.
 */
export class NotesModel {
  /** The notes, oldest first; may hold up to twice KEPT_NOTES before it is trimmed. */
  private items: Note[] = [];
  private readonly listeners = new Set<() => void>();

  constructor(private readonly onCleared: (extension: string) => void = () => undefined) {}

  /** The newest KEPT_NOTES notes, oldest first. */
  get notes(): readonly Note[] {
    return this.items.length > KEPT_NOTES ? this.items.slice(-KEPT_NOTES) : this.items;
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(): void {
    for (const listener of this.listeners) listener();
  }

  add(note: Omit<Note, 'time'>): void {
    // Fields copied one by one: an object spread costs about a microsecond here, per note.
    const { extension, kind, level, text } = note;
    this.items.push({ extension, kind, level, text, time: Date.now() });
    // Trimmed in batches: cutting one note per add moved 200 entries per note under a flood.
    if (this.items.length >= 2 * KEPT_NOTES) this.items = this.items.slice(-KEPT_NOTES);
    this.changed();
  }

  /** Removes only `extension`'s notes. */
  clearFrom(extension: string): void {
    // From the shown notes only: older ones kept until the next trim must not come back.
    const shown = this.notes;
    this.items = shown.filter((note) => note.extension !== extension);
    if (this.items.length !== shown.length) this.changed();
  }

  /** Removes every note; returns the extensions whose notes were removed, in order. */
  clearAll(): string[] {
    if (this.items.length === 0) return [];
    const extensions = [...new Set(this.notes.map((note) => note.extension))];
    this.items = [];
    this.changed();
    for (const extension of extensions) this.onCleared(extension);
    return extensions;
  }
}
