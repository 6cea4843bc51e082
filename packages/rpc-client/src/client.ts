// A client for `zot rpc`: spawns zot (or attaches to any stdin/stdout pair), correlates
// requests with their responses, streams each prompt's events, and answers confirmations.
import { spawn, type ChildProcess } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { parseBoundedJson } from '@zot/protocol/bounds';
import { MAX_FRAME_BYTES } from '@zot/protocol/constants';
import { LineSplitter } from '@zot/protocol/jsonl';
import {
  RpcAbortedError,
  RpcClosedError,
  RpcHandlerError,
  RpcProtocolError,
  RpcTimeoutError,
  type RpcClientError,
} from './errors.js';
import { Operation } from './operation.js';
import type {
  ConfirmDecision,
  ConfirmHandler,
  UiAnswer,
  UiRequest,
  UiRequestHandler,
  RequestId,
  RequestOptions,
  RequestType,
  RpcEvent,
  RpcMessage,
  RpcRequests,
  RpcResponse,
} from './types.js';

export interface ClientOptions {
  /** Default for every request's `timeoutMs` (none: wait as long as zot runs). */
  timeoutMs?: number;
  /** Longest line accepted from zot, in bytes (default 32 MiB); a longer one is reported. */
  maxLineBytes?: number;
}

export interface SpawnOptions extends ClientOptions {
  /** The zot executable (default `zot`, looked up on PATH). */
  command?: string;
  /** Arguments after `rpc`, e.g. `['--provider', 'anthropic', '--no-yolo']`. */
  args?: string[];
  cwd?: string;
  env?: NodeJS.ProcessEnv;
}

export interface AttachOptions extends ClientOptions {
  /** The zot process, when there is one: `close()` waits for it and reports its exit. */
  process?: ChildProcess;
}

/** The streams of a running `zot rpc`: its stdin (we write) and its stdout (we read). */
export interface RpcStreams {
  stdin: Writable;
  stdout: Readable;
  /** Read for the `stderr` listeners and for the message of a closed connection. */
  stderr?: Readable | null;
}

export interface ClientEvents {
  /** Every line zot wrote, responses and events, in order. */
  message: (message: RpcMessage) => void;
  /** Every event (everything but responses), in order. */
  event: (event: RpcEvent) => void;
  /** Problems reported instead of thrown: a malformed line, a failing confirm handler. */
  error: (error: RpcClientError) => void;
  /** zot's diagnostics, as they come. */
  stderr: (text: string) => void;
  /** The connection ended; `code`/`signal` when the process is known. */
  close: (exit: Exit) => void;
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

type Pending = {
  resolve: (response: RpcResponse) => void;
  reject: (error: Error) => void;
  cleanup: () => void;
};

/** zot's last words are kept for the message of a closed connection. */
const STDERR_TAIL = 4096;

/** The parameters argument of `request(type, ...)`: optional when every field is. */
type ParamsArgs<K extends RequestType> = {} extends RpcRequests[K]
  ? [params?: RpcRequests[K], options?: RequestOptions]
  : [params: RpcRequests[K], options?: RequestOptions];

/**
 * Contract: requests are written in call order with monotonic ids; every pending request and
 * operation is rejected with RpcClosedError at once when the connection ends or `close()` is
 * called; nothing zot writes makes a method throw (bad lines go to the `error` listeners).
 */
export class RpcClient {
  private readonly listeners: { [K in keyof ClientEvents]: Set<ClientEvents[K]> } = {
    message: new Set(),
    event: new Set(),
    error: new Set(),
    stderr: new Set(),
    close: new Set(),
  };
  private readonly pending = new Map<RequestId, Pending>();
  /** Prompt and compaction streams, in request order. */
  private readonly queued: Array<{ operation: Operation; after: Set<RequestId> }> = [];
  /** Command streams: they take events from the moment they are sent. */
  private readonly commands = new Set<Operation>();
  /** Prompts and compactions sent whose `done` has not come yet. */
  private readonly unfinished = new Set<RequestId>();
  private confirmHandler: ConfirmHandler | undefined;
  private uiHandler: UiRequestHandler | undefined;
  private nextId = 1;
  private stderrTail = '';
  private closedBy: RpcClosedError | undefined;
  private readonly ended: Promise<Exit>;

