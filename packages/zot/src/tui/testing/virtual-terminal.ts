// A pi-tui Terminal backed by @xterm/headless, for screen tests: what the user would see, cell by
// cell, including scrollback, without a real terminal. Test-only (the bundle never imports it).
import xterm from '@xterm/headless';
import type { Component, Terminal } from '@mariozechner/pi-tui';

export interface VirtualTerminalOptions {
  columns?: number;
  rows?: number;
  scrollback?: number;
  /** Keep every byte written, in `recorded` (for tests that check what reached the terminal). */
  record?: boolean;
}

/**
 * Contract: `write` is asynchronous in xterm; call `flush()` before reading the screen. Every
 * byte written is also counted in `bytesWritten` (for the rendering benchmarks).
 */
export class VirtualTerminal implements Terminal {
  readonly xterm: InstanceType<typeof xterm.Terminal>;
  bytesWritten = 0;
  writes = 0;
  /** Everything written, when constructed with `record`. */
  recorded = '';
  private readonly record: boolean;
  private onInput: ((data: string) => void) | undefined;
  private onResize: (() => void) | undefined;
  private pending: Promise<void> = Promise.resolve();
  private waiters: Array<() => void> = [];

  constructor(options: VirtualTerminalOptions = {}) {
    this.record = options.record ?? false;
    this.xterm = new xterm.Terminal({
      cols: options.columns ?? 80,
      rows: options.rows ?? 24,
      scrollback: options.scrollback ?? 5000,
      allowProposedApi: true,
    });
  }

  start(onInput: (data: string) => void, onResize: () => void): void {
    this.onInput = onInput;
    this.onResize = onResize;
  }
  stop(): void {
    this.onInput = undefined;
    this.onResize = undefined;
  }
  async drainInput(): Promise<void> {}

  write(data: string): void {
    this.bytesWritten += Buffer.byteLength(data);
    this.writes++;
    if (this.record) this.recorded += data;
    const written = new Promise<void>((resolve) => this.xterm.write(data, resolve));
    this.pending = this.pending.then(() => written);
    for (const wake of this.waiters.splice(0)) wake();
  }
  get columns(): number {
    return this.xterm.cols;
  }
  get rows(): number {
    return this.xterm.rows;
  }
  get kittyProtocolActive(): boolean {
    return false;
  }
  moveBy(lines: number): void {
    if (lines > 0) this.write(`\x1b[${lines}B`);
    else if (lines < 0) this.write(`\x1b[${-lines}A`);
  }
  hideCursor(): void {
    this.write('\x1b[?25l');
  }
  showCursor(): void {
    this.write('\x1b[?25h');
  }
  clearLine(): void {
    this.write('\x1b[K');
  }
  clearFromCursor(): void {
    this.write('\x1b[J');
  }
  clearScreen(): void {
    this.write('\x1b[2J\x1b[H');
  }
  setTitle(): void {}
  setProgress(): void {}

  /** Types `data` as if the user pressed keys. */
  type(data: string): void {
    this.onInput?.(data);
  }

  resize(columns: number, rows: number): void {
    this.xterm.resize(columns, rows);
    this.onResize?.();
  }

  /** Resolves when everything written so far has been parsed by the terminal. */
  flush(): Promise<void> {
    return this.pending;
  }

  /** Resolves once the screen satisfies `ready`, checked again after every write. */
  async until(ready: (screen: string[]) => boolean): Promise<void> {
    for (;;) {
      const issued = this.writes;
      await this.flush();
      if (ready(this.screen())) return;
      if (this.writes === issued) await new Promise<void>((wake) => this.waiters.push(wake));
    }
  }

  /** The visible screen, one string per row, trailing spaces trimmed. */
  screen(): string[] {
    const buffer = this.xterm.buffer.active;
    const rows: string[] = [];
    for (let i = 0; i < this.xterm.rows; i++) {
      rows.push((buffer.getLine(buffer.viewportY + i)?.translateToString(true) ?? '').trimEnd());
    }
    return rows;
  }

  /** Scrollback and screen together, top to bottom, trailing empty rows dropped. */
  allLines(): string[] {
    const buffer = this.xterm.buffer.active;
    const rows: string[] = [];
    for (let i = 0; i < buffer.length; i++) {
      rows.push((buffer.getLine(i)?.translateToString(true) ?? '').trimEnd());
    }
    while (rows.length > 0 && rows.at(-1) === '') rows.pop();
    return rows;
  }

  /** The cell at (row, column) of the visible screen, with its colour attributes. */
  cell(row: number, column: number) {
    const buffer = this.xterm.buffer.active;
    const cell = buffer.getLine(buffer.viewportY + row)?.getCell(column);
    if (!cell) return undefined;
    return {
      char: cell.getChars(),
      fg: cell.getFgColor(),
      fgDefault: cell.isFgDefault(),
      bold: cell.isBold() !== 0,
      dim: cell.isDim() !== 0,
      inverse: cell.isInverse() !== 0,
    };
  }

  dispose(): void {
    this.xterm.dispose();
  }
}

/**
 * Renders one component at `columns` and returns its lines as a terminal shows them (escape
 * sequences applied, trailing spaces trimmed). Contract: every line must fit `columns`;
 * a wider one is reported, since pi-tui would refuse to draw it.
 */
export async function renderLines(component: Component, columns: number): Promise<string[]> {
  const lines = component.render(columns);
  const terminal = new VirtualTerminal({ columns, rows: Math.max(1, lines.length) });
  try {
    terminal.write(lines.join('\r\n'));
    await terminal.flush();
    return terminal.allLines();
  } finally {
    terminal.dispose();
  }
}
