// The one Session every mode drives: prompt (queued), abort, compact, clear, model, persistence.
// What it is made of, its events and its state snapshot are session-core.ts; the operations
// here delegate to its jobs: the operation queue (operation-queue.ts), prompt and compaction
// runs (prompt-runner.ts), the model and its keys (model-access.ts), the session file and usage
// (session-record.ts), the transcript (transcript.ts), extensions and trust
// (session-extensions.ts) and working-tree checkpoints (checkpoints/).
import { previewCall } from '../agent/preview.js';
import type { CheckpointTurn, RewindOutcome, RewindPreview } from '../contract/checkpoints.js';
import { ErrorWithKind, type ErrorKind } from '../contract/errors.js';
import type { AnswerExtension } from '../contract/extension-questions.js';
import type { EditorFiles, EditorTerminal, RequestId, SlashResult } from '../contract/front-end.js';
import type { ExtensionReport, PanelRequestResult } from '../extensions/host.js';
import { saveSettings } from '../config/settings.js';
import type {
  ImageBlock,
  ModelInfo,
  ProviderName,
  ReasoningLevel,
  UserContent,
} from '../providers/types.js';
import type { SkillCatalog } from '../tools/skills/catalog.js';
import { errorMessage } from '../util/errors.js';
import { listCommands, type CommandInfo, type CommandMode } from './command-registry.js';
import { BUILTIN_COMMANDS, parseSlash, runSlashCommand, slashResultEvent } from './commands.js';
import { announcedGate, type AskPerson, type ConfirmGate } from './confirm.js';
import type { PromptMode } from './prompt-queue.js';
import type { CompactOutcome, ShellOutcome } from './prompt-runner.js';
import type { LoginResult, ProviderStatus } from './provider-access.js';
import { SessionCore } from './session-core.js';
import type { SessionSummary } from './session-files.js';
import type { PromptOutcome } from './session-options.js';
import type { TrustAnswer, TrustOutcome, TrustReview } from './trust.js';

const CHECKPOINTS_OFF = 'checkpoints are off in this run (--no-checkpoints or the setting)';

export class Session extends SessionCore {
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
    // Not `checkpoints`: a transcript still being read at exit is not read for this.
    await this.checkpointer?.settle();
    // Branch summaries asked of the model are dropped: the plain ones are written already.
    await this.branches.settle(true);
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

  /** The checkpoint store, when the agent is idle and checkpoints are on; throws otherwise. */
  private idleCheckpoints(): NonNullable<Session['checkpoints']> {
    if (this.busy) throw new ErrorWithKind('busy', 'agent is busy');
    if (!this.checkpoints) throw new ErrorWithKind('failed', CHECKPOINTS_OFF);
    return this.checkpoints;
  }

  /**
   * Restores the files as they were before `turn`'s first tool call (rewinding is itself a
   * turn, so it can be undone). Contract: throws when busy or when checkpoints are off; never
   * rejects otherwise (a conflict or failure is the outcome).
   */
  rewindCode(turn: number, force: boolean | readonly string[] = false): Promise<RewindOutcome> {
    const checkpoints = this.idleCheckpoints();
    return this.ops.enqueue(() => checkpoints.rewind(turn, force));
  }

  /**
   * What rewinding the files to before `turn` would change now (undefined: no such turn).
   * Contract: throws when busy or when checkpoints are off; rejects naming what failed.
   */
  previewRewind(turn: number): Promise<RewindPreview | undefined> {
    const checkpoints = this.idleCheckpoints();
    return this.ops.enqueue(() => checkpoints.preview(turn));
  }

  /** Whether the conversation can go back to before `turn`: ok, or why not. */
  conversationPoint(turn: number): { ok: true } | { ok: false; message: string; kind: ErrorKind } {
    const checkpoints = this.checkpoints;
    if (!checkpoints) {
      return {
        ok: false,
        kind: 'failed',
        message: CHECKPOINTS_OFF,
      };
    }
    if (!checkpoints.has(turn))
      return { ok: false, kind: 'not_found', message: `there is no turn ${turn}` };
    const messages = checkpoints.conversationPoint(turn);
    if (messages === undefined || messages > this.transcript.messages.length) {
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
    const leaving = this.branches.leaving();
    this.transcript.messages.splice(messages);
    this.recorder.append({ type: 'rewind', time: new Date().toISOString(), turn, messages });
    checkpoints.conversationChanged(messages);
    this.statePublisher.publish();
    leaving?.();
    return { ok: true, messages };
  }

  /**
   * Why a prompt could not be answered now: no API key for the current model's provider (the
   * message says how to provide one); undefined when a call can be made. Looks the key up as a
   * prompt does, so a front end can keep a prompt that would fail. Contract: never throws.
   */
  keyProblem(): string | undefined {
    return this.access.keyProblem();
  }

  /** Routes the read, write and edit tools through an editor's buffers (undefined: the disk). */
  useEditorFiles(files: EditorFiles | undefined): void {
    if (this.options.fileRoute) this.options.fileRoute.editor = files;
  }

  /** Runs bash in an editor's terminals (undefined: zot's own process again). */
  useEditorTerminal(terminal: EditorTerminal | undefined): void {
    if (this.options.fileRoute) this.options.fileRoute.terminal = terminal;
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
    this.gate = announcedGate(ask, () => this.ext.host, options.yolo ?? false);
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
    this.transcript.clear();
  }

  /**
   * Starts a new session in this process (`/new`): an empty transcript, zero usage, a new
   * session file and its checkpoints; extensions hear `session_start` again. Contract: throws
   * when busy.
   */
  startNew(): void {
    this.transcript.startNew();
  }

  /** This directory's recorded sessions, newest first. */
  sessions(): SessionSummary[] {
    return this.transcript.list();
  }

  /**
   * Continues a recorded session in this process (`/sessions`): its transcript, usage, file and
   * checkpoints replace the current ones; extensions hear `session_start`; load problems are
   * `warning`s. Contract: throws when busy, when sessions are not recorded, or naming the
   * unreadable file.
   */
  resume(path: string): void {
    this.transcript.resume(path);
  }

  /** Names a recorded session (shown by `/sessions`). Contract: throws naming the file. */
  renameSession(path: string, name: string): void {
    this.transcript.rename(path, name);
  }

  /**
   * Deletes one of this directory's recorded sessions (never the one in use). Contract: throws
   * naming the file and why.
   */
  deleteSession(path: string): void {
    this.transcript.delete(path);
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

  /** The thinking level model calls ask for; `off` asks for none. */
  reasoningLevel(): ReasoningLevel | 'off' {
    return this.access.reasoning;
  }

  /**
   * Changes the thinking level from the next model call on (a running turn's next step too) and
   * saves it for the next run; a save that fails is a `warning`, the change stands.
   */
  setReasoningLevel(level: ReasoningLevel | 'off'): void {
    this.access.setReasoning(level);
    if (!this.configPath) return;
    try {
      saveSettings(this.configPath, { reasoning: level });
    } catch (error) {
      this.emit({
        type: 'warning',
        message: `could not save the thinking level: ${errorMessage(error)}`,
      });
    }
  }
}
