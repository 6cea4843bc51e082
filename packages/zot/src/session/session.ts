// The one Session every mode drives: prompt (queued), abort, compact, clear, model, persistence.
// Its jobs live beside it, and it delegates to them: the operation queue (operation-queue.ts),
// prompt and compaction runs (prompt-runner.ts), the model and its keys (model-access.ts), the
// session file and usage (session-record.ts), extensions and trust (session-extensions.ts) and
// its listeners (session-listeners.ts).
import type { Usage } from '../agent/events.js';
import { previewCall } from '../agent/preview.js';
import type {
  ImageBlock,
  Message,
  ModelInfo,
  ProviderName,
  UserContent,
} from '../providers/types.js';
import type { ExtensionHost, ExtensionReport, PanelRequestResult } from '../extensions/host.js';
import type { SkillCatalog } from '../tools/skills/catalog.js';
import type { LoginResult, ProviderStatus } from './provider-access.js';
import type { SessionSummary } from './session-files.js';
import { errorMessage } from '../util/errors.js';
import { ErrorWithKind, type ErrorKind } from '../contract/errors.js';
import { PromptRunner, type CompactOutcome, type ShellOutcome } from './prompt-runner.js';
export type { CompactOutcome } from './prompt-runner.js';
import { ConfirmGate, type AskPerson } from './confirm.js';
import { PermissionGate } from './permission-gate.js';
import type { SessionEntry, SessionWriter } from './store.js';
import type { ToolRegistry } from './tool-registry.js';

