// One tool call as a compact row: the tool and its one-line preview, a spinner and the elapsed
// seconds while it runs (how long it took once it finished; expanded, the whole command a
// bash call ran), then a collapsed result with the exact count and the key to expand:
// the head of the output (read and most tools), the tail (bash, streamed live), or a numbered
// diff (edit, an extension's diff details), an aligned table (an extension's table details) or
// the content a `write` call wrote, highlighted.
// Errors are red; an extension's tool carries its name.
import {
  type Component,
  truncateToWidth,
  visibleWidth,
  wrapTextWithAnsi,
} from '@mariozechner/pi-tui';
import type { EditDetails, TableDetails } from '../contract/tool-details.js';
import { terminalSafeBlock } from '../util/terminal-text.js';
import { cut, oneLine } from './dialog-frame.js';
import { diffLines, styleDiffLine, type DiffLine } from './diff-view.js';
import { fitsWidth } from './fitted-frame.js';
import { highlightLines } from './highlight.js';
import { tableLines } from './table-view.js';
import type { Theme } from './theme.js';
import { MAX_WRITTEN_LINES, WrittenContent } from './written-content.js';

export const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
/** Lines of output a collapsed row shows. */
export const COLLAPSED_LINES = 5;
const EXPAND_KEY = 'ctrl+o';

/** How long a finished call took: `0.4s`, `12s`, `2m 5s`. */
export function duration(ms: number): string {
  const seconds = Math.max(0, ms) / 1000;
  if (seconds < 10) return `${seconds.toFixed(1)}s`;
  if (seconds < 60) return `${Math.floor(seconds)}s`;
  return `${Math.floor(seconds / 60)}m ${Math.floor(seconds % 60)}s`;
}

export type ToolRowStatus = 'pending' | 'running' | 'done' | 'error';

export interface ToolRowOptions {
  theme: Theme;
  name: string;
  /** Which end of long output matters: `head` (a file's start) or `tail` (a command's end). */
  show?: 'head' | 'tail';
  now?: () => number;
}

export class ToolRow implements Component {
  private preview = '';
  private status: ToolRowStatus = 'pending';
  private output = '';
  private diff: EditDetails | undefined;
  private table: TableDetails | undefined;
  private extension: string | undefined;
  private readonly startedAt: number;
  private endedAt: number | undefined;
  expanded = false;
  private readonly now: () => number;

  constructor(private readonly options: ToolRowOptions) {
    this.now = options.now ?? Date.now;
    this.startedAt = this.now();
  }

  get name(): string {
    return this.options.name;
  }
  get running(): boolean {
    return this.status === 'pending' || this.status === 'running';
  }

  /**
   * The call is running: its one-line preview, the extension that provides the tool, the
   * command it runs (bash), shown whole when the row is expanded, and the file it writes
   * (write), shown once it is written.
   */
  start(
    preview: string,
    extension?: string,
    command?: string,
    written?: { path: string; content: string },
  ): void {
    this.preview = preview;
    this.status = 'running';
    if (extension !== undefined) this.extension = extension;
    if (command !== undefined) this.command = command;
    if (written !== undefined) this.toWrite = written;
  }

  private command: string | undefined;
  private toWrite: { path: string; content: string } | undefined;
  /** What the call wrote, once the write succeeded. */
  private written: WrittenContent | undefined;
  /** The diff's lines, worked out once (word changes cost a comparison a pair). */
  private diffShown: DiffLine[] | undefined;

  /** Live output (bash): appended as it comes. */
  progress(text: string): void {
    // Whether the output ends a line is kept, not read back: endsWith on the string being
    // built flattens it, which made every line cost the whole output so far.
    const piece = this.output === '' || this.outputEndsLine ? text : `\n${text}`;
    this.output += piece;
    if (piece !== '') this.outputEndsLine = piece.charCodeAt(piece.length - 1) === 10;
  }

  private outputEndsLine = false;

