// The prompt editor: pi-tui's Editor (made safe: tui/safe-input.ts) with a key hook in front of
// it, history persisted per project, and the routing of what is sent: a slash command, a shell
// command (`!cmd`, `!!cmd`), a prompt, a follow-up while a turn runs (Enter) or a steering
// message for the running turn (Alt+Enter).
import type { TUI } from '@mariozechner/pi-tui';
import { SafeEditor } from '../../tui/safe-input.js';
import { appKeybindings } from './keybindings.js';
import type { Theme } from '../../tui/theme.js';
import {
  CommandAutocompleteProvider,
  refreshSuggestions,
  useSuggestionList,
} from '../../tui/command-autocomplete.js';
import { appendHistory, loadHistory } from './history.js';
import { attachMentions } from './mentions.js';
import type { InteractiveSession } from '../../contract/front-end.js';

/**
 * Pi's Editor holding only safe text (an extension's insert, a history entry or a file name
 * with an escape sequence shows it escaped, and is sent as shown), with `onKey` asked first: a
 * key it returns true for never reaches the editor.
 */
export class PromptEditor extends SafeEditor {
  onKey?: (data: string) => boolean;

  override handleInput(data: string): void {
    // A key hook may read the text (alt+enter sends it): it is made safe first.
    this.keepSafe();
    if (this.onKey?.(data)) return;
    super.handleInput(data);
  }
}

export interface EditorControllerOptions {
  tui: TUI;
  theme: Theme;
  session: InteractiveSession;
  /** Runs a slash command (the commands controller). */
  runCommand(text: string): void;
  /** The history file of this project; none: history lives only in memory. */
  historyFile?: string;
  /** A problem worth a note (e.g. the history could not be saved). */
  warn(message: string): void;
  /** A typed prompt cannot be answered (`problem`: no API key); it was put back in the editor. */
  kept(problem: string): void;
  /** Where `@file` mentions are resolved and completed; none: no mentions, no completion. */
  cwd?: string;
}

/**
 * Contract: submitting never throws and never blocks the UI; an empty submission is ignored;
 * every sent text joins the history (in memory and in the file); a typed prompt that cannot be
 * answered (no API key) stays in the editor.
 */
export class EditorController {
  readonly editor: PromptEditor;
  private historyWarned = false;

  constructor(private readonly options: EditorControllerOptions) {
    const { theme } = options;
    this.editor = new PromptEditor(options.tui, {
      borderColor: theme.border,
      selectList: {
        selectedPrefix: theme.selected,
        selectedText: theme.selected,
        description: theme.muted,
        scrollInfo: theme.dim,
        noMatch: theme.muted,
      },
    });
    for (const entry of loadHistory(options.historyFile)) this.editor.addToHistory(entry);
    if (options.cwd) {
      const cwd = options.cwd;
      this.editor.setAutocompleteProvider(
        new CommandAutocompleteProvider({ commands: () => options.session.commands('tui'), cwd }),
      );
      // The pinned pi-tui has the hooks (tests check); without them pi-tui's own list stays.
      useSuggestionList(this.editor, theme, (line) => options.warn(line.trim()));
    }
    this.editor.onSubmit = (text) => this.submit(text, 'follow_up');
    this.editor.onKey = (data) => {
      // Alt+Enter steers; pi's editor would otherwise take it for a newline.
      if (!appKeybindings().matches(data, 'app.message.steer')) return false;
      const text = this.editor.getExpandedText().trim();
      this.editor.setText('');
      this.submit(text, 'steer');
      return true;
    };
  }

  get text(): string {
    return this.editor.getText();
  }

  /** The commands changed: an open suggestion list is made again from them. */
  refreshSuggestions(): void {
    refreshSuggestions(this.editor);
  }

  setText(text: string): void {
    this.editor.setText(text);
    this.options.tui.requestRender();
  }

  /** Puts `text` at the cursor (an extension's insert), not sent. */
  insert(text: string): void {
    this.editor.insertTextAtCursor(text);
    this.options.tui.requestRender();
  }

  /**
   * Sends `text`: a slash command goes to the commands controller; a prompt runs now, after
   * the running turn (follow_up) or joins the running turn (steer: a follow-up when idle).
   * What the user typed joins the history; what an extension submits does not.
   */
  submit(text: string, mode: 'follow_up' | 'steer', typed = true): void {
    const trimmed = text.trim();
    if (!trimmed) return;
    // `!cmd` runs a shell command (its output joins the context), `!!cmd` too (it does not).
    // Only what the user typed: an extension's submit is never run as a command.
    const shell = typed ? /^(!!?)\s*([\s\S]+)$/.exec(trimmed) : null;
    if (shell) {
      this.remember(trimmed);
      void this.options.session.shell(shell[2]!, shell[1] === '!');
      this.options.tui.requestRender();
      return;
    }
    const command = trimmed.startsWith('/') && !trimmed.startsWith('//');
    // A typed prompt that could not be answered (no key) is not lost: it goes back in the editor.
    const problem = typed && !command ? this.options.session.keyProblem() : undefined;
    if (problem !== undefined) {
      this.setText(trimmed);
      this.options.kept(problem);
      return;
    }
    if (typed) this.remember(trimmed);
    if (command) {
      // An extension may not lower a protection the user chose (the sandbox, asking).
      if (!typed && /^\/(sandbox|yolo)(\s|$)/i.test(trimmed)) {
        this.options.warn(`an extension tried to run ${trimmed.split(/\s/)[0]}; only you can`);
        return;
      }
      this.options.runCommand(trimmed);
      return;
    }
    // `//text` sends a prompt that starts with a slash.
    const prompt = trimmed.startsWith('//') ? trimmed.slice(1) : trimmed;
    const session = this.options.session;
    const attached = this.options.cwd
      ? attachMentions(prompt, this.options.cwd, (path) => session.readDenial?.(path))
      : undefined;
    for (const note of attached?.notes ?? []) this.options.warn(note);
    const origin = typed ? 'user' : 'extension';
    void this.options.session.prompt(
      attached?.text ?? prompt,
      attached?.images ?? [],
      mode,
      undefined,
      origin,
    );
    this.options.tui.requestRender();
  }

  private remember(text: string): void {
    this.editor.addToHistory(text);
    appendHistory(this.options.historyFile, text, (message) => {
      if (this.historyWarned) return;
      this.historyWarned = true;
      this.options.warn(message);
    });
  }
}
