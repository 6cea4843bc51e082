// The one Session every mode drives: prompt (queued), abort, compact, clear, model, persistence.
import type { AgentEvent, UsageEventFields } from '../agent/events.js';
import type { AgentHooks, PendingToolCall } from '../agent/hooks.js';
import { runAgent, type AgentRunResult, type ModelCallSettings } from '../agent/loop.js';
import { costUsd } from '../providers/index.js';
import type {
  ImageBlock,
  Message,
  ModelInfo,
  ReasoningLevel,
  StreamFn,
  Usage,
  UserContent,
} from '../providers/types.js';
import type { ExtensionHost, ExtensionReport, HostEvent } from '../extensions/host.js';
import { errorMessage } from '../util/errors.js';
import { AUTO_COMPACT_RATIO, screenSummary, splitPoint, summarise } from './compact.js';
import { ConfirmGate, type AskPerson } from './confirm.js';
import { extensionHooks, forwardLifecycle } from './extension-hooks.js';
import type { InterceptRecord } from '../extensions/intercept.js';
import { summaryMessage, type SessionEntry, type SessionWriter } from './store.js';
import type { ToolRegistry } from './tool-registry.js';

/** Events beside the agent's own that a session emits. */
export type SessionEvent =
  | AgentEvent
  | HostEvent
  | { type: 'ext_insert'; extension: string; text: string }
  | ({ type: 'intercept'; before_chars?: number; before_sha256?: string } & Partial<
      Pick<InterceptRecord, 'before'>
    > &
      Omit<InterceptRecord, 'before'>)
  | { type: 'compact_done'; summary: string }
  | { type: 'warning'; message: string };

export interface SessionOptions {
  cwd: string;
  model: ModelInfo;
  /** The base URL requests for `model` go to (flag, model entry, provider default). */
  baseUrlFor(model: ModelInfo): string;
  apiKey?: string;
  systemPrompt: string;
  reasoning?: ReasoningLevel;
  maxSteps: number;
  tools: ToolRegistry;
  stream: (model: ModelInfo) => StreamFn;
  /** Resolves a model id for set_model; undefined when unknown. */
  resolveModel(id: string): ModelInfo | undefined;
  listModels(): ModelInfo[];
  writer?: SessionWriter;
  messages?: Message[];
  /** Problems found loading `messages` (bad lines, repaired tool calls); see subscribe(). */
  warnings?: string[];
  hooks?: AgentHooks;
  extensions?: ExtensionHost;
}

export interface PromptOutcome extends AgentRunResult {}

const zeroUsage = (): UsageEventFields => ({
  input: 0,
  output: 0,
  cache_read: 0,
  cache_write: 0,
  cost_usd: 0,
});

export class Session {
  readonly cwd: string;
  private model: ModelInfo;
  private readonly messagesList: Message[];
  private readonly listeners = new Set<(event: SessionEvent) => void>();
  private readonly totals = zeroUsage();
  private queue: Promise<unknown> = Promise.resolve();
  private pending = 0;
  private controller: AbortController | undefined;
  private closed = false;
  private gate: ConfirmGate | undefined;
  private loadWarnings: string[];
  hooks: AgentHooks;

  constructor(private readonly options: SessionOptions) {
    this.cwd = options.cwd;
    this.model = options.model;
    this.messagesList = [...(options.messages ?? [])];
    this.hooks = options.hooks ?? {};
    this.loadWarnings = [...(options.warnings ?? [])];
  }

  /**
   * Contract: the first subscriber (a mode subscribes before anything runs) also receives the
   * warnings of loading the transcript, as `warning` events.
   */
  subscribe(listener: (event: SessionEvent) => void): () => void {
    this.listeners.add(listener);
    for (const message of this.loadWarnings.splice(0)) {
      try {
        listener({ type: 'warning', message });
      } catch {
        // As in emit(): a failing listener must not break the session.
      }
    }
    return () => this.listeners.delete(listener);
  }