  /** Starts `zot rpc` and connects to it. */
  static spawn(options: SpawnOptions = {}): RpcClient {
    const child = spawn(options.command ?? 'zot', ['rpc', ...(options.args ?? [])], {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    return new RpcClient(child, { ...options, process: child });
  }

  /** Connects to a running `zot rpc` (a child process, a socket pair, anything with streams). */
  static attach(streams: RpcStreams, options: AttachOptions = {}): RpcClient {
    return new RpcClient(streams, options);
  }

  private constructor(
    private readonly streams: RpcStreams,
    private readonly options: AttachOptions,
  ) {
    const splitter = new LineSplitter({
      maxLineBytes: options.maxLineBytes ?? MAX_FRAME_BYTES,
      onLine: (line) => this.onLine(line),
      onOversize: (bytes) =>
        this.report(new RpcProtocolError(`zot wrote a line of ${bytes} bytes, past the limit`)),
      onInvalidUtf8: (bytes) =>
        this.report(new RpcProtocolError(`zot wrote a line of ${bytes} bytes that is not UTF-8`)),
    });
    streams.stdout.on('data', (chunk: Buffer) => splitter.push(chunk));
    streams.stderr?.on('data', (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      this.stderrTail = (this.stderrTail + text).slice(-STDERR_TAIL);
      for (const listener of this.listeners.stderr) this.call(listener, text);
    });
    // A write after zot exited fails with EPIPE: the close below reports it, not a crash.
    streams.stdin.on('error', () => undefined);
    const outputEnded = new Promise<void>((resolve) => {
      streams.stdout.once('end', resolve);
      streams.stdout.once('close', resolve);
      streams.stdout.once('error', () => resolve());
    }).then(() => splitter.end());
    const child = options.process;
    const exited =
      child === undefined
        ? Promise.resolve<Exit>({ code: null, signal: null })
        : child.exitCode !== null || child.signalCode !== null
          ? Promise.resolve<Exit>({ code: child.exitCode, signal: child.signalCode })
          : new Promise<Exit>((resolve) =>
              child.once('close', (code, signal) => resolve({ code, signal })),
            );
    child?.once('error', (error) => this.report(new RpcClosedError(`zot: ${error.message}`)));
    this.ended = Promise.all([outputEnded, exited]).then(([, exit]) => {
      this.shutDown(this.closedBy ?? new RpcClosedError(this.exitMessage(exit)));
      for (const listener of this.listeners.close) this.call(listener, exit);
      return exit;
    });
  }

  /** Subscribes; returns the function that unsubscribes. */
  on<K extends keyof ClientEvents>(name: K, listener: ClientEvents[K]): () => void {
    this.listeners[name].add(listener);
    return () => this.listeners[name].delete(listener);
  }

  /**
   * Sends a request and resolves with its response: success or failure, both values. Rejects
   * only when no response can come (RpcClosedError, RpcTimeoutError, RpcAbortedError).
   */
  request<K extends RequestType>(
    type: K,
    ...[params, options]: ParamsArgs<K>
  ): Promise<RpcResponse<K>> {
    return this.send(type, params, options) as Promise<RpcResponse<K>>;
  }

  /**
   * Sends a prompt and streams its events: everything from the moment it runs (after the
   * prompts and compactions sent before it) to its `done`.
   */
  prompt(
    message: string,
    options: { images?: RpcRequests['prompt']['images'] } & RequestOptions = {},
  ): Operation {
    const { images, ...requestOptions } = options;
    return this.queue('prompt', { message, ...(images ? { images } : {}) }, requestOptions);
  }

  /** Adds a message to the running prompt at its next step; its events are that prompt's. */
  steer(message: string, options?: RequestOptions): Promise<RpcResponse<'prompt'>> {
    return this.request('prompt', { message, mode: 'steer' }, options);
  }

  /** Summarises the transcript; streams its events up to its `done`. */
  compact(options?: RequestOptions): Operation {
    return this.queue('compact', {}, options);
  }

  /** Runs a slash command (`/name args`); streams its events up to `command_done` or `done`. */
  command(text: string, options?: RequestOptions): Operation {
    const id = this.newId();
    const operation = new Operation(id, this.send('command', { text }, options, id), (op) =>
      this.commands.delete(op),
    );
    this.commands.add(operation);
    return operation;
  }

  /** Aborts the running prompt; with `queue`, also drops every prompt waiting behind it. */
  abort(options: { queue?: boolean } = {}): Promise<RpcResponse<'abort'>> {
    return this.request('abort', options.queue ? { queue: true } : {});
  }

  /**
   * Answers every `confirm_request` with `handler` (sync or async); a throw or rejection
   * denies the call and is reported to the `error` listeners. Returns the function that
   * removes it (requests then wait for `confirm()`).
   */
  onConfirm(handler: ConfirmHandler): () => void {
    this.confirmHandler = handler;
    return () => {
      if (this.confirmHandler === handler) this.confirmHandler = undefined;
    };
  }

  /** Answers one `confirm_request`. */
  confirm(toolId: string, decision: ConfirmDecision): Promise<RpcResponse<'confirm'>> {
    return this.request('confirm', { tool_id: toolId, decision });
  }

  /**
   * Answers every `ui_request` (an extension asking the user) with `handler`; a throw or
   * rejection answers `cancelled` and is reported to the `error` listeners. Returns the function
   * that removes it (questions then wait for `uiResponse()`).
   */
  onUiRequest(handler: UiRequestHandler): () => void {
    this.uiHandler = handler;
    return () => {
      if (this.uiHandler === handler) this.uiHandler = undefined;
    };
  }

  /**
   * Answers one `ui_request` (by the event or its id). A failure response says why: no such
   * question (answered, withdrawn at its deadline, or its extension exited), or a value that
   * does not fit it (a string for confirm, an option not offered).
   */
  uiResponse(request: UiRequest | string, answer: UiAnswer): Promise<RpcResponse<'ui_response'>> {
    const id = typeof request === 'string' ? request : request.id;
    const params = 'cancelled' in answer ? { cancelled: true } : { value: answer.value };
    return this.send('ui_response', params, {}, id) as Promise<RpcResponse<'ui_response'>>;
  }

  /**
   * Writes one line as it is, for what the typed methods cannot send (a request type this
   * client does not know yet). Its response reaches the `message` listeners only.
   */
  sendRaw(line: string): void {
    this.streams.stdin.write(line.endsWith('\n') ? line : `${line}\n`);
  }

  /**
   * Ends the connection: pending requests and streams reject with RpcClosedError at once,
   * zot's input ends (it finishes the work it was given, then exits; `abort: true` aborts it
   * first), and the promise resolves when zot is gone. `timeoutMs`: then SIGTERM the process.
   */
  close(options: { abort?: boolean; timeoutMs?: number } = {}): Promise<Exit> {
    if (!this.closedBy) {
      if (options.abort) this.write({ type: 'abort', queue: true });
      this.closedBy = new RpcClosedError('the client closed the connection');
      this.shutDown(this.closedBy);
      this.streams.stdin.end();
    }
    const child = this.options.process;
    if (options.timeoutMs !== undefined && child) {
      const timer = setTimeout(() => child.kill('SIGTERM'), options.timeoutMs);
      void this.ended.then(() => clearTimeout(timer));
    }
    return this.ended;
  }

  /** Resolves when the connection has ended (zot exited or its output closed). */
  get closed(): Promise<Exit> {
    return this.ended;
  }

  private newId(): string {
    return `c${this.nextId++}`;
  }

  private queue(
    type: 'prompt' | 'compact',
    params: Record<string, unknown>,
    options: RequestOptions = {},
  ): Operation {
    const id = this.newId();
    const after = new Set(this.unfinished);
    this.unfinished.add(id);
    const response = this.send(type, params, options, id);
    const operation = new Operation(id, response, (op) => {
      const index = this.queued.findIndex((entry) => entry.operation === op);
      if (index >= 0) this.queued.splice(index, 1);
    });
    // Refused: no `done` will come, so nothing waits for one.
    void response.then(
      (answer) => answer.success || this.settle(id),
      () => this.settle(id),
    );
    this.queued.push({ operation, after });
    return operation;
  }

  private send(
    type: RequestType,
    params: object | undefined,
    options: RequestOptions = {},
    id: RequestId = this.newId(),
  ): Promise<RpcResponse> {
    if (this.closedBy) return Promise.reject(this.closedBy);
    const { signal } = options;
    if (signal?.aborted) return Promise.reject(new RpcAbortedError(`${type} was aborted`));
    const timeoutMs = options.timeoutMs ?? this.options.timeoutMs;
    return new Promise<RpcResponse>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const onAbort = () => {
        this.pending.delete(id);
        cleanup();
        reject(new RpcAbortedError(`${type} (id ${id}) was aborted before zot answered`));
      };
      const cleanup = () => {
        if (timer) clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      };
      if (timeoutMs !== undefined) {
        timer = setTimeout(() => {
          this.pending.delete(id);
          cleanup();
          reject(new RpcTimeoutError(`${type} (id ${id}): no response within ${timeoutMs} ms`));
        }, timeoutMs);
      }
      signal?.addEventListener('abort', onAbort, { once: true });
      this.pending.set(id, { resolve, reject, cleanup });
      this.write({ ...params, type, id });
    });
  }

