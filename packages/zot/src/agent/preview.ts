// The one-line summary of a tool call that the tool_call event and the confirmation show.
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

/**
 * The tool's own preview, else (unknown tool, no preview, a throw, not a string) the
 * arguments as compact JSON cut to PREVIEW_JSON_CHARS.
 * Contract: never throws; always one line (line breaks become ` ↵ `).
 */
export function previewCall(tool: Tool | undefined, args: Record<string, unknown>): string {
  let text: unknown;
  try {
    text = tool?.preview?.(args);
  } catch {
    text = undefined;
  }
  if (typeof text !== 'string') return compactJson(args);
  return text.replace(/\s*[\r\n]+\s*/g, ' ↵ ');
}
