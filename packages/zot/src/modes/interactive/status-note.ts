// The short-lived status line above the editor (what /reload-ext and /copy report).
import type { Theme } from '../../tui/theme.js';
import { terminalSafe } from '../../util/terminal-text.js';
import type { Notes } from './notes.js';

/** How long a status line stays. */
const STATUS_NOTE_MS = 5000;
const STATUS_NOTE_KEY = 'status';

export class StatusNote {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly notes: Notes,
    private readonly theme: Theme,
    private readonly render: () => void,
  ) {}

  /** Shows `text` (plain; made safe for the terminal); a newer line gets its own five seconds. */
  show(text: string): void {
    this.notes.set(STATUS_NOTE_KEY, this.theme.success(terminalSafe(text)));
    if (this.timer) clearTimeout(this.timer);
    const timer = (this.timer = setTimeout(() => {
      this.notes.delete(STATUS_NOTE_KEY);
      this.render();
    }, STATUS_NOTE_MS));
    timer.unref?.();
    this.render();
  }
}
