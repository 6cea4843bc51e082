// What a tool call is shown as: the one-line summary of the tool_call event and the tool row,
// and the whole of it that a confirmation shows.
import type { Tool } from './tool.js';

/** Cut of the JSON fallback, in characters. */
export const PREVIEW_JSON_CHARS = 120;

function compactJson(args: Record<string, unknown>): string {
  let text: string;
  try {
    text = JSON.stringify(args) ?? '{}';
  } catch {
    text = '{…}'; // not JSON-able (a cycle or a BigInt from an interceptor's rewrite)
  }
  return text.length > PREVIEW_JSON_CHARS ? `${text.slice(0, PREVIEW_JSON_CHARS - 1)}…` : text;
}

/** What the tool's own `preview` or `detail` returns: undefined when it has none or it throws. */
function toolsOwn(
  tool: Tool | undefined,
  which: 'preview' | 'detail',
  args: Record<string, unknown>,
): unknown {
  try {
    return tool?.[which]?.(args);
  } catch {
    return undefined;
  }
}

/**
 * The tool's own preview, else (unknown tool, no preview, a throw, not a string) the
 * arguments as compact JSON cut to PREVIEW_JSON_CHARS.
 * Contract: never throws; always one line (line breaks become ` ↵ `).
 */
export function previewCall(tool: Tool | undefined, args: Record<string, unknown>): string {
  const text = toolsOwn(tool, 'preview', args);
  if (typeof text !== 'string') return compactJson(args);
  return text.replace(/\s*[\r\n]+\s*/g, ' ↵ ');
}

/** Characters of a call's detail a confirmation shows; past it, it says how much is left out. */
export const MAX_DETAIL_CHARS = 64 * 1024;

/**
 * Everything the call will do, for a person deciding whether it runs: the tool's own detail,
 * else (unknown tool, none, a throw, not a string) every argument as indented JSON. Never cut
 * silently: past MAX_DETAIL_CHARS the text ends with a line saying how much is not shown.
 * Contract: never throws.
 */
export function detailCall(tool: Tool | undefined, args: Record<string, unknown>): string {
  let text = toolsOwn(tool, 'detail', args);
  if (typeof text !== 'string') {
    try {
      text = JSON.stringify(args, null, 2) ?? '{}';
    } catch {
      text = compactJson(args);
    }
  }
  const detail = text as string;
  if (detail.length <= MAX_DETAIL_CHARS) return detail;
  const left = detail.length - MAX_DETAIL_CHARS;
  return `${detail.slice(0, MAX_DETAIL_CHARS)}\n[… ${left} more characters not shown]`;
}
