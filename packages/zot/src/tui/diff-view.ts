// The edit tool's change as numbered, coloured lines: old and new line numbers, `-` removed in
// the removed colour, `+` added in the added colour, context dimmed; hunks separated by `⋯`.
import type { EditDetails } from '../contract/tool-details.js';
import { cut } from './dialog-frame.js';
import { terminalSafe } from '../util/terminal-text.js';
import type { Theme } from './theme.js';

/** Plain lines of the diff (numbers and markers included), each with the style it takes. */
export function diffLines(
  details: EditDetails,
): Array<{ text: string; kind: '+' | '-' | ' ' | '⋯' }> {
  const last = details.hunks.at(-1);
  const widest = last
    ? Math.max(last.old_start + last.old_lines, last.new_start + last.new_lines)
    : 1;
  const digits = String(widest).length;
  const out: Array<{ text: string; kind: '+' | '-' | ' ' | '⋯' }> = [];
  for (const [index, hunk] of details.hunks.entries()) {
    if (index > 0) out.push({ text: '⋯', kind: '⋯' });
    let oldLine = hunk.old_start;
    let newLine = hunk.new_start;
    for (const raw of hunk.lines) {
      const marker = raw[0];
      const body = terminalSafe(raw.slice(1));
      if (marker === '-') {
        out.push({ text: `${String(oldLine++).padStart(digits)} - ${body}`, kind: '-' });
      } else if (marker === '+') {
        out.push({ text: `${String(newLine++).padStart(digits)} + ${body}`, kind: '+' });
      } else if (marker === ' ') {
        out.push({ text: `${String(newLine).padStart(digits)}   ${body}`, kind: ' ' });
        oldLine++;
        newLine++;
      }
    }
  }
  return out;
}

/** Styles diff lines for `width` columns (cut, never wrapped, so numbers stay aligned). */
export function styleDiffLine(
  line: { text: string; kind: '+' | '-' | ' ' | '⋯' },
  width: number,
  theme: Theme,
): string {
  const text = cut(line.text, width);
  if (line.kind === '+') return theme.diffAdded(text);
  if (line.kind === '-') return theme.diffRemoved(text);
  if (line.kind === '⋯') return theme.muted(text);
  return theme.diffContext(text);
}
