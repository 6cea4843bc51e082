// The bound on notes an extension may queue while zot's own output is backed up.

/** Per extension and per backlog (from a write left queued until 'drain'). */
export const NOTE_BACKLOG_LIMIT = { notes: 1_000, bytes: 1024 * 1024 };

/**
 * Counts one extension's notes (notify, display) during one backlog. Reading is paused while
 * output is blocked, so this bound only bites when it cannot be: while zot awaits a reply.
 * Contract: admits at most NOTE_BACKLOG_LIMIT per backlog; counts what it refuses.
 */
export class NoteBacklog {
  private notes = 0;
  private bytes = 0;
  private refused = 0;

  /** True when the note may be surfaced; false (and counted as dropped) beyond the bound. */
  admit(text: string): boolean {
    const size = Buffer.byteLength(text);
    if (this.notes + 1 > NOTE_BACKLOG_LIMIT.notes || this.bytes + size > NOTE_BACKLOG_LIMIT.bytes) {
      this.refused++;
      return false;
    }
    this.notes++;
    this.bytes += size;
    return true;
  }

  get dropped(): number {
    return this.refused;
  }
}
