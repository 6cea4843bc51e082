// The app's own keys, asked before the editor (key-actions.ts lists them; the keybindings file
// may move them): Esc cancels the running turn and the queue (its messages go back into the
// editor; on an idle, empty editor Esc Esc opens /rewind), Ctrl+C clears the editor or (pressed
// twice within two seconds) exits, Ctrl+D exits from an empty editor, Ctrl+O expands or
// collapses every tool result and thinking block, Alt+Up takes the last queued message back;
// the rest (thinking, models, suspend, the external editor) are handed to `handlers`.
import type { Keybinding } from '@mariozechner/pi-tui';
import type { Theme } from '../../tui/theme.js';
import type { AppKeyAction } from './key-actions.js';
import { appKeybindings } from './keybindings.js';
import type { Notes } from './notes.js';
import type { InteractiveSession } from '../../contract/front-end.js';

/** How long a first Ctrl+C waits for the second. */
export const EXIT_WINDOW_MS = 2000;
/** How long a first Esc on an idle, empty editor waits for the second (which opens /rewind). */
export const REWIND_WINDOW_MS = 2000;

export interface KeysControllerOptions {
  session: InteractiveSession;
  theme: Theme;
  notes: Notes;
  editor: { readonly text: string; setText(text: string): void; isShowingAutocomplete(): boolean };
  /** The messages waiting behind the running turn, as last published (steering first). */
  queued?: () => readonly string[];
  toggleExpanded(): void;
  exit(): void;
  /** Esc Esc on an idle, empty editor: the /rewind dialog. */
  rewind?(): void;
  /** The other app actions; one without a handler is left to the editor. */
  handlers?: Partial<Record<AppKeyAction, () => void>>;
  /** Which key is which action; the installed keybindings otherwise. */
  keybindings?: { matches(data: string, action: Keybinding): boolean };
  /** Injected for tests; `Date.now` otherwise. */
  now?: () => number;
  /** Injected for tests; `setTimeout` otherwise (clears the hint when the window closes). */
  setTimer?: (fn: () => void, ms: number) => { unref?(): unknown };
}

export const EXIT_HINT_KEY = 'keys:exit';
export const CANCEL_NOTE_KEY = 'keys:cancel';
export const REWIND_HINT_KEY = 'keys:rewind';

/** Contract: `handle` returns true for a key it used (the editor then never sees it). */
export class KeysController {
  private armedAt: number | undefined;
  private escapedAt: number | undefined;

  constructor(private readonly options: KeysControllerOptions) {}

  handle(data: string): boolean {
    const keys = this.options.keybindings ?? appKeybindings();
    const is = (action: AppKeyAction) => keys.matches(data, action);
    const { editor } = this.options;
    // Only two presses of Esc in a row open /rewind.
    if (this.escapedAt !== undefined && !is('app.interrupt')) this.disarmRewind();
    if (is('app.clear')) return this.ctrlC();
    // Ctrl+D exits from an empty editor; with text it deletes forward, as in a shell.
    if (is('app.exit') && editor.text === '') {
      this.options.exit();
      return true;
    }
    if (is('app.tools.expand')) {
      this.options.toggleExpanded();
      return true;
    }
    // Alt+Up: the last queued message comes back into the editor to be changed (and sent again).
    if (is('app.queue.takeBack') && editor.text === '') {
      const text = this.options.session.unqueueLast();
      if (text === undefined) return false;
      editor.setText(text);
      return true;
    }
    if (is('app.interrupt')) {
      // An open autocomplete list closes first (the editor does that).
      if (editor.isShowingAutocomplete()) return false;
      this.escape();
      return true;
    }
    for (const [action, handler] of Object.entries(this.options.handlers ?? {})) {
      if (!handler || !is(action as AppKeyAction)) continue;
      handler();
      return true;
    }
    return false;
  }

  /**
   * Esc: clears the extensions' notes; cancels the running turn and what waits behind it. The
   * waiting messages are not lost: they go back into the editor, above what it holds, to be
   * changed and sent again.
   */
  escape(): void {
    const { session, notes, theme, editor } = this.options;
    notes.deletePrefix('ext:');
    if (!session.busy) return this.idleEscape();
    this.disarmRewind();
    const waiting = this.options.queued?.() ?? [];
    const dropped = session.cancel();
    const back = dropped > 0 ? waiting : [];
    if (back.length > 0) editor.setText([...back, editor.text].filter((t) => t !== '').join('\n'));
    const what = back.length === 1 ? 'the queued message is' : `${back.length} queued messages are`;
    notes.set(
      CANCEL_NOTE_KEY,
      theme.muted(back.length > 0 ? `cancelled · ${what} back in the editor` : 'cancelled'),
    );
  }

  /** A first Esc on an empty editor arms the second, which opens /rewind. */
  private idleEscape(): void {
    const { rewind, editor, notes, theme } = this.options;
    if (!rewind || editor.text !== '') return this.disarmRewind();
    const now = (this.options.now ?? Date.now)();
    if (this.escapedAt !== undefined && now - this.escapedAt <= REWIND_WINDOW_MS) {
      this.disarmRewind();
      rewind();
      return;
    }
    const armed = (this.escapedAt = now);
    notes.set(REWIND_HINT_KEY, theme.muted('press esc again to rewind'));
    const timer = (this.options.setTimer ?? setTimeout)(() => {
      if (this.escapedAt === armed) this.disarmRewind();
    }, REWIND_WINDOW_MS);
    timer.unref?.();
  }

  private disarmRewind(): void {
    this.escapedAt = undefined;
    this.options.notes.delete(REWIND_HINT_KEY);
  }

  private ctrlC(): boolean {
    const { editor, notes, theme, session } = this.options;
    const now = (this.options.now ?? Date.now)();
    if (editor.text !== '') {
      editor.setText('');
      this.disarm();
      return true;
    }
    if (this.armedAt !== undefined && now - this.armedAt <= EXIT_WINDOW_MS) {
      this.disarm();
      this.options.exit();
      return true;
    }
    this.armedAt = now;
    const hint = session.busy
      ? 'press ctrl+c again to exit · esc to cancel'
      : 'press ctrl+c again to exit';
    notes.set(EXIT_HINT_KEY, theme.muted(hint));
    const armed = this.armedAt;
    const timer = (this.options.setTimer ?? setTimeout)(() => {
      if (this.armedAt === armed) this.disarm();
    }, EXIT_WINDOW_MS);
    timer.unref?.();
    return true;
  }

  private disarm(): void {
    this.armedAt = undefined;
    this.options.notes.delete(EXIT_HINT_KEY);
  }
}
