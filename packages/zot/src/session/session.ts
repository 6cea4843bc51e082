// The one Session every mode drives: prompt (queued), abort, compact, clear, model, persistence.
import type { AgentEvent, Usage } from '../agent/events.js';
import type { AgentHooks, PendingToolCall } from '../agent/hooks.js';
import { runAgent, type ModelCallSettings } from '../agent/loop.js';
import { previewCall } from '../agent/preview.js';
import { costUsd } from '../providers/index.js';
import type {
  ImageBlock,
  Message,
  ModelInfo,
  TokenUsage,
  UserContent,
} from '../providers/types.js';
import type { ExtensionHost, ExtensionReport, PanelRequestResult } from '../extensions/host.js';
import type { ProviderName } from '../providers/types.js';
import type { SkillCatalog } from '../tools/skills/catalog.js';
import type { LoginResult, ProviderStatus } from './provider-access.js';
import type { RecordedUsage, SessionSummary } from './session-files.js';
import { errorMessage } from '../util/errors.js';
import { ErrorWithKind, type ErrorKind } from '../contract/errors.js';
import { AUTO_COMPACT_RATIO, compactTranscript } from './compact.js';
import { ConfirmGate, type AskPerson } from './confirm.js';
import { PermissionGate } from './permission-gate.js';
import { wireExtensions } from './extension-hooks.js';
import { summaryMessage, type SessionEntry, type SessionWriter } from './store.js';
import type { ToolRegistry } from './tool-registry.js';

/** Everything a session publishes: one union, defined in contract/events.ts. */
export type { SessionEvent } from '../contract/events.js';
import type { SessionEvent } from '../contract/events.js';
import type { RuntimeState } from '../contract/state.js';
import { openPanelOf, StatePublisher } from './state.js';
import type { SandboxController } from '../security/sandbox/controller.js';
import { routeExtensionUi, type ExtensionUi } from '../contract/extension-ui.js';
import { PromptQueue, type PromptMode } from './prompt-queue.js';
import { listCommands, type CommandInfo, type CommandMode } from './command-registry.js';
import {
  contextUsed,
  STATELESS_EVENTS,
  zeroUsage,
  type PromptOutcome,
  type SessionOptions,
} from './session-options.js';
export type { PromptOutcome, SessionOptions } from './session-options.js';
import {
  BUILTIN_COMMANDS,
  parseSlash,
  runSlashCommand,
  slashResultEvent,
  type SlashResult,
} from './commands.js';
import {
  applyTrustAnswers,
  type TrustAnswer,
  type TrustOutcome,
  type TrustReview,
} from './trust.js';

/** The id of the RPC request an operation runs for: its `done` carries it. */
export type { RequestId } from '../contract/front-end.js';
import type { RequestId } from '../contract/front-end.js';

/** An operation that ends with `done`: the request it runs for, and how to read its failure. */
interface DoneOptions<T> {
  requestId: RequestId | undefined;
  errorKind(value: T): ErrorKind | undefined;
}
const ending = (requestId: RequestId | undefined) => ({
  requestId,
  errorKind: (outcome: { errorKind?: ErrorKind }) => outcome.errorKind,
});

export interface CompactOutcome {
  summary?: string;
  error?: string;
  /** With `error`: what kind of failure it was (absent when the compaction was aborted). */
  errorKind?: ErrorKind;
}

