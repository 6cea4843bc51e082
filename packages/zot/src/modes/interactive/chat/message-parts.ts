// The parts of a message the chat view draws: its text, a bash call's command, a write call's
// file, a merged branch's label, a context's size in tokens, a count.
import { MERGE_MARK } from '../../../contract/branches.js';

/** `950`, `12.3k`, `128k`: a context's size. */
export function tokenCount(n: number): string {
  if (n < 1000) return String(n);
  return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
}

/** The command a bash call runs, shown whole in its expanded row. */
export function commandOf(name: string, args: Record<string, unknown>): string | undefined {
  return name === 'bash' && typeof args.command === 'string' ? args.command : undefined;
}

/** The file a write call writes, shown in its row once written. */
export function writtenOf(
  name: string,
  args: Record<string, unknown>,
): { path: string; content: string } | undefined {
  return name === 'write' && typeof args.path === 'string' && typeof args.content === 'string'
    ? { path: args.path, content: args.content }
    : undefined;
}

export function textOf(content: ReadonlyArray<{ type: string; text?: string }>): string {
  return content
    .map((block) =>
      block.type === 'text' ? (block.text ?? '') : block.type === 'image' ? '[image]' : '',
    )
    .join('');
}

/** A merged branch's context message (/merge), drawn folded: its label, the text behind ctrl+o. */
export function mergedBlock(text: string): { headline: string; body: string } | undefined {
  if (!text.startsWith(MERGE_MARK)) return undefined;
  const newline = text.indexOf('\n');
  const label = (newline === -1 ? text : text.slice(0, newline)).slice(MERGE_MARK.length).trim();
  return { headline: `merged ${label}`, body: newline === -1 ? '' : text.slice(newline).trim() };
}

/** `1,234`: a count as people read it (not toLocaleString, whose first call loads ICU's formats). */
export function groupedCount(n: number): string {
  return String(Math.trunc(n)).replace(/\B(?=(\d{3})+$)/g, ',');
}