  private write(request: Record<string, unknown>): void {
    this.streams.stdin.write(`${JSON.stringify(request)}\n`);
  }

  private onLine(line: string): void {
    if (line.trim() === '') return;
    const parsed = parseBoundedJson(line);
    const value = parsed.ok ? parsed.value : undefined;
    if (
      value === null ||
      typeof value !== 'object' ||
      Array.isArray(value) ||
      typeof (value as { type?: unknown }).type !== 'string'
    ) {
      const why = parsed.ok ? 'is not an object with a string "type"' : `is ${parsed.error}`;
      this.report(new RpcProtocolError(`a line from zot ${why}`, line.slice(0, 200)));
      return;
    }
    const message = value as RpcMessage;
    for (const listener of this.listeners.message) this.call(listener, message);
    if (message.type === 'response') this.onResponse(message as RpcResponse);
    else this.onEvent(message as RpcEvent);
  }

  private onResponse(response: RpcResponse): void {
    if (response.id === undefined) return;
    const waiting = this.pending.get(response.id);
    if (!waiting) return;
    this.pending.delete(response.id);
    waiting.cleanup();
    waiting.resolve(response);
  }

  private onEvent(event: RpcEvent): void {
    for (const listener of this.listeners.event) this.call(listener, event);
    for (const operation of [...this.commands]) operation.push(event);
    for (const { operation, after } of [...this.queued]) {
      if (after.size === 0) operation.push(event);
    }
    // After delivery: the prompt that ended keeps its `done`, the next one starts after it.
    if (event.type === 'done' && event.id !== undefined) this.settle(event.id);
    // A late answer (the call was aborted, the question withdrawn meanwhile) fails harmlessly.
    if (event.type === 'confirm_request') {
      const failed = `the confirm handler failed for ${event.tool_name} (${event.tool_id}); denied`;
      const send = (decision: ConfirmDecision) => this.confirm(event.tool_id, decision);
      void this.answerWith(this.confirmHandler, event, 'deny', failed, send);
    }
    if (event.type === 'ui_request') {
      const failed = `the ui_request handler failed for ${event.extension}'s ${event.kind} question (${event.id}); cancelled`;
      const send = (answer: UiAnswer) => this.uiResponse(event, answer);
      void this.answerWith(this.uiHandler, event, { cancelled: true }, failed, send);
    }
  }

