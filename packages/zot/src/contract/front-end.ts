// The front-end port: what each mode (print, JSON, RPC, the TUI) may ask of the session
// runtime, and the types those requests carry. Modes import these and nothing of session/; the
// composition root hands them the Session, which the compiler holds to every port here.
import type { BranchOps } from './branches.js';
import type { CheckpointTurn, RewindOutcome, RewindPreview } from './checkpoints.js';
import type { PanelSpec } from '@zot/protocol';
import type { ConfirmDecision } from './confirm.js';
import type { ImageBlock, Message, StopReason } from './content.js';
import type { ErrorKind } from './errors.js';
import type { FrontEndEvent, SessionEvent } from './events.js';
import type { AnswerExtension } from './extension-questions.js';
import type { ExtensionUi } from './extension-ui.js';
import type { RuntimeState } from './state.js';
import type { ExtensionReport, SessionSummary } from './summaries.js';
import type { TokenUsage } from './usage.js';
import type { ProviderName } from './provider-names.js';

export type CommandMode = 'print' | 'json' | 'rpc' | 'tui';

export interface CommandInfo {
  name: string;
  description: string;
  /** Shown after the name in help and autocomplete, e.g. `<model id>`. */
  argumentHint?: string;
  /** `builtin`, or the name of the extension that registered it. */
  source: string;
  modes: readonly CommandMode[];
}

/** How a prompt's run ended. */
export interface PromptOutcome {
  stop: StopReason;
  error?: string;
  /** With `error`: what kind of failure it was. */
  errorKind?: ErrorKind;
  /** The last assistant text the user was shown (after screening). */
  finalText: string;
  /** Usage of the last model call, for context-window accounting. */
  lastUsage?: TokenUsage;
  /** The last answer was a provider refusal (its text is `finalText`). */
  refusal?: boolean;
}

export type SlashResult =
  | { kind: 'prompt'; outcome: PromptOutcome }
  | { kind: 'display'; extension?: string; text: string }
  | { kind: 'insert'; extension: string; text: string }
  | { kind: 'panel'; extension: string; panel: PanelSpec }
  | { kind: 'noop' }
  /** `errorKind` when the failure is of a kind of its own (default `command`). */
  | {
      kind: 'error';
      message: string;
      errorKind?: ErrorKind;
      /** The session already published it as an `error` event: front ends do not repeat it. */
      reported?: boolean;
    };

export type { ProviderName };

export type ConfirmRequest = Omit<Extract<FrontEndEvent, { type: 'confirm_request' }>, 'type'>;
/** Who answers: the TUI dialog, or an RPC client. Must resolve (deny on abort). */
export type AskPerson = (request: ConfirmRequest, signal: AbortSignal) => Promise<ConfirmDecision>;

export interface ProviderStatus {
  provider: ProviderName;
  /** False when the provider's server is on this machine (ollama, LM Studio ...): no key needed. */
  needs_key: boolean;
  /** Where this provider's key comes from now; absent when it has none. */
  key_source?: 'flag' | 'env' | 'auth.json';
  /** A call can be made now: it has a key, needs none, or goes to a base URL of the user's. */
  ready: boolean;
}

export type LoginResult =
  | { ok: true; message: string; warning?: string }
  | { ok: false; error: string };

export type TrustDecision = 'always' | 'once' | 'skip';

/** A project extension waiting for the user's trust, as the trust dialog shows it. */
export interface TrustReview {
  name: string;
  dir: string;
  description?: string;
  /** `new`: never trusted; `changed`: trusted once, different now; `once`: running this session only. */
  state: 'new' | 'changed' | 'once';
  /** When the old content was trusted (`changed`). */
  trustedAt?: string;
  /** The program and its arguments, as they would be spawned. */
  argv: string[];
  files: number;
  bytes: number;
  /** Paths outside the directory the hash covers too (node_modules Node would search). */
  covered: string[];
  /** `sha256:<hex>` of everything above: what a decision pins. */
  hash: string;
  /**
   * The global extension of the same name: trusting or running this one replaces it in this
   * project (skipping keeps it). Absent when there is no such clash.
   */
  replaces?: { name: string; dir: string };
  /** It declares permissions (runs sandboxed with only those); false: unscoped, full rights. */
  scoped: boolean;
  /** What it may do, one line each (for an unscoped one: that it has full rights). */
  permissions: string[];
  /** The same in two short lines (scoped ones), for a narrow dialog. */
  summary: string[];
  /** `changed`: what it asks for beyond the permissions you trusted before. */
  widened: string[];
}

export interface TrustAnswer {
  review: TrustReview;
  decision: TrustDecision;
}

