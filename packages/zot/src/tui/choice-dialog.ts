// A question with a few fixed answers: a title, a block of untrusted text to judge by (a tool's
// preview, what an extension would run), then numbered answers. Enter takes the highlighted one,
// arrows and Tab move, digits pick by number, letter shortcuts answer at once, Esc (and ctrl+c)
// gives the cancel answer. Used by the tool confirmation and the trust dialog.
import { matchesKey, type Component, type OverlayOptions, type TUI } from '@mariozechner/pi-tui';
import { terminalSafeBlock } from '../util/terminal-text.js';
import {
  cut,
  DIALOG_OVERLAY,
  footerLine,
  innerWidth,
  legend,
  renderDialogFrame,
} from './dialog-frame.js';
import type { Theme } from './theme.js';

export interface Choice<T> {
  value: T;
  label: string;
  /** A letter that answers at once (`y`, `n`), case-insensitive. */
  key?: string;
}

export interface ChoiceDialogOptions<T> {
  title: string;
  /** What to judge by. May span lines; untrusted text, shown escaped. */
  preview: string;
  choices: ReadonlyArray<Choice<T>>;
  /** The answer Esc and ctrl+c give. */
  cancel: T;
  theme: Theme;
  /** Preview lines shown before `… N more lines` (default 12). */
  maxPreviewLines?: number;
  /** The key legend's extra entries, e.g. `['y', 'yes']`. */
  legend?: ReadonlyArray<[string, string]>;
  /** How a preview line is styled (default: the theme's tool preview). */
  previewStyle?: (line: string) => string;
  /** Called exactly once, with the answer. */
  onChoice(choice: T): void;
}

/** Contract: `onChoice` is called once; keys after it are ignored; renders within any width. */
export class ChoiceDialog<T> implements Component {
  private highlighted = 0;
  private answered = false;

  constructor(private readonly options: ChoiceDialogOptions<T>) {}

  /** The answer Enter would give now. */
  get current(): T {
    return this.options.choices[this.highlighted]!.value;
  }

  /** Answers for the user (a caller whose question went away meanwhile): cancel by default. */
  answer(choice: T = this.options.cancel): void {
    if (this.answered) return;
    this.answered = true;
    this.options.onChoice(choice);
  }

  handleInput(data: string): void {
    if (this.answered) return;
    const { choices } = this.options;
    if (matchesKey(data, 'escape') || matchesKey(data, 'ctrl+c')) return this.answer();
    const shortcut = choices.find(
      (choice) => choice.key !== undefined && data.toLowerCase() === choice.key.toLowerCase(),
    );
    if (shortcut) return this.answer(shortcut.value);
    if (matchesKey(data, 'enter')) return this.answer(this.current);
    if (matchesKey(data, 'up') || matchesKey(data, 'shift+tab')) {
      this.highlighted = (this.highlighted + choices.length - 1) % choices.length;
      return;
    }
    if (matchesKey(data, 'down') || matchesKey(data, 'tab')) {
      this.highlighted = (this.highlighted + 1) % choices.length;
      return;
    }
    const digit = /^[1-9]$/.test(data) ? Number(data) : 0;
    if (digit >= 1 && digit <= choices.length) this.answer(choices[digit - 1]!.value);
  }

  invalidate(): void {}

  render(width: number): string[] {
    const { theme } = this.options;
    const style = this.options.previewStyle ?? theme.toolPreview;
    const inner = innerWidth(width);
    const body: string[] = [];
    const preview = terminalSafeBlock(this.options.preview.replace(/\t/g, '  ')).split('\n');
    while (preview.length > 0 && preview.at(-1)!.trim() === '') preview.pop();
    const max = Math.max(1, this.options.maxPreviewLines ?? 12);
    const shown = preview.length > max ? preview.slice(0, max - 1) : preview;
    for (const line of shown) body.push(style(cut(line, inner)));
    if (shown.length < preview.length) {
      const more = preview.length - shown.length;
      body.push(theme.muted(cut(`… ${more} more line${more === 1 ? '' : 's'}`, inner)));
    }
    body.push('');
    this.options.choices.forEach(({ label }, i) => {
      const text = cut(`${i + 1}. ${label}`, inner - 2);
      body.push(
        i === this.highlighted
          ? theme.selected('› ') + theme.bold(theme.selected(text))
          : '  ' + theme.text(text),
      );
    });
    const keys = legend([['↑↓', 'move'], ['enter', 'choose'], ...(this.options.legend ?? [])]);
    return renderDialogFrame(
      { title: this.options.title, body, footer: [footerLine(theme, keys, '', inner)] },
      width,
      theme,
    );
  }
}

export interface ShowChoiceDialogOptions<T> extends Omit<ChoiceDialogOptions<T>, 'onChoice'> {
  overlay?: OverlayOptions;
  /** Aborting gives the cancel answer and closes the dialog. */
  signal?: AbortSignal;
}

/**
 * Shows the question as an overlay and resolves with the answer; the overlay is gone and focus
 * restored by then. Contract: never rejects.
 */
export function showChoiceDialog<T>(
  tui: TUI,
  options: ShowChoiceDialogOptions<T>,
): { dialog: ChoiceDialog<T>; result: Promise<T> } {
  let resolve!: (choice: T) => void;
  const result = new Promise<T>((r) => (resolve = r));
  const onAbort = () => dialog.answer();
  const dialog = new ChoiceDialog<T>({
    ...options,
    maxPreviewLines: options.maxPreviewLines ?? Math.max(3, Math.min(12, tui.terminal.rows - 14)),
    onChoice: (choice) => {
      options.signal?.removeEventListener('abort', onAbort);
      handle.hide();
      resolve(choice);
    },
  });
  const handle = tui.showOverlay(dialog, options.overlay ?? DIALOG_OVERLAY);
  if (options.signal?.aborted) onAbort();
  else options.signal?.addEventListener('abort', onAbort, { once: true });
  return { dialog, result };
}