  /** The operation `id` is over: the ones behind it stop waiting for it. */
  private settle(id: RequestId): void {
    this.unfinished.delete(id);
    for (const { after } of this.queued) after.delete(id);
  }

  /**
   * Sends what `handler` answers to `request`, unless the client closed meanwhile; a handler
   * that throws is reported (`failed` says what that means) and `fallback` is sent instead. A
   * send that fails is ignored.
   */
  private async answerWith<Q, A>(
    handler: ((request: Q) => A | Promise<A>) | undefined,
    request: Q,
    fallback: A,
    failed: string,
    send: (answer: A) => Promise<unknown>,
  ): Promise<void> {
    if (!handler) return;
    let answer: A;
    try {
      answer = await handler(request);
    } catch (error) {
      this.report(new RpcHandlerError(`${failed}: ${(error as Error)?.message ?? error}`, error));
      answer = fallback;
    }
    if (this.closedBy) return;
    await send(answer).catch(() => undefined);
  }

  private shutDown(error: RpcClosedError): void {
    for (const waiting of this.pending.values()) {
      waiting.cleanup();
      waiting.reject(error);
    }
    this.pending.clear();
    for (const { operation } of [...this.queued]) operation.fail(error);
    for (const operation of [...this.commands]) operation.fail(error);
  }

  private exitMessage(exit: Exit): string {
    const how =
      exit.signal !== null
        ? `was killed by ${exit.signal}`
        : exit.code !== null
          ? `exited with status ${exit.code}`
          : 'closed its output';
    const said = this.stderrTail.trim();
    return `zot ${how}${said ? `; it said: ${said.split('\n').slice(-5).join('\n')}` : ''}`;
  }

  private report(error: RpcClientError): void {
    for (const listener of this.listeners.error) this.call(listener, error);
  }

  /** Runs a listener; a throw is re-raised on its own, so the connection's state stays whole. */
  private call<A extends unknown[]>(listener: (...args: A) => void, ...args: A): void {
    try {
      listener(...args);
    } catch (error) {
      queueMicrotask(() => {
        throw error;
      });
    }
  }
}
