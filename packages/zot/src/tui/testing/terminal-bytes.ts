// Checks on the raw bytes a program wrote to a terminal (test-only): text zot shows must never
// reach it as anything but text. The sequences zot and pi-tui write themselves are allowed: SGR
// colours, cursor moves, pi-tui's full redraw, its hyperlink reset (OSC 8), zot's background
// query (OSC 11), its OSC 133;A prompt mark exactly, and a window title (OSC 0) that is zot's
// own: "zot …" with nothing a title must not carry. Everything else an escape could do (OSC 52 writes the clipboard, OSC 0 the
// title, a bare clear screen) or a character that reorders or hides text is a hazard.
import { terminalSafe } from '../../util/terminal-text.js';

/**
 * Hostile text as a model, an extension, a session file or a file name could carry it: an OSC 52
 * clipboard write, a clear screen, a C1 CSI, a right-to-left override, a zero-width space.
 */
export const HOSTILE = 'X\x1b]52;c;SEFDSw==\x07\x1b[2JY\u009b2J\u202eZ\u200bW';
/** HOSTILE as a terminal must show it: one line of visible escapes. */
export const HOSTILE_SHOWN = terminalSafe(HOSTILE);

const ALLOWED_OSC = new Set(['8', '11']);
const PROMPT_MARK = '\x1b]133;A\x07';
/** An OSC 0 title up to its BEL or ST; the payload is checked by `zotTitle`. */
const TITLE = /^\x1b\]0;([^\x07\x1b]*)(?:\x07|\x1b\\)/;
/** A title as zot writes it: begins with "zot", no control, bidirectional or invisible character. */
const zotTitle = (payload: string) =>
  payload.startsWith('zot') &&
  !/[\u0000-\u001f\u007f-\u009f]/.test(payload) &&
  !INVISIBLE.test(payload);
const PI_FULL_REDRAW = '\x1b[2J\x1b[H\x1b[3J';
// Joiners (U+200C, U+200D) and variation selectors are left out: emoji and scripts need them.
const INVISIBLE =
  /[\u0080-\u009f\u200b\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff\u{e0000}-\u{e007f}]/u;

/** What in `raw` (terminal output, decoded as UTF-8) could do more than show text. */
export function terminalHazards(raw: string): string[] {
  const found: string[] = [];
  for (const match of raw.matchAll(/\x1b\](\d*)/g)) {
    if (ALLOWED_OSC.has(match[1]!) || raw.startsWith(PROMPT_MARK, match.index)) continue;
    const title = match[1] === '0' ? TITLE.exec(raw.slice(match.index, match.index + 512)) : null;
    if (title && zotTitle(title[1]!)) continue;
    found.push(`OSC ${match[1]} at ${match.index}`);
  }
  for (const match of raw.matchAll(/\x1b\[2J/g)) {
    if (!raw.startsWith(PI_FULL_REDRAW, match.index)) found.push(`clear screen at ${match.index}`);
  }
  for (const match of raw.matchAll(/\x1b[P^X]/g)) found.push(`DCS/PM/SOS at ${match.index}`);
  const invisible = INVISIBLE.exec(raw);
  if (invisible) {
    const code = invisible[0].codePointAt(0)!.toString(16);
    found.push(`U+${code.padStart(4, '0')} at ${invisible.index}`);
  }
  return found;
}
