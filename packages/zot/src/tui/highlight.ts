// Code highlighting for fenced blocks and written files: cli-highlight, loaded in the
// background when the chat starts (it is large); until it is there, and for unknown languages,
// code stays plain. Tokens take the theme's colours (not chalk's, which follow its own guess of
// the terminal), so a theme and NO_COLOR decide, as for every other widget.
import { LoadOnce } from '../util/load-once.js';
import type { Style, Theme } from './theme.js';

type TokenStyles = Record<string, Style>;

interface Highlighter {
  highlight(
    code: string,
    options: { language: string; ignoreIllegals: boolean; theme?: TokenStyles },
  ): string;
  supportsLanguage(name: string): boolean;
  DEFAULT_THEME?: Record<string, unknown>;
}

/** The theme role each kind of token takes; the kinds not named here stay plain. */
function roleOf(token: string, theme: Theme): Style | undefined {
  if (/^(keyword|selector-tag|meta-keyword|doctag|section)$/.test(token)) return theme.toolName;
  if (/^(string|regexp|meta-string|addition|template-tag)$/.test(token)) return theme.success;
  if (/^(number|literal|symbol|bullet|link)$/.test(token)) return theme.warning;
  if (/^(comment|quote|meta)$/.test(token)) return theme.muted;
  if (/^(built_in|builtin-name|type|class|tag|name|selector-id|selector-class)$/.test(token))
    return theme.info;
  if (/^(title|function|attr|attribute|variable|template-variable)$/.test(token))
    return theme.accent;
  if (token === 'deletion') return theme.error;
  return undefined;
}

const tokenStyles = new WeakMap<Theme, TokenStyles>();

/** Styles each line of a token apart: the code is split into lines after it is styled. */
const perLine =
  (style: Style): Style =>
  (text) =>
    text.includes('\n')
      ? text
          .split('\n')
          .map((line) => (line === '' ? line : style(line)))
          .join('\n')
      : style(text);

function stylesFor(theme: Theme, kinds: readonly string[]): TokenStyles {
  let styles = tokenStyles.get(theme);
  if (!styles) {
    styles = { default: perLine(theme.text) };
    for (const kind of kinds) styles[kind] = perLine(roleOf(kind, theme) ?? theme.text);
    tokenStyles.set(theme, styles);
  }
  return styles;
}
// Without it (a damaged install) code stays plain.
const highlighter = new LoadOnce(() =>
  import('cli-highlight').then(
    (module) => module as unknown as Highlighter,
    () => undefined,
  ),
);

/** Starts loading the highlighter; safe to call often. Contract: never rejects. */
export async function preloadHighlighter(): Promise<void> {
  await highlighter.load();
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
  const loaded = highlighter.now;
  if (!loaded || !theme.color || !lang) return undefined;
  try {
    if (!loaded.supportsLanguage(lang)) return undefined;
    const styles = stylesFor(theme, Object.keys(loaded.DEFAULT_THEME ?? {}));
    return loaded
      .highlight(code, { language: lang, ignoreIllegals: true, theme: styles })
      .split('\n');
  } catch {
    return undefined;
  }
}
