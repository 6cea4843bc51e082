// Answering zot's requests: slash commands, tool calls and interceptions. Each handler gets a
// signal that zot's `cancel` aborts; what it throws or rejects becomes an error reply (and a
// stderr line), never a crash; shutdown waits for the answers still in flight.
import {
  answer,
  type CommandInvokedFrame,
  type EventInterceptFrame,
  type FrameFromExtension,
  type InterceptableEvent,
  type ReplyBody,
  type RequestType,
  type ToolCallFrame,
  type Transport,
} from '@zot/protocol';
import type {
  CommandHandler,
  HostInfo,
  Interceptor,
  ToolContext,
  ToolHandler,
  ToolReturn,
} from './extension-types.js';
import { CallContext, Cancellation, ToolCallContext } from './cancellation.js';
import { runChain } from './interception.js';
import { commandBody, refusal, toolBody } from './replies.js';
import type { JsonSchema } from './schema-types.js';

export interface ToolEntry {
  readonly description: string;
  readonly schema: JsonSchema;
  readonly deferred: boolean;
  readonly handler: ToolHandler<never>;
}

/** The register_tool frame announcing a tool. */
export function registerToolFrame(name: string, entry: ToolEntry): FrameFromExtension {
  return {
    type: 'register_tool',
    name,
    description: entry.description,
    schema: entry.schema as Record<string, unknown>,
    ...(entry.deferred ? { deferred: true } : {}),
  };
}

export interface CommandEntry {
  name: string;
  description: string;
  handler: CommandHandler;
}

export interface RequestsOptions {
  /** The extension's name, in error replies. */
  name: string;
  transport: Transport<FrameFromExtension>;
  /** Checks and writes a frame of the extension's own (tool_progress). */
  emit(frame: FrameFromExtension): void;
  log(text: string): void;
  host(): HostInfo;
  /** The manifest's intercept_failure is `block`: a failed interception blocks. */
  blockOnFailure: boolean;
  commands: ReadonlyMap<string, CommandEntry>;
  tools: ReadonlyMap<string, ToolEntry>;
  interceptors: ReadonlyMap<InterceptableEvent, Array<Interceptor<never>>>;
}

