// An extension's panel: title, lines and footer in a frame, drawn as an overlay that takes the
// keys. Lines are cut to the width (never wrapped into the frame); a panel taller than the
// screen scrolls (alt+up / alt+down, and it follows the end when new lines are added at the
// bottom). Text comes from an extension: it is made inert before it reaches the terminal.
import { matchesKey, truncateToWidth, type Component, type Focusable } from '@mariozechner/pi-tui';
import { terminalSafe } from '../util/terminal-text.js';
import { innerWidth, renderDialogFrame } from './dialog-frame.js';
import { isCancelKey } from './dialog-overlay.js';
import type { Theme } from './theme.js';

export interface PanelContent {
  title?: string;
  lines?: readonly string[];
  footer?: string;
}

/** The spec's key names (design D23); `rune` carries the typed text. */
export type PanelKeyName =
  | 'up'
  | 'down'
  | 'left'
  | 'right'
  | 'enter'
  | 'tab'
  | 'pageup'
  | 'pagedown'
  | 'home'
  | 'end'
  | 'backspace'
  | 'delete'
  | 'rune';

const NAMED: ReadonlyArray<[PanelKeyName, string]> = [
  ['up', 'up'],
  ['down', 'down'],
  ['left', 'left'],
  ['right', 'right'],
  ['enter', 'enter'],
  ['tab', 'tab'],
  ['pageup', 'pageUp'],
  ['pagedown', 'pageDown'],
  ['home', 'home'],
  ['end', 'end'],
  ['backspace', 'backspace'],
  ['delete', 'delete'],
];

/** A terminal key as the spec names it; undefined for keys a panel does not get. */
export function normalizePanelKey(data: string): { key: PanelKeyName; text?: string } | undefined {
  for (const [name, id] of NAMED) if (matchesKey(data, id as never)) return { key: name };
  // Printable text (one key, or a paste): each character in order is a rune.
  if (data.length > 0 && !/[\x00-\x1f\x7f]/.test(data)) return { key: 'rune', text: data };
  return undefined;
}

export interface PanelViewOptions {
  theme: Theme;
  /** Rows the panel may take (the terminal's height); the frame and footer included. */
  maxRows: () => number;
  /** A key for the extension, in the order typed. */
  onKey(key: PanelKeyName, text?: string): void;
  /** Esc or Ctrl+C: the user closes the panel. */
  onClose(): void;
}

export class PanelView implements Component, Focusable {
  focused = false;
  private content: PanelContent = {};
  private offset = 0;
  private followEnd = true;

  constructor(private readonly options: PanelViewOptions) {}

  set(content: PanelContent): void {
    this.content = { ...this.content, ...content };
  }

  handleInput(data: string): void {
    if (isCancelKey(data)) return this.options.onClose();
    if (matchesKey(data, 'alt+up')) return this.scroll(-1);
    if (matchesKey(data, 'alt+down')) return this.scroll(1);
    const key = normalizePanelKey(data);
    if (!key) return;
    if (key.key === 'rune') {
      // A paste or a burst arrives as one string: the extension gets one rune per character.
      for (const char of key.text!) this.options.onKey('rune', char);
    } else this.options.onKey(key.key);
  }

  private scroll(by: number): void {
    this.offset = Math.max(0, this.offset + by);
    this.followEnd = false;
  }

  invalidate(): void {}

  render(width: number): string[] {
    const { theme } = this.options;
    const lines = (this.content.lines ?? []).map((line) => terminalSafe(line));
    const room = Math.max(1, this.options.maxRows() - 4);
    const max = Math.max(0, lines.length - room);
    if (this.followEnd && lines.length > room) this.offset = max;
    this.offset = Math.min(this.offset, max);
    const shown = lines.slice(this.offset, this.offset + room);
    const inner = innerWidth(width);
    const body = shown.map((line) => truncateToWidth(line, inner, '…'));
    const more =
      lines.length > room
        ? ` · ${this.offset + 1}-${this.offset + shown.length}/${lines.length} (alt+↑↓ scroll)`
        : '';
    return renderDialogFrame(
      {
        title: terminalSafe(this.content.title ?? 'panel'),
        body,
        footer: [
          theme.muted(
            truncateToWidth(
              `${terminalSafe(this.content.footer ?? 'esc close')}${more}`,
              inner,
              '…',
            ),
          ),
        ],
      },
      width,
      theme,
    );
  }
}