export class Session {
  readonly cwd: string;
  private model: ModelInfo;
  private readonly messagesList: Message[];
  private readonly listeners = new Set<(event: SessionEvent) => void>();
  private totals = zeroUsage();
  private writer: SessionWriter | undefined;
  private host: ExtensionHost | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private pending = 0;
  private controller: AbortController | undefined;
  private closed = false;
  private gate: ConfirmGate | undefined;
  /** The agent run of the prompt in progress, which steering messages join. */
  private running: Promise<PromptOutcome> | undefined;
  private readonly queued = new PromptQueue((queue) => this.emit({ type: 'queue', ...queue }));
  private readonly statePublisher = new StatePublisher(
    () => this.state(),
    (event) => this.emit(event),
  );
  private loadWarnings: string[];
  /** Settles when the extensions prompts wait for are ready (or failed). */
  private extensionsStarting: Promise<void> | undefined;
  /** Settles when every extension started at launch is ready (or failed). */
  private extensionsStarted: Promise<void> | undefined;
  /** Keys found so far, per provider (looked up on the first model call that needs one). */
  private readonly keys = new Map<ProviderName, string | undefined>();
  /** The last model call's context use, for the context meter. */
  private lastCall: TokenUsage | undefined;
  private hooks: AgentHooks;
  /** The permission rules and the audit of their decisions (`/permissions`). */
  readonly permissions: PermissionGate;

  constructor(private readonly options: SessionOptions) {
    this.permissions = new PermissionGate(
      options.rules,
      (event) => this.emit(event),
      options.cwd,
      options.ruleFiles,
    );
    this.cwd = options.cwd;
    this.model = options.model;
    this.messagesList = [...(options.messages ?? [])];
    this.hooks = options.hooks ?? {};
    this.loadWarnings = [...(options.warnings ?? [])];
    this.writer = options.writer;
    this.host = options.extensions;
    if (options.usage) this.restoreUsage(options.usage);
    const sandbox = options.sandbox;
    if (sandbox) {
      sandbox.onChange(() => this.refreshState());
      sandbox.onWarning((message) => this.warn(message));
      // Probed now, so that the status line and the first warning come before any command.
      if (sandbox.mode !== 'off') void sandbox.check();
    }
  }

  /** A warning for the front ends; held for the first subscriber when none is there yet. */
  private warn(message: string): void {
    if (this.listeners.size === 0) this.loadWarnings.push(message);
    else this.emit({ type: 'warning', message });
  }

  get sandbox(): SandboxController | undefined {
    return this.options.sandbox;
  }

  /** Why the sandbox keeps `path` from being read by the user's `@file` (hidden paths), or undefined. */
  readDenial(path: string): string | undefined {
    return this.options.sandbox?.fileDenial('@file', path, 'read');
  }

  /** Where settings are saved (/sandbox --save); absent in sessions built without one. */
  get configPath(): string | undefined {
    return this.options.configPath;
  }