  finish(result: {
    isError: boolean;
    output: string;
    diff?: EditDetails;
    /** An extension's table for the UI (its text output is what the model got). */
    table?: TableDetails;
    extension?: string;
    /** False for a call read back from a session file: how long it took is not known. */
    timed?: boolean;
    /**
     * The bytes the write tool reports it wrote: the content from the call is shown only when
     * its size matches (an extension may have changed the arguments before the write).
     */
    wroteBytes?: number;
  }): void {
    const toWrite = this.toWrite;
    this.toWrite = undefined;
    if (toWrite && !result.isError && result.wroteBytes !== undefined) {
      const written = new WrittenContent(toWrite.content, toWrite.path);
      if (written.bytes === result.wroteBytes) this.written = written;
    }
    this.status = result.isError ? 'error' : 'done';
    this.output = result.output;
    this.outputEndsLine = result.output.endsWith('\n');
    this.diff = result.isError ? undefined : result.diff;
    this.diffShown = undefined;
    this.table = result.isError ? undefined : result.table;
    this.extension = result.extension ?? this.extension;
    this.endedAt = result.timed === false ? undefined : this.now();
  }

  invalidate(): void {}

  private header(width: number): string {
    const { theme } = this.options;
    const seconds = Math.floor(((this.endedAt ?? this.now()) - this.startedAt) / 1000);
    const mark = this.running
      ? theme.accent(SPINNER[Math.floor((this.now() - this.startedAt) / 80) % SPINNER.length]!)
      : this.status === 'error'
        ? theme.error('✗')
        : theme.success('✓');
    const time = this.running
      ? ` ${seconds}s`
      : this.endedAt !== undefined
        ? ` ${duration(this.endedAt - this.startedAt)}`
        : '';
    const from = this.extension ? ` [${oneLine(this.extension)}]` : '';
    // The name comes from the model (or a session file): shown, never interpreted.
    const name = oneLine(this.options.name);
    const fixed = 2 + visibleWidth(name) + time.length + from.length + 1;
    const preview = cut(oneLine(this.preview), Math.max(0, width - fixed));
    const text =
      `${mark} ${theme.bold(theme.toolName(cut(name, width - 2)))}` +
      (preview ? ` ${theme.toolPreview(preview)}` : '') +
      theme.muted(time) +
      (from ? theme.extensionName(from) : '');
    return text;
  }

  private bodyLines(width: number): string[] {
    const { theme } = this.options;
    const inner = Math.max(1, width - 4);
    const indent = (line: string) => `    ${line}`;
    if (this.diff && this.diff.hunks.length > 0) {
      const lines = (this.diffShown ??= diffLines(this.diff));
      const counts = theme.muted(`+${this.diff.added} -${this.diff.removed}`);
      const shown = this.expanded ? lines : lines.slice(0, COLLAPSED_LINES * 2);
      const out = [
        indent(counts),
        ...shown.flatMap((line) => styleDiffLine(line, inner, theme, this.expanded).map(indent)),
      ];
      if (shown.length < lines.length)
        out.push(indent(this.moreLine(lines.length - shown.length, lines.length)));
      return out;
    }
    if (this.table) {
      const lines = tableLines(this.table.columns, this.table.rows, inner, theme);
      // Header and rule stay; rows collapse like output lines.
      const shown = this.expanded ? lines : lines.slice(0, COLLAPSED_LINES + 2);
      const out = shown.map((line) => indent(line));
      const hidden = lines.length - shown.length;
      if (hidden > 0)
        out.push(indent(this.moreLine(hidden, this.table.rows.length, 'more', 'row')));
      else if (this.table.truncated)
        out.push(indent(theme.muted('… (the extension sent more rows than are shown)')));
      return out;
    }
    if (this.written) return this.writtenLines(inner);
    const tail = this.options.show === 'tail';
    const { shown, total } = this.expanded
      ? everyLine(this.output)
      : endLines(this.output, COLLAPSED_LINES, tail);
    if (total === 0) return [];
    const style = this.status === 'error' ? theme.error : theme.toolOutput;
    // Cut, never wrapped, while collapsed: a row's height is then the count it promises.
    const render = (line: string) =>
      this.expanded ? wrapTextWithAnsi(style(line), inner) : [style(cut(line, inner))];
    const body = shown.flatMap(render).map(indent);
    const hidden = total - shown.length;
    if (hidden === 0) return body;
    const more = indent(this.moreLine(hidden, total, tail ? 'earlier' : 'more'));
    return tail ? [more, ...body] : [...body, more];
  }

