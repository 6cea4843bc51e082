// Streaming markdown: the answer grows by deltas, so it is kept as a list of blocks split at
// blank lines outside code fences. Finished blocks keep their rendered lines (pi-tui's Markdown
// caches per text and width); only the last, still growing block is parsed again per frame, so
// the cost of a frame stays flat however long the answer gets.
import { Markdown, type Component, type MarkdownTheme } from '@mariozechner/pi-tui';
import { terminalSafeBlock } from '../util/terminal-text.js';
import { highlightLines } from './highlight.js';
import type { Theme } from './theme.js';

/** Looks the styles up on every call, so a theme changed in place (`/theme`) takes effect. */
export function markdownTheme(theme: Theme): MarkdownTheme {
  return {
    heading: (text) => theme.bold(theme.heading(text)),
    link: (text) => theme.link(text),
    linkUrl: (text) => theme.linkUrl(text),
    code: (text) => theme.code(text),
    codeBlock: (text) => theme.text(text),
    codeBlockBorder: (text) => theme.codeBlockBorder(text),
    quote: (text) => theme.italic(theme.quote(text)),
    quoteBorder: (text) => theme.border(text),
    hr: (text) => theme.border(text),
    listBullet: (text) => theme.listBullet(text),
    bold: (text) => theme.bold(text),
    italic: (text) => theme.italic(text),
    strikethrough: (text) => theme.strikethrough(text),
    underline: (text) => theme.underline(text),
    highlightCode: (code, lang) =>
      highlightLines(code, lang, theme) ?? code.split('\n').map((line) => theme.text(line)),
  };
}

/** Where the text can be cut into independent blocks: blank lines outside fences. */
function splitBlocks(text: string): string[] {
  const blocks: string[] = [];
  let fence: string | undefined;
  let current: string[] = [];
  const lines = text.split('\n');
  for (const [index, line] of lines.entries()) {
    // The last line is not finished (no newline yet): it cannot be a blank separator.
    const complete = index < lines.length - 1;
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker && (!fence || (marker[0] === fence[0] && marker.length >= fence.length))) {
      fence = fence ? undefined : marker;
    }
    if (!fence && complete && line.trim() === '' && current.length > 0) {
      blocks.push(current.join('\n'));
      current = [];
      continue;
    }
    // pi-tui draws level 3-6 headings with their `#`s: they are drawn as level 2 instead.
    current.push(!fence && !marker ? line.replace(/^( {0,3})#{3,6}(?=\s)/, '$1##') : line);
  }
  blocks.push(current.join('\n'));
  return blocks;
}

export class MarkdownView implements Component {
  private whole = '';
  /** Blocks that can no longer change (a blank line outside a fence came after them). */
  private readonly frozen: Markdown[] = [];
  /** The open block: the text after the last frozen block, parsed again as it grows. */
  private tail = '';
  private readonly open: Markdown;
  private readonly style: MarkdownTheme;

  constructor(theme: Theme, text = '') {
    this.style = markdownTheme(theme);
    this.open = new Markdown('', 0, 0, this.style);
    this.setText(text);
  }

  /** Adds streamed text: only the open block is split and parsed again. */
  append(delta: string): void {
    this.whole += delta;
    this.grow(this.tail + delta);
  }

  /** The whole text so far. */
  get text(): string {
    return this.whole;
  }

  /**
   * Replaces the whole text (the final message after interception). Blocks handed over by
   * `takeFrozen` are the caller's to take away.
   */
  setText(text: string): void {
    if (text === this.whole) return;
    this.whole = text;
    this.frozen.length = 0;
    this.frozenLines = undefined;
    this.grow(text);
  }

  private grow(tail: string): void {
    const parts = splitBlocks(tail);
    for (const part of parts.slice(0, -1)) {
      this.frozen.push(new Markdown(terminalSafeBlock(part), 0, 0, this.style));
    }
    this.tail = parts.at(-1)!;
    this.open.setText(terminalSafeBlock(this.tail));
  }

  /**
   * Hands over the blocks frozen since the last call, as components of their own (a streamed
   * answer's finished blocks then sit in the chat's settled log, drawn once), and stops drawing
   * them itself: it then draws only what follows them. Drawn one after the other with a blank
   * line between, they and this view show what this view showed alone.
   */
  takeFrozen(): Component[] {
    if (this.frozen.length === 0) return [];
    const parts = this.frozen.splice(0).map((block) => new MarkdownBlock(block));
    this.frozenLines = undefined;
    return parts;
  }

  invalidate(): void {
    for (const block of this.frozen) block.invalidate();
    this.open.invalidate();
    this.frozenLines = undefined;
  }

  /** The frozen blocks' lines, kept per width: a frame then only renders the open block. */
  private frozenLines: { width: number; count: number; lines: string[] } | undefined;

  private renderFrozen(width: number): string[] {
    const cached = this.frozenLines;
    if (cached && cached.width === width && cached.count === this.frozen.length)
      return cached.lines;
    // Blocks frozen since the last frame are added to what was there; a new width starts over.
    const reuse = cached && cached.width === width && cached.count < this.frozen.length;
    const lines = reuse ? [...cached.lines] : [];
    for (const block of this.frozen.slice(reuse ? cached.count : 0))
      appendBlock(lines, block, width);
    this.frozenLines = { width, count: this.frozen.length, lines };
    return lines;
  }

  render(width: number): string[] {
    const lines = [...this.renderFrozen(width)];
    appendBlock(lines, this.open, width);
    return lines;
  }
}

/** A block's lines; a block of one blank line has none. */
function blockLines(block: Markdown, width: number): string[] {
  return block.render(width).filter((line, _, all) => all.length > 1 || line.trim() !== '');
}

/** One finished block of a streamed answer (MarkdownView.takeFrozen). */
class MarkdownBlock implements Component {
  constructor(private readonly block: Markdown) {}
  render(width: number): string[] {
    return blockLines(this.block, width);
  }
  invalidate(): void {
    this.block.invalidate();
  }
}

/** Appends a block's lines, a blank line between blocks; a block of nothing adds nothing. */
function appendBlock(lines: string[], block: Markdown, width: number): void {
  const rendered = blockLines(block, width);
  if (rendered.length === 0) return;
  if (lines.length > 0) lines.push('');
  lines.push(...rendered);
}
