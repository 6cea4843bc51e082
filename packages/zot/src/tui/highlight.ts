// Code highlighting for fenced blocks: cli-highlight, loaded in the background when the chat
// starts (it is large); until it is there, and for unknown languages, code stays plain.
import type { Theme } from './theme.js';

interface Highlighter {
  highlight(code: string, options: { language: string; ignoreIllegals: boolean }): string;
  supportsLanguage(name: string): boolean;
}
let loaded: Highlighter | undefined;
let loading: Promise<void> | undefined;

/** Starts loading the highlighter; safe to call often. Contract: never rejects. */
export function preloadHighlighter(): Promise<void> {
  loading ??= import('cli-highlight').then(
    (module) => {
      loaded = module as unknown as Highlighter;
    },
    () => undefined,
  );
  return loading;
}

/**
 * Highlighted lines of `code` in `lang`, or undefined when highlighting is not possible now
 * (not loaded yet, no colour, unknown language). Contract: never throws.
 */
export function highlightLines(
  code: string,
  lang: string | undefined,
  theme: Theme,
): string[] | undefined {
  if (!loaded || !theme.color || !lang) return undefined;
  try {
    if (!loaded.supportsLanguage(lang)) return undefined;
    return loaded.highlight(code, { language: lang, ignoreIllegals: true }).split('\n');
  } catch {
    return undefined;
  }
}