  /** The written file: its head while collapsed, every line (to a bound) wrapped when expanded. */
  private writtenLines(inner: number): string[] {
    const written = this.written!;
    const { theme } = this.options;
    const total = written.lineCount;
    const lines = this.expanded
      ? written.render(theme, inner, undefined, true)
      : written
          .render(theme, inner, COLLAPSED_LINES, false)
          .map((line) => (fitsWidth(line, inner) ? line : truncateToWidth(line, inner, '…')));
    const out = lines.map((line) => `    ${line}`);
    const shown = this.expanded
      ? Math.min(total, MAX_WRITTEN_LINES)
      : Math.min(total, COLLAPSED_LINES);
    if (shown < total) {
      out.push(
        `    ${
          this.expanded
            ? theme.muted(`… ${total - shown} more lines not drawn, ${total} total`)
            : this.moreLine(total - shown, total)
        }`,
      );
    }
    return out;
  }

  private moreLine(hidden: number, total: number, word = 'more', unit = 'line'): string {
    return this.options.theme.muted(
      `… ${hidden} ${word} ${unit}${hidden === 1 ? '' : 's'}, ${total} total (${EXPAND_KEY} to expand)`,
    );
  }

  /** The whole command, highlighted as shell, wrapped (never cut): shown when expanded. */
  private commandLines(width: number): string[] {
    const command = this.command;
    if (!this.expanded || command === undefined || command.trim() === '') return [];
    const { theme } = this.options;
    const safe = terminalSafeBlock(command.replace(/\n+$/, ''));
    const lines = highlightLines(safe, 'bash', theme) ?? safe.split('\n').map(theme.toolPreview);
    const inner = Math.max(1, width - 4);
    return lines.flatMap((line, i) =>
      wrapTextWithAnsi(line, inner).map((part, j) =>
        i === 0 && j === 0 ? `  $ ${part}` : `    ${part}`,
      ),
    );
  }

  render(width: number): string[] {
    const lines = [this.header(width), ...this.commandLines(width), ...this.bodyLines(width)];
    return lines.map((line) => (fitsWidth(line, width) ? line : truncateToWidth(line, width)));
  }
}

/** The output without its trailing line breaks. */
function trimmedEnd(output: string): number {
  let end = output.length;
  while (end > 0 && output.charCodeAt(end - 1) === 10) end--;
  return end;
}

function everyLine(output: string): { shown: string[]; total: number } {
  const text = terminalSafeBlock(output.slice(0, trimmedEnd(output)));
  if (text === '') return { shown: [], total: 0 };
  const shown = text.split('\n');
  return { shown, total: shown.length };
}

/**
 * The first or last `count` lines of the output, made safe, and how many lines it has: only
 * those lines are cleaned and split, so a collapsed row costs the same per frame however much
 * output streams into it (a flood of progress lines would otherwise redo it all every frame).
 * Line breaks are the only thing `terminalSafeBlock` keeps as they are, so counting them in
 * the raw text counts the safe text's lines.
 */
function endLines(
  output: string,
  count: number,
  tail: boolean,
): { shown: string[]; total: number } {
  const end = trimmedEnd(output);
  if (end === 0) return { shown: [], total: 0 };
  let total = 1;
  for (let at = output.indexOf('\n'); at !== -1 && at < end; at = output.indexOf('\n', at + 1))
    total++;
  let from = 0;
  let to = end;
  if (tail) {
    let breaks = 0;
    for (
      let at = output.lastIndexOf('\n', end - 1);
      at !== -1;
      at = output.lastIndexOf('\n', at - 1)
    ) {
      if (++breaks === count) {
        from = at + 1;
        break;
      }
    }
  } else {
    let breaks = 0;
    for (let at = output.indexOf('\n'); at !== -1 && at < end; at = output.indexOf('\n', at + 1)) {
      if (++breaks === count) {
        to = at;
        break;
      }
    }
  }
  return { shown: terminalSafeBlock(output.slice(from, to)).split('\n'), total };
}
