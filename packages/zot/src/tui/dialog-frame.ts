// The bordered frame every dialog draws in (title, body, key legend), and the small text helpers
// dialogs and views share: cut plain text to a width with `…`, pad, and make untrusted text one
// safe line.
import { visibleWidth } from '@mariozechner/pi-tui';
import { terminalSafe } from '../util/terminal-text.js';
import type { Theme } from './theme.js';

const SEGMENTER = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/**
 * Plain (unstyled) text cut to at most `width` columns; a cut ends with `…`.
 * Contract: the result's visible width never exceeds `width`; style it after cutting.
 */
export function cut(text: string, width: number): string {
  if (width <= 0) return '';
  if (visibleWidth(text) <= width) return text;
  let out = '';
  let used = 0;
  for (const { segment } of SEGMENTER.segment(text)) {
    const w = visibleWidth(segment);
    if (used + w > width - 1) break;
    out += segment;
    used += w;
  }
  return out + '…';
}

/** `text` (may be styled) followed by spaces up to `width` columns. */
export function pad(text: string, width: number): string {
  return text + ' '.repeat(Math.max(0, width - visibleWidth(text)));
}

/**
 * Untrusted text as one terminal-safe line: runs of whitespace (newlines and tabs included)
 * become one space, control characters are shown escaped.
 */
export function oneLine(text: string): string {
  return terminalSafe(text.replace(/\s+/g, ' ').trim());
}

/** A key legend such as `↑↓ move · enter select · esc cancel`, as plain text. */
export function legend(keys: ReadonlyArray<readonly [key: string, action: string]>): string {
  return keys.map(([key, action]) => `${key} ${action}`).join(' · ');
}

/**
 * A footer line `legend … counter` of exactly `width` columns: the counter (such as `3/41`)
 * is right-aligned and always kept; the legend is cut to what is left.
 */
export function footerLine(theme: Theme, text: string, counter: string, width: number): string {
  const room = counter ? width - visibleWidth(counter) - 1 : width;
  if (room < 1) return theme.muted(cut(counter, width));
  const left = cut(text, room);
  const gap = ' '.repeat(Math.max(0, width - visibleWidth(left) - visibleWidth(counter)));
  return theme.muted(left) + gap + theme.muted(counter);
}

/**
 * A key legend on as many footer lines as `width` needs (each `key action` whole, never cut;
 * `counter` right-aligned on the first line): a narrow terminal still shows every key.
 */
export function footerLines(
  theme: Theme,
  keys: ReadonlyArray<readonly [key: string, action: string]>,
  counter: string,
  width: number,
): string[] {
  const texts: string[] = [];
  let current = '';
  for (const [key, action] of keys) {
    const entry = `${key} ${action}`;
    const room = texts.length === 0 && counter ? width - visibleWidth(counter) - 1 : width;
    const joined = current === '' ? entry : `${current} · ${entry}`;
    if (current !== '' && visibleWidth(joined) > room) {
      texts.push(current);
      current = entry;
    } else current = joined;
  }
  texts.push(current);
  return texts.map((text, i) => footerLine(theme, text, i === 0 ? counter : '', width));
}

export interface DialogFrameContent {
  /** Plain text, shown escaped on one line; cut to fit the top border. */
  title: string;
  /** Body lines, already styled and at most `innerWidth(width)` columns wide (wider ones are cut). */
  body: string[];
  /** Lines under a separator (a key legend, a counter), styled like the body. */
  footer?: string[];
}

/** The columns a frame of `width` leaves for its content (borders and one space each side). */
export function innerWidth(width: number): number {
  return Math.max(0, width - 4);
}

/**
 * Draws `content` in a rounded box exactly `width` columns wide.
 * Contract: no line exceeds `width` (body lines are cut with `…`); below 5 columns only the
 * body remains, cut to the width.
 */
export function renderDialogFrame(
  content: DialogFrameContent,
  width: number,
  theme: Theme,
): string[] {
  const inner = innerWidth(width);
  if (width < 5) return content.body.map((line) => fitStyled(line, width));
  const border = theme.border;
  const title = cut(oneLine(content.title), width - 5);
  const top =
    title === ''
      ? border(`╭${'─'.repeat(width - 2)}╮`)
      : border('╭─ ') +
        theme.bold(theme.accent(title)) +
        border(` ${'─'.repeat(Math.max(0, width - 5 - visibleWidth(title)))}╮`);
  const lines = [top];
  const row = (line: string) =>
    border('│') + ' ' + pad(fitStyled(line, inner), inner) + ' ' + border('│');
  for (const line of content.body) lines.push(row(line));
  if (content.footer && content.footer.length > 0) {
    lines.push(border(`├${'─'.repeat(width - 2)}┤`));
    for (const line of content.footer) lines.push(row(line));
  }
  lines.push(border(`╰${'─'.repeat(width - 2)}╯`));
  return lines;
}

/** A styled line kept within `width`: unchanged when it fits, else its plain text cut with `…`. */
function fitStyled(line: string, width: number): string {
  if (visibleWidth(line) <= width) return line;
  // Styling is dropped on an over-wide line rather than risk an escape sequence cut in half.
  return cut(stripAnsi(line), width);
}

const ANSI =
  /\x1b\[[0-9;:?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b_[^\x07\x1b]*(?:\x07|\x1b\\)/g;

/** `text` without escape sequences. */
export function stripAnsi(text: string): string {
  return text.replace(ANSI, '');
}

/** The list rows that fit a terminal of `terminalRows` beside `chrome` fixed rows (3 to `wanted`). */
export function listRowsFor(terminalRows: number, chrome: number, wanted: number): number {
  return Math.max(3, Math.min(wanted, terminalRows - chrome));
}