function isThenable<T>(value: T | Promise<T>): value is Promise<T> {
  return typeof (value as { then?: unknown } | null | undefined)?.then === 'function';
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export class Requests {
  /** Requests being handled: shutdown lets them answer first (within the budget). */
  readonly inFlight = new Set<Promise<void>>();
  /** The requests being handled, by id: `cancel` aborts its signal. */
  private readonly cancellers = new Map<string, Cancellation>();
  /** The activations of the tool call whose handler is running synchronously right now. */
  private currentActivations: string[] | undefined;
  private pendingActivations: string[] = [];

  constructor(private readonly o: RequestsOptions) {}

  /** As Extension.activateTools: on the running call's result, else on the next one. */
  activate(names: readonly string[]): void {
    (this.currentActivations ?? this.pendingActivations).push(...names);
  }

  /** zot stopped waiting for request `id`: its handler's signal aborts. */
  cancel(id: string): void {
    this.cancellers.get(id)?.cancel(new Error('cancelled by zot'));
  }

  command(frame: CommandInvokedFrame): void {
    const entry = this.o.commands.get(frame.name.toLowerCase());
    if (!entry) {
      this.reply(frame, {
        action: 'noop',
        error: `${this.o.name}: unknown command /${frame.name}`,
      });
      return;
    }
    const { cancellation, release } = this.cancellable(frame.id);
    const context = new CallContext(frame.id, entry.name, this.o.host(), cancellation);
    this.settle(
      () => entry.handler(frame.args ?? '', context),
      (result) => {
        release();
        this.reply(frame, commandBody(result));
      },
      (error) => {
        release();
        this.logFailure(`/${entry.name}`, error);
        this.reply(frame, { action: 'noop', error: `/${entry.name} failed: ${messageOf(error)}` });
      },
    );
  }

  tool(frame: ToolCallFrame): void {
    const entry = this.o.tools.get(frame.name);
    if (!entry) {
      this.reply(frame, {
        content: [{ type: 'text', text: `${this.o.name}: unknown tool ${frame.name}` }],
        is_error: true,
      });
      return;
    }
    const activations: string[] = [];
    const { cancellation, release } = this.cancellable(frame.id);
    let finished = false;
    const context: ToolContext = new ToolCallContext(
      frame.id,
      frame.name,
      this.o.host(),
      cancellation,
      (names) => void activations.push(...names),
      (text) => {
        // Progress after the answer (or a cancel) reaches no call: not sent.
        if (finished || cancellation.reason) return;
        this.o.emit({ type: 'tool_progress', id: frame.id, text: String(text).slice(0, 4096) });
      },
    );
    const finish = (result: ToolReturn) => {
      finished = true;
      release();
      const pending = this.pendingActivations.splice(0);
      this.reply(frame, toolBody(result, [...pending, ...activations]));
    };
    this.settle(
      () => {
        // ext.activateTools() during the handler's synchronous part belongs to this call.
        this.currentActivations = activations;
        try {
          return (entry.handler as ToolHandler<Record<string, unknown>>)(frame.args ?? {}, context);
        } finally {
          this.currentActivations = undefined;
        }
      },
      finish,
      (error) => {
        this.logFailure(`tool ${frame.name}`, error);
        finish({
          content: [{ type: 'text', text: `tool ${frame.name} failed: ${messageOf(error)}` }],
          isError: true,
        });
      },
    );
  }

  intercept(frame: EventInterceptFrame): void {
    this.track(this.runInterceptors(frame));
  }

  /** The error reply to a request (an allow, or a block, for an interception). */
  refuse(request: { type: RequestType; id: string }, message: string): void {
    const frame = refusal(request, message, this.o.blockOnFailure);
    if (frame) this.o.transport.send(frame);
  }

  /** Runs a hook; a throw or rejection is logged, never propagated. */
  async guard(label: string, fn: () => unknown): Promise<void> {
    try {
      await fn();
    } catch (error) {
      this.logFailure(label, error);
    }
  }

  private async runInterceptors(frame: EventInterceptFrame): Promise<void> {
    const chain = (this.o.interceptors.get(frame.event) ?? []) as Array<Interceptor<unknown>>;
    let body: ReplyBody<'event_intercept'>;
    try {
      body = await runChain(frame, chain, this.o.name);
    } catch (error) {
      this.logFailure(`${frame.event} interceptor`, error);
      this.refuse(frame, `${this.o.name}: ${frame.event} interceptor failed: ${messageOf(error)}`);
      return;
    }
    this.reply(frame, body);
  }

  /** The cancel of request `id`, which zot's `cancel` triggers; `release` once it is answered. */
  private cancellable(id: string): { cancellation: Cancellation; release: () => void } {
    const cancellation = new Cancellation((error) => this.logFailure('onCancel listener', error));
    this.cancellers.set(id, cancellation);
    return {
      cancellation,
      release: () => {
        if (this.cancellers.get(id) === cancellation) this.cancellers.delete(id);
      },
    };
  }

  /**
   * At shutdown: the requests already taken are answered first, then `after` runs; all within
   * `ms`. Resolves either way.
   */
  drain(ms: number, after: () => Promise<unknown>): Promise<void> {
    const work = Promise.all([...this.inFlight]).then(after);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const limit = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
    return Promise.race([work.then(() => undefined), limit]).finally(() => clearTimeout(timer));
  }

  private track(work: Promise<void>): void {
    this.inFlight.add(work);
    void work.finally(() => this.inFlight.delete(work));
  }

  /** Writes the reply to a request, or a fallback when the reply would not pass the host. */
  private reply<T extends RequestType>(request: { type: T; id: string }, body: ReplyBody<T>): void {
    const built = answer(request, body);
    if (built.ok) {
      this.o.transport.send(built.reply);
      return;
    }
    this.o.log(`@zot/sdk: invalid reply to ${request.type}: ${built.error}`);
    this.refuse(request, `invalid reply from ${this.o.name}: ${built.error}`);
  }

  /**
   * Runs a handler; calls `done` with its value, or `failed` with what it threw or rejected.
   * Contract: a handler that returns a plain value is answered in the same tick (no promise is
   * created); only a thenable is tracked for shutdown.
   */
  private settle<T>(
    call: () => T | Promise<T>,
    done: (value: T) => void,
    failed: (error: unknown) => void,
  ): void {
    let value: T | Promise<T>;
    try {
      value = call();
    } catch (error) {
      return failed(error);
    }
    if (isThenable(value)) this.track(Promise.resolve(value).then(done, failed));
    else done(value);
  }

  private logFailure(label: string, error: unknown): void {
    const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
    this.o.log(`@zot/sdk: ${label} failed: ${detail}`);
  }
}
