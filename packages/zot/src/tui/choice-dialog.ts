// A question with a few fixed answers: a title, a block of untrusted text to judge by (a tool's
// call, what an extension would run), then numbered answers. The text is shown whole: wrapped,
// never cut, with nothing able to hide in it (tui/reveal-text.ts); taller than its room, it
// scrolls (pgup/pgdn, home/end) and says which rows are shown. Enter takes the highlighted
// answer, arrows and Tab move, digits pick by number, letter shortcuts answer at once, Esc (and
// ctrl+c) gives the cancel answer. Used by the tool confirmation and the trust dialog.
import {
  matchesKey,
  visibleWidth,
  wrapTextWithAnsi,
  type Component,
  type OverlayOptions,
  type TUI,
} from '@mariozechner/pi-tui';
import { cut, footerLines, innerWidth, renderDialogFrame } from './dialog-frame.js';
import { isCancelKey, OneAnswer, showDialog } from './dialog-overlay.js';
import { revealText, type Revealed } from './reveal-text.js';
import type { Theme } from './theme.js';

export interface Choice<T> {
  value: T;
  label: string;
  /** A letter that answers at once (`y`, `n`), case-insensitive. */
  key?: string;
}

export interface ChoiceDialogOptions<T> {
  title: string;
  /** What to judge by. May span lines; untrusted text, shown whole and escaped. */
  preview: string;
  choices: ReadonlyArray<Choice<T>>;
  /** The answer Esc and ctrl+c give. */
  cancel: T;
  theme: Theme;
  /** Rows the preview may take before it scrolls (default 12); read at every frame. */
  maxPreviewRows?: number | (() => number);
  /** Say above the preview how many lines it has, and number them (a command, arguments). */
  countLines?: boolean;
  /** The key legend's extra entries, e.g. `['y', 'yes']`. */
  legend?: ReadonlyArray<[string, string]>;
  /** How preview text is styled (default: the theme's tool preview). */
  previewStyle?: (line: string) => string;
  /** A style for a whole preview line chosen by its text (a diff's + and - lines). */
  previewLineStyle?: (line: string) => ((text: string) => string) | undefined;
  /** Called exactly once, with the answer. */
  onChoice(choice: T): void;
}

/**
 * Contract: `onChoice` is called once; keys after it are ignored; renders within any width;
 * every character of the preview can be brought on screen.
 */
export class ChoiceDialog<T> implements Component {
  private highlighted = 0;
  private readonly reply = new OneAnswer();
  /** The first preview row shown. */
  private top = 0;
  /** The preview's rows at the last frame (scrolling moves within them). */
  private rows = 0;
  private room = 1;
  private layout: { width: number; result: Revealed } | undefined;

  constructor(private readonly options: ChoiceDialogOptions<T>) {}

  /** The answer Enter would give now. */
  get current(): T {
    return this.options.choices[this.highlighted]!.value;
  }

  /** Answers for the user (a caller whose question went away meanwhile): cancel by default. */
  answer(choice: T = this.options.cancel): void {
    this.reply.give(() => this.options.onChoice(choice));
  }

  handleInput(data: string): void {
    if (this.reply.done) return;
    const { choices } = this.options;
    if (isCancelKey(data)) return this.answer();
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
    const page = Math.max(1, this.room - 1);
    if (matchesKey(data, 'pageDown')) return this.scroll(page);
    if (matchesKey(data, 'pageUp')) return this.scroll(-page);
    if (matchesKey(data, 'end')) return this.scroll(this.rows);
    if (matchesKey(data, 'home')) return this.scroll(-this.rows);
    const digit = /^[1-9]$/.test(data) ? Number(data) : 0;
    if (digit >= 1 && digit <= choices.length) this.answer(choices[digit - 1]!.value);
  }

  private scroll(by: number): void {
    this.top = Math.max(0, Math.min(this.top + by, this.rows - this.room));
  }

  /** A theme change restyles the preview. */
  invalidate(): void {
    this.layout = undefined;
  }

  private maxRows(): number {
    const max = this.options.maxPreviewRows;
    return Math.max(1, Math.floor((typeof max === 'function' ? max() : max) ?? 12));
  }