export interface TrustOutcome {
  /** One per answer that could not be applied. */
  errors: Array<{ dir: string; message: string }>;
  /** The reload's reports when the answers changed what runs. */
  reports?: ExtensionReport[];
}

/** What print and JSON mode use: one prompt or slash command, its events, extension output. */
export interface OneShotSession {
  subscribe(listener: (event: SessionEvent) => void): () => void;
  connectUi(ui: ExtensionUi): () => void;
  /** `needed`: only the extensions a prompt needs are waited for; `all` for a slash command. */
  startExtensions(wait?: 'all' | 'needed'): Promise<void>;
  /** Contract: never rejects. */
  prompt(text: string): Promise<PromptOutcome>;
  /** Contract: never rejects. */
  runCommand(text: string, mode: CommandMode, announce: boolean): Promise<SlashResult>;
  /** The output stream is full (true) or drained: extensions' output is held meanwhile. */
  setOutputBlocked(blocked: boolean): void;
}

export type RequestId = string | number;

/** How much the model thinks before it answers (models without reasoning ignore it). */
export type ReasoningChoice = 'off' | 'low' | 'medium' | 'high';
export const REASONING_CHOICES: readonly ReasoningChoice[] = ['off', 'low', 'medium', 'high'];

/** What RPC mode uses: every request a client may send, over one long-lived session. */
export interface RpcSession extends Omit<OneShotSession, 'prompt' | 'runCommand'> {
  readonly currentModel: { id: string; provider: string };
  readonly messages: readonly Message[];
  readonly busy: boolean;
  readonly sessionFile: string | undefined;
  /** Contract: never rejects. */
  prompt(
    text: string,
    images?: ImageBlock[],
    mode?: 'follow_up' | 'steer',
    requestId?: RequestId,
  ): Promise<unknown>;
  /** Contract: never rejects. */
  runCommand(
    text: string,
    mode: CommandMode,
    announce: boolean,
    requestId?: RequestId,
  ): Promise<SlashResult>;
  compact(requestId?: RequestId): Promise<unknown>;
  /** Drops everything waiting; returns how many waited. */
  cancel(): number;
  abort(): void;
  clear(): void;
  state(): RuntimeState;
  models(): ReadonlyArray<{
    id: string;
    provider: string;
    contextWindow: number;
    maxTokens: number;
    reasoning: boolean;
  }>;
  sessions(): SessionSummary[];
  /** Contract: throws when busy or naming the unreadable file. */
  resume(path: string): void;
  /** The checkpointed turns; undefined when checkpoints are off. */
  listCheckpoints(): Promise<CheckpointTurn[] | undefined>;
  /**
   * `force`: true, or the conflicts a person accepted (any other conflict refuses).
   * Contract: throws when busy or when checkpoints are off; never rejects otherwise.
   */
  rewindCode(turn: number, force?: boolean | readonly string[]): Promise<RewindOutcome>;
  /** Whether the conversation can go back to before `turn`: ok, or why not. */
  conversationPoint(turn: number): { ok: true } | { ok: false; message: string; kind: ErrorKind };
  /** Contract: throws when busy or when checkpoints are off. */
  rewindConversation(turn: number): { ok: true; messages: number } | { ok: false; message: string };
  /** The session tree: list, switch, fork, clone, merge (contract/branches.ts). */
  readonly branches: BranchOps;
  setModel(ref: string): { id: string; provider: string };
  commands(): CommandInfo[];
  reloadExtensions(): Promise<ExtensionReport[]>;
  panelKey(
    panelId: string,
    key: string,
    text?: string,
  ): { ok: true } | { ok: false; error: string; kind: ErrorKind };
  closePanel(panelId: string): boolean;
  enableConfirmation(ask: AskPerson, options?: { yolo?: boolean }): unknown;
  /** Who answers extensions' questions (ui_request); unconnected, they get `unavailable`. */
  answerExtensionQuestions(answer: AnswerExtension): void;
  idle(): Promise<void>;
  close(): Promise<void>;
}

export interface SkillInfo {
  name: string;
  description: string;
  source: string;
  allowedTools?: string[];
}

/**
 * A resumed transcript's newest messages a front end draws at most (from a prompt on; about
 * 20 turns with tools); the older ones stay in the model's context. The TUI's runtime reads
 * this many from the end of a long session file first, and the rest after the first frame.
 */
export const RESUMED_MESSAGES_DRAWN = 80;

