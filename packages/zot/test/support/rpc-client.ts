// `zot rpc` as a real subprocess, driven through the published client (@zot/rpc-client), with
// what tests add on top: every line kept in order and checked against schema/rpc.schema.json,
// waits on lines, and raw writes for requests a client would never send.
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import {
  RpcClient,
  type RequestOptions,
  type RequestType,
  type RpcRequests,
  type RpcResponse,
} from '@zot/rpc-client';
import { startZot, type RunOptions } from './zot.js';
import { hangGuard } from './timing.js';
import { checkOutputLine } from './rpc-schema.js';

export type Line = Record<string, unknown> & { type: string };

export class ZotRpc {
  /** The published client, connected to this zot. */
  readonly client: RpcClient;
  readonly lines: Line[] = [];
  /** Lines it returns false for are not kept in `lines` (so a flood can be counted cheaply). */
  keep: ((line: Line) => boolean) | undefined;
  stderr = '';
  /** Lines zot wrote that were no message at all (the client reports them). */
  readonly problems: Error[] = [];
  private waiters: Array<{
    match: (line: Line) => boolean;
    resolve: (line: Line) => void;
    reject: (error: Error) => void;
    from: number;
  }> = [];
  /** The first line the schema does not allow: every wait fails with it at once. */
  private invalid: Error | undefined;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  constructor(readonly child: ChildProcessWithoutNullStreams) {
    this.client = RpcClient.attach(child, { process: child });
    this.client.on('message', (message) => {
      let line: Line;
      try {
        line = checkOutputLine(message as unknown as Line);
      } catch (error) {
        // Waits fail at once, and the test fails even where nothing waits (re-raised).
        this.invalid ??= error as Error;
        this.problems.push(error as Error);
        this.check();
        throw error;
      }
      if (this.keep && !this.keep(line)) return;
      this.lines.push(line);
      this.check();
    });
    this.client.on('error', (error) => this.problems.push(error));
    this.client.on('stderr', (text) => (this.stderr += text));
    this.exited = this.client.closed;
  }

  static start(args: string[], options: RunOptions): ZotRpc {
    return new ZotRpc(startZot(['rpc', ...args], options));
  }

  /** Each waiter resumes scanning where it stopped, so a flood of lines stays linear. */
  private check(): void {
    const invalid = this.invalid;
    if (invalid) return void this.waiters.splice(0).forEach((waiter) => waiter.reject(invalid));
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

  /** Writes text as it is (malformed lines, requests without an id). */
  sendRaw(text: string): void {
    this.child.stdin.write(text);
  }

  /** Writes one request object as a line, unchecked. */
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
      this.waiters.push({
        match,
        from,
        resolve: (line) => (clearTimeout(timer), resolve(line)),
        reject: (error) => (clearTimeout(timer), reject(error)),
      });
      this.check();
    });
  }

  /** A typed request through the published client; resolves with its response. */
  request<K extends RequestType>(
    type: K,
    params?: RpcRequests[K],
    options: RequestOptions = {},
  ): Promise<RpcResponse<K>> {
    const request = this.client.request as (
      type: K,
      params?: RpcRequests[K],
      options?: RequestOptions,
    ) => Promise<RpcResponse<K>>;
    return request.call(this.client, type, params, {
      timeoutMs: hangGuard(10_000),
      ...options,
    });
  }

  /** Sends a request object as it is, with an id, and resolves with its response line. */
  async requestRaw(request: Record<string, unknown>): Promise<Line> {
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

  /** Ends zot's input and waits for it to exit. */
  async close(): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    return this.client.close();
  }
}