  render(width: number): string[] {
    const { theme, countLines } = this.options;
    const inner = innerWidth(width);
    const body: string[] = [];
    // Laid out once per width: a long call takes a moment to lay out, and frames come often.
    if (this.layout?.width !== inner) {
      const result = revealText(this.options.preview, inner, theme, {
        style: this.options.previewStyle ?? theme.toolPreview,
        numbered: countLines ?? false,
        ...(this.options.previewLineStyle ? { lineStyle: this.options.previewLineStyle } : {}),
      });
      this.layout = { width: inner, result };
    }
    const revealed = this.layout.result;
    const rows = revealed.rows;
    // An answer is wrapped, not cut (what "always" writes matters); its extra rows come out of
    // the preview's room, so the dialog keeps its height.
    const answers = this.options.choices.map(({ label }, i) =>
      wrapLabel(`${i + 1}. ${label}`, inner - 2),
    );
    const extra = answers.reduce((n, rows) => n + rows.length - 1, 0);
    const max = Math.max(1, this.maxRows() - extra);
    const scrolls = rows.length > max;
    // While it scrolls, one of its rows says what is below.
    this.rows = rows.length;
    this.room = scrolls ? Math.max(1, max - 1) : rows.length;
    this.top = Math.max(0, Math.min(this.top, rows.length - this.room));
    const about: string[] = [];
    if (countLines) about.push(`${revealed.lines} line${revealed.lines === 1 ? '' : 's'}`);
    if (scrolls) about.push(`rows ${this.top + 1}-${this.top + this.room} of ${rows.length}`);
    if (about.length > 0) body.push(theme.warning(cut(about.join(' · '), inner)));
    body.push(...rows.slice(this.top, this.top + this.room));
    if (scrolls) {
      const below = rows.length - this.top - this.room;
      body.push(
        theme.warning(
          cut(
            below > 0
              ? `↓ ${below} more row${below === 1 ? '' : 's'} (pgdn)`
              : '(end; pgup goes back)',
            inner,
          ),
        ),
      );
    }
    body.push('');
    answers.forEach((rows, i) => {
      const chosen = i === this.highlighted;
      rows.forEach((row, r) => {
        const head = r > 0 ? '     ' : chosen ? theme.selected('› ') : '  ';
        body.push(head + (chosen ? theme.bold(theme.selected(row)) : theme.text(row)));
      });
    });
    const keys: Array<readonly [string, string]> = [
      ['↑↓', 'move'],
      ['enter', 'choose'],
      ...(this.options.legend ?? []),
      ...(scrolls ? ([['pgup/pgdn', 'scroll']] as Array<[string, string]>) : []),
    ];
    return renderDialogFrame(
      { title: this.options.title, body, footer: footerLines(theme, keys, '', inner) },
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
  const onAbort = () => shown.dialog.answer();
  const shown = showDialog(
    tui,
    options.overlay,
    (close: (choice: T) => void) =>
      new ChoiceDialog<T>({
        ...options,
        maxPreviewRows: options.maxPreviewRows ?? (() => previewRoom(tui.terminal.rows, options)),
        onChoice: (choice) => {
          options.signal?.removeEventListener('abort', onAbort);
          close(choice);
        },
      }),
  );
  if (options.signal?.aborted) onAbort();
  else options.signal?.addEventListener('abort', onAbort, { once: true });
  return shown;
}

/**
 * The preview rows that leave the rest of the dialog on a screen of `rows`: the overlay takes
 * at most 90% of it; the frame, the lines above and below the preview, a blank line and the
 * answers stay.
 */
export function previewRoom(rows: number, options: { choices: ReadonlyArray<unknown> }): number {
  return Math.max(3, Math.floor(rows * 0.9) - 8 - options.choices.length);
}

/** An answer's label in rows of `width`: word-wrapped; rows after the first are 3 narrower. */
function wrapLabel(text: string, width: number): string[] {
  if (visibleWidth(text) <= width) return [text];
  const [first = '', ...rest] = wrapTextWithAnsi(text, Math.max(1, width));
  const more = rest.join(' ');
  return [cut(first, width), ...(more ? wrapTextWithAnsi(more, Math.max(1, width - 3)) : [])].map(
    (row) => cut(row, width),
  );
}
