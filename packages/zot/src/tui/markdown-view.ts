// Streaming markdown: the answer grows by deltas, so it is kept as a list of blocks split at
// blank lines outside code fences. Finished blocks keep their rendered lines (pi-tui's Markdown
// caches per text and width); only the last, still growing block is parsed again per frame, so
// the cost of a frame stays flat however long the answer gets.
import { Markdown, type Component, type MarkdownTheme } from '@mariozechner/pi-tui';
import { terminalSafeBlock } from '../util/terminal-text.js';
import { highlightLines } from './highlight.js';
import type { Theme } from './theme.js';

export function markdownTheme(theme: Theme): MarkdownTheme {
  return {
    heading: (text) => theme.bold(theme.heading(text)),
    link: theme.link,
    linkUrl: theme.linkUrl,
    code: theme.code,
    codeBlock: theme.text,
    codeBlockBorder: theme.codeBlockBorder,
    quote: (text) => theme.italic(theme.quote(text)),
    quoteBorder: theme.border,
    hr: theme.border,
    listBullet: theme.listBullet,
    bold: theme.bold,
    italic: theme.italic,
    strikethrough: theme.strikethrough,
    underline: theme.underline,
    highlightCode: (code, lang) =>
      highlightLines(code, lang, theme) ?? code.split('\n').map((line) => theme.text(line)),
  };
}

/** Where the text can be cut into independent blocks: blank lines outside fences. */
function splitBlocks(text: string): string[] {
  const blocks: string[] = [];
  let fence: string | undefined;
  let current: string[] = [];
  for (const line of text.split('\n')) {
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker && (!fence || (marker[0] === fence[0] && marker.length >= fence.length))) {
      fence = fence ? undefined : marker;
    }
    if (!fence && line.trim() === '' && current.length > 0) {
      blocks.push(current.join('\n'));
      current = [];
      continue;
    }
    current.push(line);
  }
  blocks.push(current.join('\n'));
  return blocks;
}

export class MarkdownView implements Component {
  private text = '';
  private readonly blocks: Markdown[] = [];
  private readonly style: MarkdownTheme;

  constructor(theme: Theme, text = '') {
    this.style = markdownTheme(theme);
    this.setText(text);
  }

  append(delta: string): void {
    this.setText(this.text + delta);
  }

  setText(text: string): void {
    if (text === this.text && this.blocks.length > 0) return;
    this.text = text;
    const parts = splitBlocks(terminalSafeBlock(text));
    for (let i = 0; i < parts.length; i++) {
      const existing = this.blocks[i];
      if (existing) existing.setText(parts[i]!);
      else this.blocks.push(new Markdown(parts[i]!, 0, 0, this.style));
    }
    this.blocks.length = parts.length;
  }

  get content(): string {
    return this.text;
  }

  invalidate(): void {
    for (const block of this.blocks) block.invalidate();
  }

  render(width: number): string[] {
    const lines: string[] = [];
    for (const [index, block] of this.blocks.entries()) {
      const rendered = block
        .render(width)
        .filter((line, _, all) => all.length > 1 || line.trim() !== '');
      if (rendered.length === 0) continue;
      if (index > 0 && lines.length > 0) lines.push('');
      lines.push(...rendered);
    }
    return lines;
  }
}
