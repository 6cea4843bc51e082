// How many terminal columns plain text takes: East Asian wide and fullwidth characters and
// emoji take two, combining marks and other zero-width characters none. For text laid out in
// columns outside the TUI's widgets (`/help`), which measure with pi-tui's own function.
import { eastAsianWidth } from 'get-east-asian-width';

const segmenter = new Intl.Segmenter();
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;
const ZERO_WIDTH = /^[\p{Mn}\p{Me}\p{Cf}\p{Cc}]+$/u;
const EMOJI = /\p{Emoji_Presentation}|\p{Extended_Pictographic}\uFE0F|\p{Regional_Indicator}/u;

/** Columns one grapheme cluster takes. */
function clusterWidth(cluster: string): number {
  if (ZERO_WIDTH.test(cluster)) return 0;
  if (EMOJI.test(cluster)) return 2;
  return eastAsianWidth(cluster.codePointAt(0)!);
}

/**
 * Terminal columns of `text` (one line, no escape sequences: callers make it terminal-safe).
 * Contract: pure, never throws.
 */
export function textWidth(text: string): number {
  if (PRINTABLE_ASCII.test(text)) return text.length;
  let width = 0;
  for (const { segment } of segmenter.segment(text)) width += clusterWidth(segment);
  return width;
}
