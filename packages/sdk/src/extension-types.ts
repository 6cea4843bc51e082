// The public types of an extension: its options, what handlers receive and may return, the
// subjects interceptors see, and what zot says about itself in hello_ack.
import type {
  ContentBlock,
  EventFrame,
  EventName,
  FrameFromExtension,
  PanelKey,
  Transport,
} from '@zot/protocol';
import type { CommandResult, Decision, ToolResult } from './results.js';

/** What zot tells the extension in hello_ack. Empty strings for fields the host left out. */
export interface HostInfo {
  /** The version zot speaks with this extension: 2 (the SDK asks for it), 1 from an older zot. */
  readonly protocolVersion: number;
  readonly zotVersion: string;
  readonly provider: string;
  readonly model: string;
  /** The user's project directory (the process itself runs in the extension directory). */
  readonly cwd: string;
  readonly extensionDir: string;
  /** Where the extension keeps its state. */
  readonly dataDir: string;
}

export interface ExtensionOptions {
  readonly name: string;
  readonly version?: string;
  /** Overrides the capabilities announced in hello (by default derived from registrations). */
  readonly capabilities?: readonly string[];
  /** The link to the host; stdin/stdout when omitted. */
  readonly transport?: Transport<FrameFromExtension>;
  /** Called when the extension is done; process.exit for stdio, nothing for a given transport. */
  readonly exit?: (code: number) => void;
  /** Where log() writes; process.stderr when omitted. */
  readonly stderr?: (text: string) => void;
  /** Longest time onShutdown hooks may take before shutdown_ack is sent anyway (1000 ms). */
  readonly shutdownTimeoutMs?: number;
  /** What a throwing interceptor answers: allow (default) or block. */
  readonly interceptFailure?: 'allow' | 'block';
}

export interface CommandContext {
  readonly id: string;
  /** The command name as registered. */
  readonly name: string;
  readonly host: HostInfo;
  /** Aborts when zot cancels the command (timeout, shutdown); its answer is then ignored. */
  readonly signal: AbortSignal;
}

/** What a command handler may return: a result, a string (displayed), or nothing (noop). */
export type CommandReturn = CommandResult | string | void;
export type CommandHandler = (
  args: string,
  context: CommandContext,
) => CommandReturn | Promise<CommandReturn>;

export interface ToolContext {
  readonly id: string;
  readonly name: string;
  readonly host: HostInfo;
  /** Makes registered deferred tools available with this call's result. */
  activateTools(names: readonly string[]): void;
  /**
   * Aborts when zot cancels the call (Esc, an RPC abort, its timeout, shutdown); stop the work.
   * What is answered after that is ignored.
   */
  readonly signal: AbortSignal;
  /**
   * Runs `listener` once when zot cancels the call (at once if it already has). The same cancel
   * as `signal`, cheaper: the AbortSignal is made only if a handler reads `signal`.
   */
  onCancel(listener: (reason: Error) => void): void;
  /** A progress line shown live while the call runs (zot drops lines past its rate limit). */
  progress(text: string): void;
}

/** The answer to a question asked with `ext.ui`: the value, or why there is none. */
export type UiAnswer<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly reason: 'cancelled' | 'unavailable' };

export interface UiOptions {
  /** How long the user has to answer; then the answer is `cancelled`. */
  readonly timeoutMs?: number;
}

/** Asking the user and waiting (dialogs in the TUI, `ui_request` events over RPC). */
export interface ExtensionUiApi {
  confirm(title: string, options?: UiOptions): Promise<UiAnswer<boolean>>;
  select(title: string, choices: readonly string[], options?: UiOptions): Promise<UiAnswer<string>>;
  input(
    title: string,
    options?: UiOptions & { readonly mask?: boolean },
  ): Promise<UiAnswer<string>>;
}

/** What a tool handler may return: a result, a string (a text result), or nothing (empty). */
export type ToolReturn = ToolResult | string | void;
export type ToolHandler<A> = (args: A, context: ToolContext) => ToolReturn | Promise<ToolReturn>;

export interface ToolOptions {
  /** Registered but not offered to the model until a result names it in activateTools. */
  readonly deferred?: boolean;
}

/** An intercepted tool call. */
export interface ToolCall {
  /** The host's id of the call, when it sent one. */
  readonly id: string | undefined;
  readonly name: string;
  readonly args: Record<string, unknown>;
}
export interface TurnStart {
  readonly step: number | undefined;
}
export interface AssistantMessage {
  readonly text: string;
}
/** An intercepted tool result (any tool: built-in, an extension's, the MCP bridge's). */
export interface ToolResultSubject {
  readonly id: string | undefined;
  readonly name: string;
  readonly args: Record<string, unknown>;
  readonly content: readonly ContentBlock[];
  readonly isError: boolean;
}
/** An intercepted prompt and where it came from. */
export interface UserPrompt {
  readonly text: string;
  readonly source: 'user' | 'extension' | 'steer' | 'queue' | undefined;
}
export type Interceptor<T> = (subject: T) => Decision | void | Promise<Decision | void>;

export interface PanelKeyEvent {
  readonly panelId: string;
  readonly key: PanelKey;
  /** The typed character when key is "rune". */
  readonly text: string | undefined;
}

/** The event frame of one lifecycle event (its wire fields, e.g. `tool_name`, `stop`). */
export type EventOf<E extends EventName> = Extract<EventFrame, { event: E }>;
