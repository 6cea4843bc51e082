// What a `write` call wrote, as its row shows it: the file's lines, highlighted by the path's
// extension once the highlighter is loaded, the head while collapsed, every line (wrapped, up to
// a bound) when expanded. The content comes from the model: made safe before it is drawn.
import { wrapTextWithAnsi } from '@mariozechner/pi-tui';
import { terminalSafeBlock } from '../util/terminal-text.js';
import { highlightLines } from './highlight.js';
import type { Theme } from './theme.js';

/** Lines an expanded row draws at most; a count says how many more the file has. */
export const MAX_WRITTEN_LINES = 2_000;
/** Past this many characters the content is not highlighted (the highlighter is slow). */
const MAX_HIGHLIGHTED = 200_000;

/** Languages a file name implies when its extension is not one the highlighter knows. */
const LANGUAGE_OF: Record<string, string> = {
  mjs: 'javascript',
  cjs: 'javascript',
  mts: 'typescript',
  cts: 'typescript',
  jsonl: 'json',
  makefile: 'makefile',
  dockerfile: 'dockerfile',
};

/** The highlighter's name for the language of `path` (its extension), if any. */
export function languageOf(path: string): string | undefined {
  const name = path.split(/[\\/]/).pop()?.toLowerCase() ?? '';
  const dot = name.lastIndexOf('.');
  const key = dot > 0 ? name.slice(dot + 1) : name;
  if (key === '') return undefined;
  return LANGUAGE_OF[key] ?? key;
}

export class WrittenContent {
  /** The content's lines, made safe, split once. */
  private readonly lines: string[];
  private cache: { theme: Theme; lines: string[]; lit: boolean } | undefined;

  /** The content's size in UTF-8 bytes, as the write tool reports it. */
  readonly bytes: number;

  constructor(
    content: string,
    private readonly path: string,
  ) {
    this.bytes = Buffer.byteLength(content);
    const text = content.replace(/\n+$/, '');
    this.lines = text === '' ? [] : terminalSafeBlock(text).split('\n');
  }

  get lineCount(): number {
    return this.lines.length;
  }

  /**
   * The first `count` lines (every line up to MAX_WRITTEN_LINES when `count` is undefined),
   * styled, wrapped to `width` when `wrap`. Highlighted when possible: the whole file is
   * highlighted once, so a multi-line string or comment is coloured as in the file.
   */
  render(theme: Theme, width: number, count: number | undefined, wrap: boolean): string[] {
    const shown = Math.min(this.lines.length, count ?? MAX_WRITTEN_LINES);
    const styled = this.styled(theme).slice(0, shown);
    if (!wrap) return styled;
    return styled.flatMap((line) => wrapTextWithAnsi(line, Math.max(1, width)));
  }

  private styled(theme: Theme): string[] {
    const cached = this.cache;
    if (cached && cached.theme === theme && (cached.lit || !theme.color)) return cached.lines;
    const language = languageOf(this.path);
    const safe = this.lines.join('\n');
    const lit =
      safe.length <= MAX_HIGHLIGHTED && language
        ? highlightLines(safe, language, theme)
        : undefined;
    if (lit && lit.length === this.lines.length) {
      this.cache = { theme, lines: lit, lit: true };
      return lit;
    }
    // Not highlighted yet (the highlighter may still be loading): the next frame tries again.
    if (cached && cached.theme === theme) return cached.lines;
    const plain = this.lines.map((line) => theme.toolOutput(line));
    this.cache = { theme, lines: plain, lit: false };
    return plain;
  }
}
