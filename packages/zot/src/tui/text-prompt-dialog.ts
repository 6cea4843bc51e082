// A one-line input in a dialog: a session's new name, an API key (masked as `•`). Enter submits
// after validation (which may be asynchronous, e.g. one cheap request to check a key), Esc
// cancels, and a failed validation shows its message under the input and keeps the dialog open.
import {
  matchesKey,
  type Component,
  type Focusable,
  type OverlayOptions,
  type TUI,
} from '@mariozechner/pi-tui';
import { SafeInput } from './safe-input.js';
import { cut, footerLine, innerWidth, legend, oneLine, renderDialogFrame } from './dialog-frame.js';
import { isCancelKey, OneAnswer, showDialog } from './dialog-overlay.js';
import type { Theme } from './theme.js';

/** An error message, or undefined when the value is acceptable. */
export type Validation = string | undefined;

export interface TextPromptOptions {
  title: string;
  /** A line above the input (e.g. `API key for anthropic (from console.anthropic.com)`). */
  message?: string;
  initialValue?: string;
  /** Shows every character as `•` (API keys). */
  mask?: boolean;
  theme: Theme;
  /** Runs on Enter; a message keeps the dialog open and is shown in red. */
  validate?(value: string): Validation | Promise<Validation>;
  /** Shown while an asynchronous validation runs (default `checking…`). */
  checkingText?: string;
  /** Asked to redraw when an asynchronous validation ends (`tui.requestRender`). */
  requestRender?(): void;
  /** The accepted value. Called at most once, never after `onCancel`. */
  onSubmit(value: string): void;
  /** Esc or ctrl+c. Called at most once, never after `onSubmit`. */
  onCancel(): void;
}

const MASK = '•';

/**
 * Contract: never throws on input (a validator that throws counts as its message); keys other
 * than Esc are ignored while a validation runs; renders within any width.
 */
export class TextPromptDialog implements Component, Focusable {
  private readonly input = new SafeInput();
  private error: string | undefined;
  private checking = false;
  private readonly answer = new OneAnswer();
  private _focused = false;

  constructor(private readonly options: TextPromptOptions) {
    if (options.initialValue) {
      // Input places its cursor through typing; a paste puts it at the end of the initial value.
      this.input.handleInput(`\x1b[200~${options.initialValue}\x1b[201~`);
    }
  }

  get focused(): boolean {
    return this._focused;
  }
  set focused(value: boolean) {
    this._focused = value;
    this.input.focused = value;
  }

  /** The text typed so far. */
  get value(): string {
    return this.input.getValue();
  }

  /** Shows `message` as the error line (or clears it), e.g. after the caller's own check. */
  setError(message: string | undefined): void {
    this.error = message;
  }

  /** Closes as Esc does. */
  cancel(): void {
    this.answer.give(() => this.options.onCancel());
  }

  handleInput(data: string): void {
    if (this.answer.done) return;
    if (isCancelKey(data)) return this.cancel();
    if (this.checking) return;
    if (matchesKey(data, 'enter')) {
      this.submit();
      return;
    }
    const before = this.input.getValue();
    this.input.handleInput(data);
    if (this.input.getValue() !== before) this.error = undefined;
  }

  invalidate(): void {
    this.input.invalidate();
  }

  render(width: number): string[] {
    const { theme } = this.options;
    const inner = innerWidth(width);
    const body: string[] = [];
    if (this.options.message) body.push(theme.text(cut(oneLine(this.options.message), inner)));
    body.push(this.inputLine(inner));
    if (this.checking) body.push(theme.muted(cut(this.options.checkingText ?? 'checking…', inner)));
    else if (this.error) body.push(theme.error(cut(`✗ ${oneLine(this.error)}`, inner)));
    else body.push('');
    const keys = legend([
      ['enter', 'submit'],
      ['esc', 'cancel'],
    ]);
    return renderDialogFrame(
      { title: this.options.title, body, footer: [footerLine(theme, keys, '', inner)] },
      width,
      theme,
    );
  }

  private inputLine(width: number): string {
    if (!this.options.mask) return this.input.render(width)[0] ?? '';
    // Draw the same input with bullets in place of the characters: the same length keeps the
    // cursor where it is, and the real value is restored at once.
    const value = this.input.getValue();
    this.input.setValue(MASK.repeat(value.length));
    try {
      return this.input.render(width)[0] ?? '';
    } finally {
      this.input.setValue(value);
    }
  }

  /** Validates and submits; a synchronous validator answers before Enter returns. */
  private submit(): void {
    const value = this.input.getValue();
    let outcome: Validation | Promise<Validation>;
    try {
      outcome = this.options.validate?.(value);
    } catch (failure) {
      outcome = messageOf(failure);
    }
    if (!(outcome instanceof Promise)) return this.settle(value, outcome);
    this.checking = true;
    outcome.then(
      (error) => this.settle(value, error),
      (failure: unknown) => this.settle(value, messageOf(failure)),
    );
  }

  private settle(value: string, error: Validation): void {
    const wasChecking = this.checking;
    this.checking = false;
    if (this.answer.done) return;
    if (error !== undefined) {
      this.error = error;
      if (wasChecking) this.options.requestRender?.();
      return;
    }
    this.answer.give(() => this.options.onSubmit(value));
  }
}

function messageOf(failure: unknown): string {
  return failure instanceof Error ? failure.message : String(failure);
}

export interface ShowTextPromptOptions extends Omit<TextPromptOptions, 'onSubmit' | 'onCancel'> {
  overlay?: OverlayOptions;
}

/**
 * Shows the prompt as an overlay; `result` resolves with the accepted value, or undefined on
 * Esc, after the overlay is gone. Contract: never rejects.
 */
export function showTextPrompt(
  tui: TUI,
  options: ShowTextPromptOptions,
): { dialog: TextPromptDialog; result: Promise<string | undefined> } {
  return showDialog(
    tui,
    options.overlay,
    (close: (value: string | undefined) => void) =>
      new TextPromptDialog({
        requestRender: () => tui.requestRender(),
        ...options,
        onSubmit: close,
        onCancel: () => close(undefined),
      }),
  );
}