/** Everything a session publishes: one union, defined in contract/events.ts. */
export type { SessionEvent } from '../contract/events.js';
import type { SessionEvent } from '../contract/events.js';
import type { RuntimeState } from '../contract/state.js';
import { extensionsOf, openPanelOf, StatePublisher } from './state.js';
import type { SandboxController } from '../security/sandbox/controller.js';
import type { ExtensionUi } from '../contract/extension-ui.js';
import type { AnswerExtension } from '../contract/extension-questions.js';
import { SessionListeners } from './session-listeners.js';
import { PromptQueue, type PromptMode } from './prompt-queue.js';
import { listCommands, type CommandInfo, type CommandMode } from './command-registry.js';
import {
  contextUsed,
  STATELESS_EVENTS,
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
import type { TrustAnswer, TrustOutcome, TrustReview } from './trust.js';
import { OperationQueue } from './operation-queue.js';
/** The id of the RPC request an operation runs for: its `done` carries it. */
export type { RequestId } from '../contract/front-end.js';
import type { RequestId } from '../contract/front-end.js';
import { ModelAccess } from './model-access.js';
import { recordedFiles, SessionRecord } from './session-record.js';
import { SessionExtensions } from './session-extensions.js';
import { Checkpointer } from './checkpoints/checkpointer.js';
import type { CheckpointTurn, RewindOutcome } from '../contract/checkpoints.js';
import type { CheckpointEntry } from './load.js';
import { basename } from 'node:path';

export class Session {
  readonly cwd: string;
  private readonly messagesList: Message[];
  private readonly listeners: SessionListeners;
  private readonly ops = new OperationQueue(
    () => this.statePublisher.publish(),
    (event) => this.emit(event),
  );
  private readonly access: ModelAccess;
  private readonly recorder: SessionRecord;
  private readonly ext: SessionExtensions;
  private readonly runner: PromptRunner;
  private gate: ConfirmGate | undefined;
  private readonly queued = new PromptQueue((queue) => this.emit({ type: 'queue', ...queue }));
  private readonly statePublisher = new StatePublisher(
    () => this.state(),
    (event) => this.emit(event),
  );
  /** The permission rules and the audit of their decisions (`/permissions`). */
  readonly permissions: PermissionGate;
  /** This session's working-tree checkpoints; undefined when they are off. */
  checkpoints: Checkpointer | undefined;

  constructor(private readonly options: SessionOptions) {
    this.listeners = new SessionListeners(options.warnings ?? []);
    this.permissions = new PermissionGate(
      options.rules,
      (event) => this.emit(event),
      options.cwd,
      options.ruleFiles,
    );
    this.cwd = options.cwd;
    const emit = (event: SessionEvent) => this.emit(event);
    this.access = new ModelAccess(options, options.model, emit);
    this.messagesList = [...(options.messages ?? [])];
    this.recorder = new SessionRecord(options.writer, options.usage, emit);
    this.ext = new SessionExtensions(options, {
      emit,
      refreshState: () => this.refreshState(),
      record: (entry) => this.record(entry),
      subscribe: (listener) => this.subscribe(listener),
      enqueue: (run) => this.ops.enqueue(run),
    });
    this.runner = new PromptRunner({
      options,
      cwd: this.cwd,
      messages: this.messagesList,
      queued: this.queued,
      ops: this.ops,
      access: this.access,
      recorder: this.recorder,
      ext: this.ext,
      permissions: this.permissions,
      gate: () => this.gate,
      checkpoints: () => this.checkpoints,
      emit,
    });
    this.checkpoints = this.newCheckpointer(options.checkpoints?.recorded);
    const sandbox = options.sandbox;
    if (sandbox) {
      sandbox.onChange(() => this.refreshState());
      sandbox.onWarning((message) => this.warn(message));
      // Probed now, so that the status line and the first warning come before any command.
      if (sandbox.mode !== 'off') void sandbox.check();
    }
  }

  /** Checkpoints for the session file in use (a new one after /new, the resumed one's after /sessions). */
  private newCheckpointer(recorded: CheckpointEntry[] | undefined): Checkpointer | undefined {
    const setup = this.options.checkpoints;
    if (!setup) return undefined;
    const path = this.recorder.path;
    return new Checkpointer({
      store: setup.store,
      // Without a session file (--no-session) the refs need a name of this run's own.
      sessionKey: path ? basename(path, '.jsonl') : `run-${process.pid}-${Date.now().toString(36)}`,
      record: (entry) => this.recorder.append(entry),
      warn: (message) => this.warn(message),
      ...(recorded ? { recorded } : {}),
      ...(setup.prune ? { prune: setup.prune } : {}),
    });
  }

  /** A warning for the front ends; held for the first subscriber when none is there yet. */
  private warn(message: string): void {
    if (!this.listeners.hold(message)) this.emit({ type: 'warning', message });
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

  /**
   * Contract: the first subscriber (a mode subscribes before anything runs) also receives the
   * warnings of loading the transcript, as `warning` events.
   */
  subscribe(listener: (event: SessionEvent) => void): () => void {
    return this.listeners.subscribe(listener);
  }

  /**
   * Connects the mode's extension-UI port: extension UI events go to it (and still to every
   * subscriber, which may skip them with `isExtensionUiEvent`). Returns a disconnect function.
   */
  connectUi(ui: ExtensionUi): () => void {
    return this.listeners.connectUi(ui);
  }

  private emit(event: SessionEvent): void {
    this.listeners.send(event);
    if (!STATELESS_EVENTS.has(event.type)) this.statePublisher.publish();
  }

  /** The command registry: built-ins, then extensions'; only those of `mode` when given. */
  commands(mode?: CommandMode): CommandInfo[] {
    const all = listCommands(this.ext.host);
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
    if (name !== undefined && !BUILTIN_COMMANDS.includes(name.toLowerCase())) {
      this.ext.host?.startHeld(`the command /${name} waits for every extension`);
      await this.ext.started;
    }
    const result = await runSlashCommand(this, text, mode, requestId);
    const event = announce ? slashResultEvent(result) : undefined;
    if (event) this.emit(event);
    return result;
  }

  /** A key for an open extension panel (the front end's user typed it). */
  panelKey(panelId: string, key: string, text?: string): PanelRequestResult {
    return (
      this.ext.host?.panelKey(panelId, key, text) ?? {
        ok: false,
        error: `no open panel "${panelId}"`,
        kind: 'not_found',
      }
    );
  }

  /** The user closed a panel. Returns false when no such panel is open. */
  closePanel(panelId: string): boolean {
    return this.ext.host?.closePanel(panelId) ?? false;
  }

  /** The front end's output is backed up (true) or drained (false): extensions are held back. */
  setOutputBlocked(blocked: boolean): void {
    this.ext.host?.setOutputBlocked(blocked);
  }

  /** Re-checks the snapshot after a change made outside the session (e.g. `/yolo`). */
  refreshState(): void {
    this.statePublisher.publish();
  }

  /** The runtime's snapshot (the fields of `get_state` and of the `state` event). */
  state(): RuntimeState {
    const host = this.ext.host;
    return {
      provider: this.access.model.provider,
      model: this.access.model.id,
      cwd: this.cwd,
      busy: this.busy,
      queue_length: Math.max(0, this.ops.pending - 1),
      message_count: this.messagesList.length,
      session_file: this.recorder.path ?? null,
      usage: this.usageTotals,
      context: {
        used: this.recorder.lastCall ? contextUsed(this.recorder.lastCall) : 0,
        window: this.access.model.contextWindow,
      },
      yolo: this.gate?.isYolo ?? true,
      sandbox: this.options.sandbox?.state() ?? { mode: 'off', status: 'off', network: false },
      extensions: extensionsOf(host),
      open_panel: openPanelOf(host),
      commands_revision: host?.commandsRevision ?? 0,
    };
  }

  get messages(): readonly Message[] {
    return this.messagesList;
  }
  get busy(): boolean {
    return this.ops.pending > 0;
  }
  get currentModel(): ModelInfo {
    return this.access.model;
  }
  get usageTotals(): Usage {
    return this.recorder.usageTotals;
  }
  get sessionFile(): string | undefined {
    return this.recorder.path;
  }
  get toolRegistry(): ToolRegistry {
    return this.options.tools;
  }
  get extensions(): ExtensionHost | undefined {
    return this.ext.host;
  }

  /**
   * Starts the extensions (after the mode subscribed, so it sees their errors) and resolves when
   * every one is ready or failed. With `wait: 'needed'` (a one-shot run) it resolves, and
   * prompts may run, as soon as those a first model request must wait for are: an extension
   * whose registrations of an earlier run are remembered, and say it intercepts and observes
   * nothing, starts in the background, its remembered tools offered meanwhile (a call of one
   * waits for it). Slash commands of extensions always wait for every extension.
   */
  startExtensions(wait: 'all' | 'needed' = 'all'): Promise<void> {
    return this.ext.start(wait);
  }

  /** Project extensions waiting for the user's trust (the TUI's dialog); [] when none. */
  trustReviews(): Promise<TrustReview[]> {
    return this.ext.trustReviews();
  }

  /** Applies trust answers; extensions restart when that changes what runs. Never rejects. */
  decideTrust(answers: readonly TrustAnswer[]): Promise<TrustOutcome> {
    return this.ext.decideTrust(answers);
  }

  /** Restarts every extension (starting the host first if there was none); queued. */
  reloadExtensions(): Promise<ExtensionReport[]> {
    return this.ext.reload();
  }

  /** Ends everything: aborts work, shuts extensions down. Contract: never rejects. */
  async dispose(): Promise<void> {
    await this.close();
    await this.ext.host?.shutdown();
    await this.checkpoints?.settle();
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
  login(provider: ProviderName, key: string, signal?: AbortSignal): Promise<LoginResult> {
    return this.access.login(provider, key, signal);
  }

  /** Removes a saved API key (`/logout`); false when none was saved. */
  logout(provider: ProviderName): boolean {
    return this.access.logout(provider);
  }

  /** The checkpointed turns of this session; undefined when checkpoints are off. */
  async listCheckpoints(): Promise<CheckpointTurn[] | undefined> {
    return this.checkpoints?.list();
  }

  /**
   * Restores the files as they were before `turn`'s first tool call (rewinding is itself a
   * turn, so it can be undone). Contract: throws when busy or when checkpoints are off; never
   * rejects otherwise (a conflict or failure is the outcome).
   */
  rewindCode(turn: number, force = false): Promise<RewindOutcome> {
    if (this.busy) throw new ErrorWithKind('busy', 'agent is busy');
    const checkpoints = this.checkpoints;
    if (!checkpoints)
      throw new ErrorWithKind(
        'failed',
        'checkpoints are off in this run (--no-checkpoints or the setting)',
      );
    return this.ops.enqueue(() => checkpoints.rewind(turn, force));
  }

  /** Whether the conversation can go back to before `turn`: ok, or why not. */
  conversationPoint(turn: number): { ok: true } | { ok: false; message: string; kind: ErrorKind } {
    const checkpoints = this.checkpoints;
    if (!checkpoints) {
      return {
        ok: false,
        kind: 'failed',
        message: 'checkpoints are off in this run (--no-checkpoints or the setting)',
      };
    }
    if (!checkpoints.has(turn))
      return { ok: false, kind: 'not_found', message: `there is no turn ${turn}` };
    const messages = checkpoints.conversationPoint(turn);
    if (messages === undefined || messages > this.messagesList.length) {
      return {
        ok: false,
        kind: 'failed',
        message: `the conversation was compacted or cleared after turn ${turn}; only its files can be rewound`,
      };
    }
    return { ok: true };
  }

  /**
   * Moves the conversation back to before `turn`'s prompt: the transcript keeps the messages it
   * had then, and a `rewind` entry records it (the later messages stay in the file). Contract:
   * throws when busy or when checkpoints are off; never throws otherwise.
   */
  rewindConversation(
    turn: number,
  ): { ok: true; messages: number } | { ok: false; message: string } {
    if (this.busy) throw new ErrorWithKind('busy', 'agent is busy');
    const point = this.conversationPoint(turn);
    if (!point.ok) return point;
    const checkpoints = this.checkpoints!;
    const messages = checkpoints.conversationPoint(turn)!;
    this.messagesList.splice(messages);
    this.recorder.append({ type: 'rewind', time: new Date().toISOString(), turn, messages });
    checkpoints.conversationChanged(messages);
    this.statePublisher.publish();
    return { ok: true, messages };
  }

  /** Adds an audit or other non-model record to the session file. */
  record(entry: SessionEntry): void {
    this.recorder.append(entry);
  }

  /**
   * Why a prompt could not be answered now: no API key for the current model's provider (the
   * message says how to provide one); undefined when a call can be made. Looks the key up as a
   * prompt does, so a front end can keep a prompt that would fail. Contract: never throws.
   */
  keyProblem(): string | undefined {
    return this.access.keyProblem();
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
    origin: 'user' | 'extension' = 'user',
  ): Promise<PromptOutcome> {
    const content: UserContent[] = [...(text ? [{ type: 'text' as const, text }] : []), ...images];
    if (mode === 'steer' && this.runner.running) return this.runner.steer(content, requestId);
    return this.runner.followUp(content, requestId, origin);
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
        this.ext.host?.emitEvent('tool_confirmation_requested', {
          tool_id,
          tool_name,
          tool_preview,
        }),
      { yolo: options.yolo ?? false },
    );
    this.statePublisher.publish();
    return this.gate;
  }
  /**
   * Connects who answers extensions' questions (ui_request): the TUI's dialogs, an RPC client.
   * Without it (print, JSON) every question is answered `unavailable` at once.
   */
  answerExtensionQuestions(answer: AnswerExtension): void {
    this.ext.answerQuestionsWith(answer);
  }

  get confirmation(): ConfirmGate | undefined {
    return this.gate;
  }

  /**
   * Summarises the transcript; queued like a prompt, and its `done` carries `requestId`.
   * Contract: never rejects; ends with `done`.
   */
  compact(requestId?: RequestId): Promise<CompactOutcome> {
    return this.runner.compact(requestId);
  }

  /** Resolves once nothing runs or waits in the queue. Contract: never rejects. */
  idle(): Promise<void> {
    return this.ops.idle();
  }

  /** Aborts the running operation and every queued one; resolves when all have ended. */
  async close(): Promise<void> {
    this.runner.close();
    await this.ops.drained();
  }

  /** Aborts the running prompt or compaction; queued ones still run. */
  abort(): void {
    this.runner.abort();
  }

  /**
   * Takes the last waiting follow-up out of the queue, so the user can edit it (the TUI puts it
   * back into the editor); it will not run. Returns its text, or undefined when none waits.
   */
  unqueueLast(): string | undefined {
    return this.queued.takeLastFollowUp()?.text;
  }

  /**
   * Runs a command the user typed (`!cmd`, `!!cmd` in the TUI) through the bash tool's
   * machinery, shown as a tool row; with `addToContext` the command and its output join the
   * transcript for the model. Waits for the running operation. Contract: never rejects.
   */
  shell(command: string, addToContext: boolean, requestId?: RequestId): Promise<ShellOutcome> {
    return this.runner.shell(command, addToContext, requestId);
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
    this.checkpoints?.conversationChanged();
    this.ext.host?.notes.clearAll();
    if (this.recorder.exists)
      this.recorder.append({ type: 'clear', time: new Date().toISOString() });
    this.statePublisher.publish();
  }

  /**
   * Starts a new session in this process (`/new`): an empty transcript, zero usage, a new
   * session file; extensions hear `session_start` again. Contract: throws when busy.
   */
  startNew(): void {
    if (this.busy) throw new ErrorWithKind('busy', 'agent is busy');
    this.replaceTranscript([], this.options.files?.create());
    this.checkpoints = this.newCheckpointer(undefined);
    this.recorder.resetUsage();
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
    const opened = recordedFiles(this.options.files).open(path);
    this.replaceTranscript(opened.messages, opened.writer);
    this.checkpoints = this.newCheckpointer(opened.checkpoints);
    this.recorder.restoreUsage(opened.usage);
    for (const message of opened.warnings) this.emit({ type: 'warning', message });
    this.statePublisher.publish();
  }

  /** Names a recorded session (shown by `/sessions`). Contract: throws naming the file. */
  renameSession(path: string, name: string): void {
    recordedFiles(this.options.files).rename(path, name);
  }

  private replaceTranscript(messages: Message[], writer: SessionWriter | undefined): void {
    this.messagesList.splice(0, this.messagesList.length, ...messages);
    this.recorder.switchTo(writer);
    this.ext.host?.notes.clearAll();
    this.ext.host?.emitEvent('session_start');
  }

  /**
   * Switches the model: `id` of the current provider or `provider/id` of any other; the choice
   * is saved for the next run. Contract: throws with a readable message.
   */
  setModel(ref: string): ModelInfo {
    if (this.busy) throw new ErrorWithKind('busy', 'agent is busy');
    const model = this.access.select(ref);
    this.statePublisher.publish();
    return model;
  }
}