  private restoreUsage(usage: RecordedUsage): void {
    this.totals = { ...usage.totals };
    this.lastCall = usage.last;
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

  /**
   * Connects the mode's extension-UI port: extension UI events go to it (and still to every
   * subscriber, which may skip them with `isExtensionUiEvent`). Returns a disconnect function.
   */
  connectUi(ui: ExtensionUi): () => void {
    // Not through subscribe(): the load warnings are for the mode's own subscriber.
    const listener = (event: SessionEvent) => void routeExtensionUi(event, ui);
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private emit(event: SessionEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch {
        // A listener failing (e.g. a closed stdout) must not break the agent.
      }
    }
    if (!STATELESS_EVENTS.has(event.type)) this.statePublisher.publish();
  }

  /** The command registry: built-ins, then extensions'; only those of `mode` when given. */
  commands(mode?: CommandMode): CommandInfo[] {
    const all = listCommands(this.host);
    return mode ? all.filter((command) => command.modes.includes(mode)) : all;
  }

  /**
   * Runs `/name args` as `mode` would. With `announce` (JSON, RPC) its result also goes out as
   * an event (`ext_display`, `ext_insert`, `ext_panel_open`, `error`); print mode writes it itself.
   * Contract: never rejects.
   */
  async runCommand(
    text: string,
    mode: CommandMode,
    announce: boolean,
    requestId?: RequestId,
  ): Promise<SlashResult> {
    // An extension's command typed while extensions start (the TUI takes keys at once) waits for
    // them instead of being unknown; built-ins never wait.
    const name = parseSlash(text)?.name;
    if (name !== undefined && !BUILTIN_COMMANDS.includes(name.toLowerCase()))
      await this.extensionsStarted;
    const result = await runSlashCommand(this, text, mode, requestId);
    const event = announce ? slashResultEvent(result) : undefined;
    if (event) this.emit(event);
    return result;
  }

  /** A key for an open extension panel (the front end's user typed it). */
  panelKey(panelId: string, key: string, text?: string): PanelRequestResult {
    return (
      this.host?.panelKey(panelId, key, text) ?? {
        ok: false,
        error: `no open panel "${panelId}"`,
        kind: 'not_found',
      }
    );
  }

  /** The user closed a panel. Returns false when no such panel is open. */
  closePanel(panelId: string): boolean {
    return this.host?.closePanel(panelId) ?? false;
  }

  /** The front end's output is backed up (true) or drained (false): extensions are held back. */
  setOutputBlocked(blocked: boolean): void {
    this.host?.setOutputBlocked(blocked);
  }

  /** Re-checks the snapshot after a change made outside the session (e.g. `/yolo`). */
  refreshState(): void {
    this.statePublisher.publish();
  }

  /** The runtime's snapshot (the fields of `get_state` and of the `state` event). */
  state(): RuntimeState {
    const host = this.host;
    const loaded = (host?.running ?? []).filter((e) => e.state === 'ready').map((e) => e.name);
    const failedToLoad = (host?.lastReports ?? [])
      .filter((r) => r.status === 'failed' || r.status === 'manifest-error')
      .map((r) => r.name);
    const died = (host?.running ?? []).filter((e) => e.state === 'exited').map((e) => e.name);
    return {
      provider: this.model.provider,
      model: this.model.id,
      cwd: this.cwd,
      busy: this.busy,
      queue_length: Math.max(0, this.pending - 1),
      message_count: this.messagesList.length,
      session_file: this.writer?.path ?? null,
      usage: this.usageTotals,
      context: {
        used: this.lastCall ? contextUsed(this.lastCall) : 0,
        window: this.model.contextWindow,
      },
      yolo: this.gate?.isYolo ?? true,
      sandbox: this.options.sandbox?.state() ?? { mode: 'off', status: 'off', network: false },
      extensions: { loaded, failed: [...new Set([...failedToLoad, ...died])] },
      open_panel: openPanelOf(this.host),
      commands_revision: host?.commandsRevision ?? 0,
    };
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
  get usageTotals(): Usage {
    return { ...this.totals };
  }
  get sessionFile(): string | undefined {
    return this.writer?.path;
  }
  get toolRegistry(): ToolRegistry {
    return this.options.tools;
  }
  get extensions(): ExtensionHost | undefined {
    return this.host;
  }

  /**
   * Starts the extensions (after the mode subscribed, so it sees their errors) and resolves when
   * every one is ready or failed. With `wait: 'needed'` (a one-shot run) it resolves, and
   * prompts may run, as soon as those a first model request must wait for are: an extension
   * whose registrations of an earlier run are remembered, and say it intercepts and observes
   * nothing, starts in the background, its remembered tools offered meanwhile (a call of one
   * waits for it). Slash commands of extensions always wait for every extension.
   */
  async startExtensions(wait: 'all' | 'needed' = 'all'): Promise<void> {
    const host = this.host;
    if (!host) return;
    this.attach(host);
    const { needed, all } = host.begin();
    const settled = (promise: Promise<unknown>) =>
      promise.then(
        () => undefined,
        () => undefined,
      );
    // A prompt sent while extensions start (the TUI takes input at once) waits for them: a
    // guard's interceptors must be in place before the first tool call can happen.
    this.extensionsStarting = settled(wait === 'needed' ? needed : all);
    this.extensionsStarted = settled(all);
    // What loaded and what failed is part of the snapshot (the TUI's status line shows it).
    void this.extensionsStarted.then(() => this.refreshState());
    await this.extensionsStarting;
  }

  /** Wires a host into the session: its events, tools, hooks and the lifecycle it follows. */
  private attach(host: ExtensionHost): void {
    host.subscribe((event) => this.emit(event));
    host.onCommandsChanged(() => this.refreshState());
    this.options.tools.addSource(host.toolSource);
    const wiring = wireExtensions(host, {
      emit: (event) => this.emit(event),
      // The audit entries are checked as `intercept` entries when the file is loaded again.
      record: (entry) => this.record(entry as SessionEntry),
    });
    this.hooks = { ...this.hooks, ...wiring.hooks };
    this.subscribe(wiring.forward);
  }

  /** Project extensions waiting for the user's trust (the TUI's dialog); [] when none. */
  trustReviews(): Promise<TrustReview[]> {
    return this.options.trust?.reviews().catch(() => []) ?? Promise.resolve([]);
  }

  /** Applies trust answers; extensions restart when that changes what runs. Never rejects. */
  decideTrust(answers: readonly TrustAnswer[]): Promise<TrustOutcome> {
    const access = this.options.trust;
    if (!access) {
      const message = 'no project extensions to trust here';
      return Promise.resolve({
        errors: answers.map(({ review }) => ({ dir: review.dir, message })),
      });
    }
    return applyTrustAnswers(access, answers, () => this.reloadExtensions());
  }

  /** Restarts every extension (starting the host first if there was none); queued. */
  reloadExtensions(): Promise<ExtensionReport[]> {
    const host = this.host;
    if (host) return this.enqueue(() => host.reload());
    const load = this.options.loadExtensions;
    if (!load) return Promise.resolve([]);
    return this.enqueue(async () => {
      const created = await load();
      this.host = created;
      this.attach(created);
      const reports = await created.start();
      this.statePublisher.publish();
      return reports;
    });
  }

  /** Ends everything: aborts work, shuts extensions down. Contract: never rejects. */
  async dispose(): Promise<void> {
    await this.close();
    await this.host?.shutdown();
  }
  /** Every skill, read afresh (the skill tool then sees the same); undefined when skills are off. */
  skills(): Promise<SkillCatalog | undefined> {
    return this.options.skills?.() ?? Promise.resolve(undefined);
  }

  /** One skill's body and file, read now. Contract: never rejects. */
  async skillBody(name: string): Promise<{ body: string; file: string } | { error: string }> {
    if (!this.options.skillBody) return { error: 'skills are off (--no-skill)' };
    return this.options.skillBody(name).catch((error: unknown) => ({ error: errorMessage(error) }));
  }

  /** The one-line preview of a tool call, as the live `tool_call` event gives it (for replays). */
  toolPreview(name: string, args: Record<string, unknown>): string {
    return previewCall(this.options.tools.find(name), args);
  }

  /** Every model of every provider. */
  models(): ModelInfo[] {
    return this.options.providers.models();
  }

  /** Each provider, whether it needs a key and where its key comes from now. */
  providers(): ProviderStatus[] {
    return this.options.providers.providers();
  }

  /** Checks and saves an API key (`/login`); the next model call uses it. Never rejects. */
  async login(provider: ProviderName, key: string, signal?: AbortSignal): Promise<LoginResult> {
    const result = await this.options.providers.login(provider, key, signal);
    if (result.ok) this.keys.delete(provider);
    return result;
  }

  /** Removes a saved API key (`/logout`); false when none was saved. */
  logout(provider: ProviderName): boolean {
    const removed = this.options.providers.logout(provider);
    this.keys.delete(provider);
    return removed;
  }

  /**
   * Runs one operation at a time; later ones wait their turn (the RPC queue). Prompts and
   * compactions end with `done`, after the state event that says the runtime is idle again.
   */
  private enqueue<T>(run: () => Promise<T>, done?: DoneOptions<NoInfer<T>>): Promise<T> {
    this.pending++;
    this.statePublisher.publish();
    let kind: ErrorKind | undefined;
    const result = this.queue
      .then(run)
      .then((value) => ((kind = done?.errorKind(value)), value))
      .finally(() => {
        this.pending--;
        // The state (busy off) goes out first, so `done` is the last word of the operation.
        this.statePublisher.publish();
        if (done) {
          this.emit({
            type: 'done',
            ...(done.requestId !== undefined ? { id: done.requestId } : {}),
            ...(kind !== undefined ? { error_kind: kind } : {}),
          });
        }
      });
    this.queue = result.catch(() => undefined);
    return result;
  }

  private persist(entry: SessionEntry): void {
    try {
      this.writer?.append(entry);
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

  /**
   * Why a prompt could not be answered now: no API key for the current model's provider (the
   * message says how to provide one); undefined when a call can be made. Looks the key up as a
   * prompt does, so a front end can keep a prompt that would fail. Contract: never throws.
   */
  keyProblem(): string | undefined {
    const provider = this.model.provider;
    if (this.keys.get(provider) !== undefined) return undefined;
    try {
      this.keys.set(provider, this.options.providers.apiKey(this.model));
      return undefined;
    } catch (error) {
      return errorMessage(error);
    }
  }

  /**
   * Before a model call: looks the API key up (returns why there is none when one is needed)
   * and gives the model's one-time note, if any. A key found is kept; no key is looked up again.
   */
  private missingKey(): string | undefined {
    const problem = this.keyProblem();
    if (problem !== undefined) return problem;
    const note = this.options.providers.firstCallNote(this.model);
    if (note) this.emit({ type: 'warning', message: note });
    return undefined;
  }

  private settings(): ModelCallSettings {
    const { systemPrompt, reasoning } = this.options;
    const key = this.keys.get(this.model.provider);
    return {
      model: this.model,
      baseUrl: this.options.providers.baseUrl(this.model),
      ...(key !== undefined ? { apiKey: key } : {}),
      system: systemPrompt,
      ...(reasoning !== undefined ? { reasoning } : {}),
    };
  }

  /**
   * Sends a user prompt. `follow_up` (the default) runs it after the current prompt, in order;
   * `steer` adds it to the running prompt at its next step boundary (after the current tool
   * results), and is a follow-up when nothing is running.
   * Contract: never rejects; a follow-up always ends with a `done` event; a steering message
   * resolves with the outcome of the prompt it joined.
   */
  prompt(
    text: string,
    images: ImageBlock[] = [],
    mode: PromptMode = 'follow_up',
    requestId?: RequestId,
  ): Promise<PromptOutcome> {
    const content: UserContent[] = [...(text ? [{ type: 'text' as const, text }] : []), ...images];
    if (mode === 'steer' && this.running) {
      this.queued.steer({ role: 'user', content, time: new Date().toISOString() });
      return this.running;
    }
    return this.followUp(content, requestId);
  }

  /**
   * Runs `content` as a prompt after whatever runs now; its `done` carries `requestId`.
   * Contract: as `prompt`.
   */
  private followUp(content: UserContent[], requestId?: RequestId): Promise<PromptOutcome> {
    // Only a prompt that really has to wait is shown in the queue; one that does not is the
    // running one from now on, so an abort sent right after it finds it.
    const entry = this.busy ? this.queued.addFollowUp(content) : undefined;
    const controller = new AbortController();
    if (!entry) this.controller = controller;
    return this.enqueue(async (): Promise<PromptOutcome> => {
      if (entry?.dropped) {
        return { stop: 'aborted', error: 'cancelled before it started', finalText: '' };
      }
      if (entry) this.queued.start(entry);
      this.controller = controller;
      try {
        if (this.closed) return { stop: 'aborted', error: 'the session was closed', finalText: '' };
        await this.extensionsStarting;
        if (this.closed) return { stop: 'aborted', error: 'the session was closed', finalText: '' };
        // Before the prompt joins the transcript: without a key it cannot be answered.
        const missing = this.missingKey();
        if (missing !== undefined) {
          this.emit({ type: 'error', message: missing, kind: 'auth' });
          return { stop: 'error', error: missing, errorKind: 'auth', finalText: '' };
        }
        const message: Message = { role: 'user', content, time: new Date().toISOString() };
        this.host?.notes.clearAll();
        this.messagesList.push(message);
        this.persist({ type: 'message', message });
        this.emit({ type: 'user_message', content, time: message.time });
        const run = runAgent(
          this.messagesList,
          this.agentSetup(controller.signal),
          controller.signal,
        );
        this.running = run;
        const result = await run;
        this.running = undefined;
        // Steering that came too late for this run (it ended, failed or was aborted) follows it.
        for (const late of this.queued.takeSteering()) void this.followUp(late.content);
        // A failed automatic compaction is reported on its own; the prompt itself succeeded.
        if (result.stop === 'end_turn' && this.needsCompaction(result.lastUsage)) {
          await this.compactNow(controller.signal);
        }
        return result;
      } finally {
        this.running = undefined;
        this.controller = undefined;
      }
    }, ending(requestId));
  }

  /**
   * Connects a person who can answer questions before a tool runs (the TUI's dialog, an RPC
   * client): ask rules reach them, and with `yolo: false` (--no-yolo) so does every call no
   * rule allows.
   */
  enableConfirmation(ask: AskPerson, options: { yolo?: boolean } = {}): ConfirmGate {
    this.gate = new ConfirmGate(
      ask,
      // The protocol's event carries the short preview only (extensions.md).
      ({ tool_id, tool_name, tool_preview }) =>
        this.host?.emitEvent('tool_confirmation_requested', { tool_id, tool_name, tool_preview }),
      { yolo: options.yolo ?? false },
    );
    this.statePublisher.publish();
    return this.gate;
  }
  get confirmation(): ConfirmGate | undefined {
    return this.gate;
  }

  /** The hooks of one run: the extensions' and, when anything can refuse a call, the gate. */
  private runHooks(signal: AbortSignal): AgentHooks {
    const gate = this.gate;
    const askByDefault = this.options.askByDefault === true;
    if (!gate && !this.options.rules && !askByDefault) return this.hooks;
    const confirmToolCall = (call: PendingToolCall) =>
      this.permissions.check(call, {
        gate,
        defaultAllows: gate ? gate.isYolo : !askByDefault,
        nobody: 'print or JSON mode',
        signal,
      });
    return { ...this.hooks, confirmToolCall };
  }

  private agentSetup(signal: AbortSignal) {
    return {
      cwd: this.cwd,
      maxSteps: this.options.maxSteps,
      hooks: this.runHooks(signal),
      activeTools: () => this.options.tools.active(),
      takeSteering: () => this.queued.takeSteering(),
      findTool: (name: string) => this.options.tools.find(name),
      settings: () => this.settings(),
      stream: this.options.stream,
      usage: (model: ModelInfo, usage: TokenUsage) => {
        const call = { ...usage, cost_usd: costUsd(model, usage) };
        this.lastCall = usage;
        this.persist({
          type: 'usage',
          time: new Date().toISOString(),
          provider: model.provider,
          model: model.id,
          ...call,
        });
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

  private needsCompaction(usage: TokenUsage | undefined): boolean {
    if (!usage) return false;
    return contextUsed(usage) >= AUTO_COMPACT_RATIO * this.model.contextWindow;
  }

  /**
   * Summarises the transcript; queued like a prompt, and its `done` carries `requestId`.
   * Contract: never rejects; ends with `done`.
   */
  compact(requestId?: RequestId): Promise<CompactOutcome> {
    const controller = new AbortController();
    if (!this.busy) this.controller = controller;
    return this.enqueue(async () => {
      this.controller = controller;
      try {
        return await this.compactNow(controller.signal);
      } finally {
        this.controller = undefined;
      }
    }, ending(requestId));
  }

  private async compactNow(signal: AbortSignal): Promise<CompactOutcome> {
    const result = await compactTranscript(
      this.messagesList,
      () => {
        const missing = this.missingKey();
        return missing === undefined
          ? { settings: this.settings() }
          : { error: missing, kind: 'auth' as const };
      },
      this.options.stream,
      this.hooks,
      signal,
    );
    if ('error' in result) {
      // An aborted compaction is no failure: its `done` says enough.
      if (result.kind === undefined) return { error: result.error };
      this.emit({ type: 'error', message: result.error, kind: result.kind });
      return { error: result.error, errorKind: result.kind };
    }
    const { summary, kept } = result;
    const time = new Date().toISOString();
    this.messagesList.splice(0, this.messagesList.length, summaryMessage(summary, time), ...kept);
    this.persist({ type: 'compaction', time, summary, kept: kept.length });
    this.emit({ type: 'compact_done', summary });
    return { summary };
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

  /**
   * Takes the last waiting follow-up out of the queue, so the user can edit it (the TUI puts it
   * back into the editor); it will not run. Returns its text, or undefined when none waits.
   */
  unqueueLast(): string | undefined {
    return this.queued.takeLastFollowUp()?.text;
  }

  /**
   * Aborts the running operation and drops every prompt waiting behind it (follow-ups and
   * steering): the TUI's Esc. Returns how many waiting messages were dropped.
   */
  cancel(): number {
    const dropped = this.queued.dropAll();
    this.abort();
    return dropped;
  }

  /** Drops the transcript. Contract: throws when busy (callers report "agent is busy"). */
  clear(): void {
    if (this.busy) throw new ErrorWithKind('busy', 'agent is busy');
    this.messagesList.length = 0;
    this.host?.notes.clearAll();
    if (this.writer?.exists) this.persist({ type: 'clear', time: new Date().toISOString() });
    this.statePublisher.publish();
  }

  /**
   * Starts a new session in this process (`/new`): an empty transcript, zero usage, a new
   * session file; extensions hear `session_start` again. Contract: throws when busy.
   */
  startNew(): void {
    if (this.busy) throw new ErrorWithKind('busy', 'agent is busy');
    this.replaceTranscript([], this.options.files?.create());
    this.totals = zeroUsage();
    this.lastCall = undefined;
    this.statePublisher.publish();
  }

  /** This directory's recorded sessions, newest first. */
  sessions(): SessionSummary[] {
    return this.options.files?.list() ?? [];
  }

  /**
   * Continues a recorded session in this process (`/sessions`): its transcript, usage and file
   * replace the current ones; extensions hear `session_start`; load problems are `warning`s.
   * Contract: throws when busy, when sessions are not recorded, or naming the unreadable file.
   */
  resume(path: string): void {
    if (this.busy) throw new ErrorWithKind('busy', 'agent is busy');
    const files = this.options.files;
    if (!files)
      throw new ErrorWithKind('failed', 'sessions are not recorded in this run (--no-session)');
    const opened = files.open(path);
    this.replaceTranscript(opened.messages, opened.writer);
    this.restoreUsage(opened.usage);
    for (const message of opened.warnings) this.emit({ type: 'warning', message });
    this.statePublisher.publish();
  }

  /** Names a recorded session (shown by `/sessions`). Contract: throws naming the file. */
  renameSession(path: string, name: string): void {
    const files = this.options.files;
    if (!files)
      throw new ErrorWithKind('failed', 'sessions are not recorded in this run (--no-session)');
    files.rename(path, name);
  }

  private replaceTranscript(messages: Message[], writer: SessionWriter | undefined): void {
    this.messagesList.splice(0, this.messagesList.length, ...messages);
    this.writer = writer;
    this.host?.notes.clearAll();
    this.host?.emitEvent('session_start');
  }

  /**
   * Switches the model: `id` of the current provider or `provider/id` of any other; the choice
   * is saved for the next run. Contract: throws with a readable message.
   */
  setModel(ref: string): ModelInfo {
    if (this.busy) throw new ErrorWithKind('busy', 'agent is busy');
    const model = this.options.providers.resolve(ref, this.model);
    if (!model) throw new ErrorWithKind('not_found', `unknown model "${ref}"`);
    this.model = model;
    try {
      this.options.providers.remember(model);
    } catch (error) {
      this.emit({
        type: 'warning',
        message: `could not save the model choice: ${errorMessage(error)}`,
      });
    }
    this.statePublisher.publish();
    return model;
  }
}
