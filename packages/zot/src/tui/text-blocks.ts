// The chat's plain blocks: the user's prompt (collapsed after a few lines), the model's
// reasoning (dimmed, collapsible), and one-shot lines (errors, notices, displayed blocks).
import {
  type Component,
  truncateToWidth,
  visibleWidth,
  wrapTextWithAnsi,
} from '@mariozechner/pi-tui';
import { terminalSafeBlock } from '../util/terminal-text.js';
import type { Style, Theme } from './theme.js';

/** Lines a long prompt or reasoning block shows while collapsed. */
export const COLLAPSED_PROMPT_LINES = 6;
export const COLLAPSED_THINKING_LINES = 3;

function wrapAll(
  text: string,
  width: number,
  style: Style,
  prefix: string,
  rest: string,
): string[] {
  // The prefix is styled: its width is what it shows, not its length with the escapes.
  const inner = Math.max(1, width - visibleWidth(prefix));
  const lines = terminalSafeBlock(text)
    .split('\n')
    .flatMap((line) => (line === '' ? [''] : wrapTextWithAnsi(line, inner)));
  return lines.map((line, i) => truncateToWidth((i === 0 ? prefix : rest) + style(line), width));
}

/** Collapses `lines` to `keep` plus a line saying how many more there are. */
function collapse(lines: string[], keep: number, expanded: boolean, theme: Theme, width: number) {
  if (expanded || lines.length <= keep + 1) return lines;
  const hidden = lines.length - keep;
  const note = `  … ${hidden} more lines, ${lines.length} total (ctrl+o to expand)`;
  return [...lines.slice(0, keep), truncateToWidth(theme.muted(note), width)];
}

export class UserMessageBlock implements Component {
  expanded = false;
  constructor(
    private readonly text: string,
    private readonly theme: Theme,
    /** A zero-width escape the caller owns, put before the first line (a terminal's prompt mark). */
    private readonly mark = '',
  ) {}
  invalidate(): void {}
  render(width: number): string[] {
    const { theme } = this;
    const style = (s: string) => theme.bold(theme.userMessage(s));
    const lines = wrapAll(this.text, width, style, theme.accent('› '), '  ');
    const shown = collapse(lines, COLLAPSED_PROMPT_LINES, this.expanded, theme, width);
    if (this.mark !== '' && shown.length > 0) shown[0] = this.mark + shown[0];
    return shown;
  }
}

export class ThinkingBlock implements Component {
  expanded = false;
  /** Hidden (ctrl+t): one line says it is there. */
  hidden = false;
  private text = '';
  constructor(private readonly theme: Theme) {}
  append(delta: string): void {
    this.text += delta;
  }
  get empty(): boolean {
    return this.text.trim() === '';
  }
  invalidate(): void {}
  render(width: number): string[] {
    if (this.empty) return [];
    const { theme } = this;
    if (this.hidden) {
      return [truncateToWidth(theme.thinking('∴ ') + theme.muted('thinking (hidden)'), width)];
    }
    const style = (s: string) => theme.dim(theme.italic(theme.thinking(s)));
    const lines = wrapAll(this.text.trim(), width, style, theme.thinking('∴ '), '  ');
    return collapse(lines, COLLAPSED_THINKING_LINES, this.expanded, theme, width);
  }
}

/** A block of text in one style (an error, a notice, a displayed block), wrapped to the width. */
export class StyledBlock implements Component {
  constructor(
    private readonly text: string,
    private readonly style: Style,
    private readonly prefix = '',
    /** Trusted, already styled text on its own line above. */
    private readonly heading?: string,
  ) {}
  invalidate(): void {}
  render(width: number): string[] {
    const body = wrapAll(this.text, width, this.style, this.prefix, ' '.repeat(this.prefix.length));
    return this.heading === undefined ? body : [truncateToWidth(this.heading, width), ...body];
  }
}

/**
 * A one-line headline with a body that shows only when expanded (ctrl+o): a compaction and the
 * summary it left. Both are plain text, made safe here.
 */
export class FoldedBlock implements Component {
  expanded = false;
  constructor(
    private readonly headline: string,
    private readonly body: string,
    private readonly theme: Theme,
  ) {}
  invalidate(): void {}
  render(width: number): string[] {
    const { theme } = this;
    const hint = this.expanded || this.body.trim() === '' ? '' : ' (ctrl+o to expand)';
    const head = wrapAll(`${this.headline}${hint}`, width, theme.muted, theme.accent('⟳ '), '  ');
    if (!this.expanded || this.body.trim() === '') return head;
    return [...head, ...wrapAll(this.body.trim(), width, theme.muted, '  ', '  ')];
  }
}