/** What the interactive mode (the TUI) uses; controllers are driven by a fake of it in tests. */
export interface InteractiveSession {
  subscribe(listener: (event: SessionEvent) => void): () => void;
  /** While a resumed transcript is still being read, `message_count` counts none of it. */
  state(): RuntimeState;
  /** The whole transcript: reading it reads the rest of a deferred one at once. */
  readonly messages: readonly Message[];
  /**
   * The newest messages (at least RESUMED_MESSAGES_DRAWN, from a prompt on) of a resumed
   * transcript still being read, or undefined when it is whole (or was never deferred).
   */
  transcriptPreview(): readonly Message[] | undefined;
  /**
   * Reads more of a deferred transcript until `until` (performance.now()); once it is whole,
   * returns how many messages the file held (without any added since), else undefined.
   */
  loadTranscript(until: number): number | undefined;
  readonly busy: boolean;
  /** Why a prompt could not be answered now (no API key), or undefined. Never throws. */
  keyProblem(): string | undefined;
  /**
   * Contract (Session.prompt): never rejects. `origin` says who sent it: the user typed it, or
   * an extension put it in the editor (the user_prompt interceptors see which).
   */
  prompt(
    text: string,
    images?: ImageBlock[],
    mode?: 'follow_up' | 'steer',
    requestId?: RequestId,
    origin?: 'user' | 'extension',
  ): Promise<unknown>;
  /** Aborts the running operation and drops everything waiting; returns how many waited. */
  cancel(): number;
  /** A key for the open extension panel (the spec's key names). */
  panelKey(
    panelId: string,
    key: string,
    text?: string,
  ): { ok: true } | { ok: false; error: string };
  /** The user closed the panel; false when no such panel is open. */
  closePanel(panelId: string): boolean;
  /** Takes the last queued follow-up back for editing; undefined when none waits. */
  unqueueLast(): string | undefined;
  /**
   * Runs a command the user typed (`!cmd`) as a bash call of the user's own: the bash tool's
   * limits, permission rules and sandbox, shown as a tool row; with `addToContext` the command
   * and its output join the transcript (`!!cmd` leaves them out). After the running operation.
   * Contract (Session.shell): never rejects.
   */
  shell(command: string, addToContext: boolean): Promise<unknown>;
  /** Connects the extension-UI port; returns a disconnect function. */
  connectUi(ui: ExtensionUi): () => void;
  /** Resolves once nothing runs or waits. */
  idle(): Promise<void>;
  commands(mode: 'tui'): CommandInfo[];
  /** Contract (Session.runCommand): never rejects. */
  runCommand(text: string, mode: 'tui', announce: boolean): Promise<SlashResult>;
  enableConfirmation(ask: AskPerson, options?: { yolo?: boolean }): unknown;
  /** Who answers extensions' questions (ui_request): the TUI's dialogs. */
  answerExtensionQuestions(answer: AnswerExtension): void;
  startExtensions(): Promise<unknown>;
  /** Every skill, read afresh; undefined when skills are off. */
  skills(): Promise<{ skills: SkillInfo[]; warnings: string[] } | undefined>;
  skillBody(name: string): Promise<{ body: string; file: string } | { error: string }>;
  /** A tool call's one-line preview (for replayed transcripts). */
  toolPreview(name: string, args: Record<string, unknown>): string;
  /** Every model of every provider; `setModel` takes `provider/id` and saves the choice. */
  models(): ReadonlyArray<{
    id: string;
    provider: string;
    contextWindow: number;
    reasoning: boolean;
  }>;
  setModel(ref: string): { id: string; provider: string };
  /** The thinking level model calls ask for (`off`: none). */
  reasoningLevel(): ReasoningChoice;
  /** From the next model call on; saved for the next run. Contract: never throws. */
  setReasoningLevel(level: ReasoningChoice): void;
  sessions(): SessionSummary[];
  /** Contract: throws when busy or naming the unreadable file. */
  resume(path: string): void;
  renameSession(path: string, name: string): void;
  /** One of this directory's sessions, not the one in use. Contract: throws naming the file. */
  deleteSession(path: string): void;
  providers(): ProviderStatus[];
  login(
    provider: ProviderStatus['provider'],
    key: string,
    signal?: AbortSignal,
  ): Promise<LoginResult>;
  logout(provider: ProviderStatus['provider']): boolean;
  /** Project extensions waiting for the user's trust. Contract: never rejects. */
  trustReviews(): Promise<TrustReview[]>;
  /** Applies the answers; extensions restart when what runs changed. Contract: never rejects. */
  decideTrust(answers: readonly TrustAnswer[]): Promise<TrustOutcome>;
  /** Why the sandbox keeps `path` from being read (an `@file` mention), or undefined. */
  readDenial?(path: string): string | undefined;
  /** The /rewind dialog's calls (RpcSession's, and a preview of what a rewind would change). */
  listCheckpoints: RpcSession['listCheckpoints'];
  rewindCode: RpcSession['rewindCode'];
  conversationPoint: RpcSession['conversationPoint'];
  rewindConversation: RpcSession['rewindConversation'];
  /** What a rewind of the files would change now. Contract: throws when busy or off. */
  previewRewind(turn: number): Promise<RewindPreview | undefined>;
  /** /tree, /fork, /clone, /merge. */
  readonly branches: BranchOps;
}

