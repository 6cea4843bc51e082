// The one place where untrusted text (from extensions, manifests, file names, the model) is
// made safe to write to a terminal: control characters and escape sequences are shown escaped
// instead of being interpreted. JSON and RPC output keep the raw strings; only what a person's
// terminal renders goes through here.

// C0 controls, DEL, C1 controls (0x9b is a one-byte CSI), line/paragraph separators, and the
// bidirectional overrides and isolates that can make text display in another order.
const UNSAFE = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const UNSAFE_KEEP_NEWLINES =
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r' };

function escapeChar(char: string): string {
  const named = NAMED[char];
  if (named) return named;
  const code = char.charCodeAt(0);
  return code <= 0xff
    ? `\\x${code.toString(16).padStart(2, '0')}`
    : `\\u${code.toString(16).padStart(4, '0')}`;
}

/**
 * Text for a terminal, kept to what it says: every control character (ESC included, so no
 * escape sequence survives) is replaced by a visible escape such as `\x1b` or `\r`; tabs stay.
 * With `multiline`, LF is kept as a line break; otherwise it is shown as `\n` too.
 * Contract: never throws; safe text comes back unchanged (the same string).
 */
export function terminalSafe(text: string, options: { multiline?: boolean } = {}): string {
  const pattern = options.multiline ? UNSAFE_KEEP_NEWLINES : UNSAFE;
  pattern.lastIndex = 0;
  if (!pattern.test(text)) return text;
  pattern.lastIndex = 0;
  return text.replace(pattern, escapeChar);
}

/** Multi-line text (notes, displayed blocks, answers): line breaks kept, the rest escaped. */
export function terminalSafeBlock(text: string): string {
  return terminalSafe(text, { multiline: true });
}