  emit(event: SessionEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch {
        // A listener failing (e.g. a closed stdout) must not break the agent.
      }
    }
  }

  get messages(): readonly Message[] {
    return this.messagesList;
  }
  get busy(): boolean {
    return this.pending > 0;
  }
  get currentModel(): ModelInfo {
    return this.model;
  }
  get usageTotals(): UsageEventFields {
    return { ...this.totals };
  }
  get sessionFile(): string | undefined {
    return this.options.writer?.path;
  }
  get toolRegistry(): ToolRegistry {
    return this.options.tools;
  }
  get extensions(): ExtensionHost | undefined {
    return this.options.extensions;
  }

  /** Starts the extensions (after the mode subscribed, so it sees their errors). */
  async startExtensions(): Promise<ExtensionReport[]> {
    const host = this.options.extensions;
    if (!host) return [];
    host.subscribe((event) => this.emit(event));
    this.options.tools.addSource(host.toolSource);
    this.hooks = { ...this.hooks, ...extensionHooks(host, this) };
    this.subscribe((event) => forwardLifecycle(host, event));
    return host.start();
  }

  /** Restarts every extension; queued behind running work. */
  reloadExtensions(): Promise<ExtensionReport[]> {
    const host = this.options.extensions;
    if (!host) return Promise.resolve([]);
    return this.enqueue(() => host.reload());
  }

  /** Ends everything: aborts work, shuts extensions down. Contract: never rejects. */
  async dispose(): Promise<void> {
    await this.close();
    await this.options.extensions?.shutdown();
  }
  models(): ModelInfo[] {
    return this.options.listModels();
  }

  /** Runs one operation at a time; later ones wait their turn (the RPC queue). */
  private enqueue<T>(run: () => Promise<T>): Promise<T> {
    this.pending++;
    const result = this.queue.then(run).finally(() => {
      this.pending--;
    });
    this.queue = result.catch(() => undefined);
    return result;
  }

  private persist(entry: SessionEntry): void {
    try {
      this.options.writer?.append(entry);
    } catch (error) {
      this.emit({
        type: 'warning',
        message: `could not write the session file: ${errorMessage(error)}`,
      });
    }
  }

  /** Adds an audit or other non-model record to the session file. */
  record(entry: SessionEntry): void {
    this.persist(entry);
  }

  private settings(): ModelCallSettings {
    const { apiKey, systemPrompt, reasoning } = this.options;
    return {
      model: this.model,
      baseUrl: this.options.baseUrlFor(this.model),
      ...(apiKey !== undefined ? { apiKey } : {}),
      system: systemPrompt,
      ...(reasoning !== undefined ? { reasoning } : {}),
    };
  }

  /**
   * Sends a user prompt and runs the agent until it stops; queued behind any running prompt.
   * Contract: never rejects; always ends with a `done` event.
   */
  prompt(text: string, images: ImageBlock[] = []): Promise<PromptOutcome> {
    return this.enqueue(async () => {
      const controller = new AbortController();
      this.controller = controller;
      try {
        if (this.closed) return { stop: 'aborted', error: 'the session was closed', finalText: '' };
        const content: UserContent[] = [
          ...(text ? [{ type: 'text' as const, text }] : []),
          ...images,
        ];
        const message: Message = { role: 'user', content, time: new Date().toISOString() };
        this.options.extensions?.notes.clearAll();
        this.messagesList.push(message);
        this.persist({ type: 'message', message });
        this.emit({ type: 'user_message', content, time: message.time });
        const result = await runAgent(
          this.messagesList,
          this.agentSetup(controller.signal),
          controller.signal,
        );
        if (result.stop === 'end_turn' && this.needsCompaction(result.lastUsage)) {
          await this.compactNow(controller.signal);
        }
        return result;
      } finally {
        this.controller = undefined;
        this.emit({ type: 'done' });
      }
    });
  }

  /** Turns on asking before each tool runs (--no-yolo); `ask` reaches a person. */
  enableConfirmation(ask: AskPerson): ConfirmGate {
    this.gate = new ConfirmGate(
      ask,
      (request) =>
        this.options.extensions?.emitEvent('tool_confirmation_requested', { ...request }),
      { yolo: false },
    );
    return this.gate;
  }
  get confirmation(): ConfirmGate | undefined {
    return this.gate;
  }

  private agentSetup(signal: AbortSignal) {
    const gate = this.gate;
    return {
      cwd: this.cwd,
      maxSteps: this.options.maxSteps,
      hooks: gate
        ? { ...this.hooks, confirmToolCall: (call: PendingToolCall) => gate.check(call, signal) }
        : this.hooks,
      activeTools: () => this.options.tools.active(),
      findTool: (name: string) => this.options.tools.find(name),
      settings: () => this.settings(),
      stream: this.options.stream,
      usage: (model: ModelInfo, usage: Usage) => {
        const call = { ...usage, cost_usd: costUsd(model, usage) };
        this.totals.input += call.input;
        this.totals.output += call.output;
        this.totals.cache_read += call.cache_read;
        this.totals.cache_write += call.cache_write;
        this.totals.cost_usd += call.cost_usd;
        return { call, cumulative: { ...this.totals } };
      },
      emit: (event: AgentEvent) => this.emit(event),
      append: (message: Message) => this.persist({ type: 'message', message }),
    };
  }

  private needsCompaction(usage: Usage | undefined): boolean {
    if (!usage) return false;
    const used = usage.input + usage.cache_read + usage.cache_write + usage.output;
    return used >= AUTO_COMPACT_RATIO * this.model.contextWindow;
  }

  /** Summarises the transcript; queued like a prompt. Contract: never rejects; ends with `done`. */
  compact(): Promise<{ summary?: string; error?: string }> {
    return this.enqueue(async () => {
      const controller = new AbortController();
      this.controller = controller;
      try {
        return await this.compactNow(controller.signal);
      } finally {
        this.controller = undefined;
        this.emit({ type: 'done' });
      }
    });
  }

  private async compactNow(signal: AbortSignal): Promise<{ summary?: string; error?: string }> {
    const cut = splitPoint(this.messagesList);
    if (cut === 0 || this.messagesList.length === 0) {
      const error = 'nothing to compact yet';
      this.emit({ type: 'error', message: error });
      return { error };
    }
    const summarised = await summarise(
      this.messagesList.slice(0, cut),
      this.settings(),
      this.options.stream,
      signal,
    );
    const result =
      'error' in summarised ? summarised : await screenSummary(this.hooks, summarised.summary);
    if ('error' in result) {
      this.emit({ type: 'error', message: result.error });
      return { error: result.error };
    }
    const kept = this.messagesList.slice(cut);
    const time = new Date().toISOString();
    this.messagesList.splice(
      0,
      this.messagesList.length,
      summaryMessage(result.summary, time),
      ...kept,
    );
    this.persist({ type: 'compaction', time, summary: result.summary, kept: kept.length });
    this.emit({ type: 'compact_done', summary: result.summary });
    return { summary: result.summary };
  }

  /** Resolves once nothing runs or waits in the queue. Contract: never rejects. */
  async idle(): Promise<void> {
    while (this.pending > 0) await this.queue;
  }

  /** Aborts the running operation and every queued one; resolves when all have ended. */
  async close(): Promise<void> {
    this.closed = true;
    this.abort();
    await this.queue;
  }

  /** Aborts the running prompt or compaction; queued ones still run. */
  abort(): void {
    this.controller?.abort();
  }

  /** Drops the transcript. Contract: throws when busy (callers report "agent is busy"). */
  clear(): void {
    if (this.busy) throw new Error('agent is busy');
    this.messagesList.length = 0;
    this.options.extensions?.notes.clearAll();
    if (this.options.writer?.exists)
      this.persist({ type: 'clear', time: new Date().toISOString() });
  }

  /** Switches model within the provider. Contract: throws with a readable message. */
  setModel(id: string): ModelInfo {
    if (this.busy) throw new Error('agent is busy');
    const model = this.options.resolveModel(id);
    if (!model) throw new Error(`unknown model "${id}" for provider ${this.model.provider}`);
    this.model = model;
    return model;
  }
}
