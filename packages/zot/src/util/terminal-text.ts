// The one place where untrusted text (from extensions, manifests, file names, the model) is
// made safe to write to a terminal: control characters and escape sequences are shown escaped
// instead of being interpreted, and characters that draw nothing (or reorder what is drawn) are
// shown as escapes too, so what a person reads is what the text holds. JSON and RPC output keep
// the raw strings; only what a person's terminal renders goes through here.

// C0 controls, DEL, C1 controls (0x9b is a one-byte CSI), line/paragraph separators, the
// bidirectional marks, overrides and isolates that can make text display in another order, and
// invisible characters: soft hyphen, combining grapheme joiner, Hangul and Khmer fillers, the
// Mongolian vowel separator, zero-width space, word joiner and invisible operators, the byte
// order mark, interlinear annotations, musical format characters, tag characters (which spell
// hidden ASCII), lone surrogates. Zero-width joiners and variation selectors are judged by
// their neighbours (see `keepsJoiner`).
const UNSAFE_CLASS =
  '\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f\\u00ad\\u034f\\u061c\\u115f\\u1160\\u17b4\\u17b5' +
  '\\u180e\\u200b-\\u200f\\u2028-\\u202e\\u2060-\\u206f\\u3164\\ufe00-\\ufe0f\\ufeff\\uffa0' +
  '\\ufff9-\\ufffb\\u{1d173}-\\u{1d17a}\\u{e0000}-\\u{e007f}\\u{e0100}-\\u{e01ef}\\ud800-\\udfff';
const UNSAFE = new RegExp(`[\\n${UNSAFE_CLASS}]`, 'gu');
const UNSAFE_KEEP_NEWLINES = new RegExp(`[${UNSAFE_CLASS}]`, 'gu');

const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** The visible escape for one character: `\x1b`, `\r`, `\u202e`, `\u{e0041}`. */
export function escapeChar(char: string): string {
  const named = NAMED[char];
  if (named) return named;
  const code = char.codePointAt(0)!;
  if (code <= 0xff) return `\\x${code.toString(16).padStart(2, '0')}`;
  if (code <= 0xffff) return `\\u${code.toString(16).padStart(4, '0')}`;
  return `\\u{${code.toString(16)}}`;
}

const UNSAFE_CHAR = new RegExp(`^[${UNSAFE_CLASS}]$`, 'u');

const isVariationSelector = (code: number) =>
  (code >= 0xfe00 && code <= 0xfe0f) || (code >= 0xe0100 && code <= 0xe01ef);

/** A character that draws something: printable, not a space, not unsafe (`ascii`: allowed). */
function visible(code: number | undefined, ascii: boolean): boolean {
  if (code === undefined || (code < 0x80 && !ascii)) return false;
  const char = String.fromCodePoint(code);
  return !/\s/u.test(char) && !UNSAFE_CHAR.test(char);
}

/** The code point before `offset` (a surrogate pair read whole), if any. */
function before(text: string, offset: number): { code: number; at: number } | undefined {
  if (offset <= 0) return undefined;
  const low = text.charCodeAt(offset - 1);
  const high = offset >= 2 ? text.charCodeAt(offset - 2) : 0;
  const pair = low >= 0xdc00 && low <= 0xdfff && high >= 0xd800 && high <= 0xdbff;
  const at = pair ? offset - 2 : offset - 1;
  return { code: text.codePointAt(at)!, at };
}

/**
 * Zero-width (non-)joiners and variation selectors carry meaning in emoji (👩‍💻, ❤️, 1️⃣) and in
 * scripts such as Persian or the Indic ones: there they stay. Anywhere else (next to ASCII or a
 * space, at an edge, in a run of invisible characters, where hidden data hides) they are shown
 * escaped. A selector stays after a drawn character; a joiner between two drawn non-ASCII ones
 * (one selector before it allowed: 🏳️‍🌈).
 */
function keepsJoiner(char: string, text: string, offset: number): boolean {
  const code = char.codePointAt(0)!;
  let previous = before(text, offset);
  if (isVariationSelector(code)) return visible(previous?.code, true);
  if (code !== 0x200c && code !== 0x200d) return false;
  if (previous && isVariationSelector(previous.code)) {
    const base = before(text, previous.at);
    if (!visible(base?.code, true)) return false;
    previous = base;
  }
  return visible(previous?.code, false) && visible(text.codePointAt(offset + 1), false);
}

/**
 * Text for a terminal, kept to what it says: every control character (ESC included, so no
 * escape sequence survives) and every invisible or reordering character is replaced by a visible
 * escape such as `\x1b`, `\r` or `\u202e`; tabs stay. With `multiline`, LF is kept as a line
 * break; otherwise it is shown as `\n` too.
 * Contract: never throws; safe text comes back unchanged (the same string); idempotent.
 */
export function terminalSafe(text: string, options: { multiline?: boolean } = {}): string {
  const pattern = options.multiline ? UNSAFE_KEEP_NEWLINES : UNSAFE;
  pattern.lastIndex = 0;
  if (!pattern.test(text)) return text;
  pattern.lastIndex = 0;
  let changed = false;
  const out = text.replace(pattern, (char: string, offset: number) => {
    if (keepsJoiner(char, text, offset)) return char;
    changed = true;
    return escapeChar(char);
  });
  return changed ? out : text;
}

/** Multi-line text (notes, displayed blocks, answers): line breaks kept, the rest escaped. */
export function terminalSafeBlock(text: string): string {
  return terminalSafe(text, { multiline: true });
}

/** A piece of text as `terminalSafeParts` cuts it. */
export interface SafePart {
  text: string;
  /** True: an escape standing for one character that is not shown as itself. */
  escape: boolean;
}

/**
 * `terminalSafe(text)` cut into its parts, so that a caller can style the escapes apart from
 * text that merely looks like one (a literal `\n` typed in a command). Line breaks are escapes.
 * Contract: the parts' texts joined are `terminalSafe(text)`; never throws.
 */
export function terminalSafeParts(text: string): SafePart[] {
  const parts: SafePart[] = [];
  let plain = '';
  let last = 0;
  for (const match of text.matchAll(UNSAFE)) {
    const char = match[0];
    const offset = match.index!;
    if (keepsJoiner(char, text, offset)) continue;
    plain += text.slice(last, offset);
    if (plain) parts.push({ text: plain, escape: false });
    plain = '';
    parts.push({ text: escapeChar(char), escape: true });
    last = offset + char.length;
  }
  plain += text.slice(last);
  if (plain) parts.push({ text: plain, escape: false });
  return parts;
}
