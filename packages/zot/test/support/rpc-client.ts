// A line-oriented client for `zot rpc` running as a real subprocess.
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { startZot, type RunOptions } from './zot.js';
import { hangGuard } from './timing.js';
import { checkOutputLine } from './rpc-schema.js';

export type Line = Record<string, unknown> & { type: string };

export class RpcClient {
  readonly lines: Line[] = [];
  /** Lines it returns false for are not kept in `lines` (so a flood can be counted cheaply). */
  keep: ((line: Line) => boolean) | undefined;
  stderr = '';
  private buffer = '';
  private waiters: Array<{
    match: (line: Line) => boolean;
    resolve: (line: Line) => void;
    from: number;
  }> = [];
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  constructor(readonly child: ChildProcessWithoutNullStreams) {
    child.stdout.on('data', (chunk: Buffer) => {
      this.buffer += chunk.toString('utf8');
      let newline;
      while ((newline = this.buffer.indexOf('\n')) >= 0) {
        const text = this.buffer.slice(0, newline);
        this.buffer = this.buffer.slice(newline + 1);
        if (text.trim() === '') continue;
        const line = checkOutputLine(JSON.parse(text) as Line);
        if (this.keep && !this.keep(line)) continue;
        this.lines.push(line);
        this.check();
      }
    });
    child.stderr.on('data', (chunk: Buffer) => (this.stderr += chunk.toString('utf8')));
    this.exited = new Promise((resolve) =>
      child.on('close', (code, signal) => resolve({ code, signal })),
    );
  }

  static start(args: string[], options: RunOptions): RpcClient {
    return new RpcClient(startZot(['rpc', ...args], options));
  }

  /** Each waiter resumes scanning where it stopped, so a flood of lines stays linear. */
  private check(): void {
    this.waiters = this.waiters.filter((waiter) => {
      for (; waiter.from < this.lines.length; waiter.from++) {
        const line = this.lines[waiter.from]!;
        if (waiter.match(line)) {
          waiter.resolve(line);
          return false;
        }
      }
      return true;
    });
  }

  sendRaw(text: string): void {
    this.child.stdin.write(text);
  }

  send(request: Record<string, unknown>): void {
    this.sendRaw(JSON.stringify(request) + '\n');
  }

  /** Resolves with the first line (from index `from`) matching; rejects after timeoutMs. */
  waitFor(match: (line: Line) => boolean, timeoutMs = hangGuard(10_000), from = 0): Promise<Line> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(
            new Error(
              `timed out waiting; lines so far:\n${this.lines.map((l) => JSON.stringify(l)).join('\n')}\nstderr: ${this.stderr}`,
            ),
          ),
        timeoutMs,
      );
      this.waiters.push({ match, from, resolve: (line) => (clearTimeout(timer), resolve(line)) });
      this.check();
    });
  }

  /** Sends a request with an id and resolves with its response. */
  async request(request: Record<string, unknown>): Promise<Line> {
    const id = String(request.id ?? `r${Math.random().toString(36).slice(2)}`);
    const from = this.lines.length;
    this.send({ ...request, id });
    return this.waitFor(
      (line) => line.type === 'response' && line.id === id,
      hangGuard(10_000),
      from,
    );
  }

  /** Resolves after the n-th `done` event counted from index `from`. */
  async doneCount(n: number, from = 0): Promise<Line[]> {
    await this.waitFor(
      () => this.lines.slice(from).filter((l) => l.type === 'done').length >= n,
      hangGuard(15_000),
      from,
    );
    return this.lines.slice(from);
  }

  async close(): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    this.child.stdin.end();
    return this.exited;
  }
}