/** An MCP server the editor hands to an ACP session: the user's own choice, so no trust gate. */
export type EditorMcpServer =
  | {
      transport: 'stdio';
      name: string;
      command: string;
      args: string[];
      env: Record<string, string>;
    }
  | { transport: 'http'; name: string; url: string; headers: Record<string, string> };

/**
 * The editor's view of files (ACP's `fs/read_text_file`, `fs/write_text_file`): text as its
 * buffers hold it, unsaved changes included, and writes that land in them. Paths are absolute.
 * Contract: each rejects with an Error saying what failed.
 */
export interface EditorFiles {
  readText?(path: string): Promise<string>;
  writeText?(path: string, text: string): Promise<void>;
}

/** One bash command for the editor's terminal (ACP's `terminal/*`). */
export interface TerminalRun {
  /** The tool call it belongs to (the editor shows the terminal in it). */
  toolCallId: string;
  /** The shell and its arguments (`bash -c <command>`). */
  argv: [string, ...string[]];
  cwd: string;
  timeoutMs: number;
  /** Aborts when the turn is cancelled: the command is killed. */
  signal: AbortSignal;
  /** The editor keeps at most this many bytes of output (the tail). */
  outputByteLimit: number;
}

/** How a command in the editor's terminal ended, and what it printed. */
export interface TerminalOutcome {
  kind: 'exited' | 'timeout' | 'aborted';
  exitCode: number | null;
  signal: string | null;
  /** The output the editor kept (stdout and stderr as its terminal shows them). */
  output: string;
  /** The editor dropped the beginning of the output (over `outputByteLimit`). */
  truncated: boolean;
}

/**
 * The editor's terminals: bash commands run there instead of in zot's own process group, so
 * outside zot's sandbox and environment scrubbing (`zot acp --client-terminal`, docs/acp.md).
 * Contract: rejects with an Error saying what failed when the command could not be started;
 * always releases the terminal.
 */
export interface EditorTerminal {
  run(request: TerminalRun): Promise<TerminalOutcome>;
}

/** What ACP mode uses of one session: RPC's requests, plus the key check and disposal. */
export interface AcpSession
  extends Pick<
    RpcSession,
    | 'subscribe'
    | 'connectUi'
    | 'startExtensions'
    | 'setOutputBlocked'
    | 'currentModel'
    | 'messages'
    | 'busy'
    | 'sessionFile'
    | 'runCommand'
    | 'cancel'
    | 'abort'
    | 'state'
    | 'models'
    | 'setModel'
    | 'commands'
    | 'closePanel'
    | 'enableConfirmation'
    | 'answerExtensionQuestions'
    | 'idle'
  > {
  readonly cwd: string;
  /** Contract: never rejects. */
  prompt(text: string, images?: ImageBlock[]): Promise<PromptOutcome>;
  /** Why a prompt could not be answered now (no API key), or undefined. Never throws. */
  keyProblem(): string | undefined;
  /** Aborts work and shuts extensions down. Contract: never rejects. */
  dispose(): Promise<void>;
  /** Routes the read, write and edit tools through the editor (undefined: the disk again). */
  useEditorFiles(files: EditorFiles | undefined): void;
  /** Why the sandbox keeps `path` from being read, or undefined. */
  readDenial(path: string): string | undefined;
  /** Runs bash in the editor's terminals (undefined: zot's own bash again). */
  useEditorTerminal(terminal: EditorTerminal | undefined): void;
}

/** How ACP mode opens sessions: one runtime per ACP session, each in its own directory. */
export interface AcpRuntime {
  /**
   * A new session in `cwd`, or the recorded one `sessionId` names (`session/load`).
   * Contract: rejects naming what failed (no such directory, no such session).
   */
  open(request: {
    cwd: string;
    sessionId?: string;
    mcpServers?: readonly EditorMcpServer[];
  }): Promise<AcpSession>;
  /** The recorded sessions of `cwd`, newest first. */
  sessions(cwd: string): SessionSummary[];
  /** Providers and where their keys come from (the auth methods). */
  providers(): ProviderStatus[];
}
