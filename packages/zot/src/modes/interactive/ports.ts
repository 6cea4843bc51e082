// What the interactive mode needs from the runtime: a narrow view of Session, so controllers can
// be driven by a fake in tests and the runtime can grow without the TUI noticing.
import type { ImageBlock, Message } from '../../contract/content.js';
import type { SessionEvent } from '../../contract/events.js';
import type { RuntimeState } from '../../contract/state.js';
import type { CommandInfo, SlashResult } from '../../session/commands.js';
import type { AskPerson } from '../../session/confirm.js';
import type { ExtensionUi } from '../../session/extension-ui.js';
import type { LoginResult, ProviderStatus } from '../../session/provider-access.js';
import type { SessionSummary } from '../../session/session-files.js';
import type { TrustAnswer, TrustDecision, TrustOutcome, TrustReview } from '../../session/trust.js';

export type {
  SessionEvent,
  RuntimeState,
  SlashResult,
  CommandInfo,
  AskPerson,
  Message,
  ExtensionUi,
  LoginResult,
  ProviderStatus,
  SessionSummary,
  TrustAnswer,
  TrustDecision,
  TrustOutcome,
  TrustReview,
};

export interface SkillInfo {
  name: string;
  description: string;
  source: string;
  allowedTools?: string[];
}

export interface InteractiveSession {
  subscribe(listener: (event: SessionEvent) => void): () => void;
  state(): RuntimeState;
  readonly messages: readonly Message[];
  readonly busy: boolean;
  /** Why a prompt could not be answered now (no API key), or undefined. Never throws. */
  keyProblem(): string | undefined;
  /** Contract (Session.prompt): never rejects. */
  prompt(text: string, images?: ImageBlock[], mode?: 'follow_up' | 'steer'): Promise<unknown>;
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
  /** Connects the extension-UI port; returns a disconnect function. */
  connectUi(ui: ExtensionUi): () => void;
  /** Resolves once nothing runs or waits. */
  idle(): Promise<void>;
  commands(mode: 'tui'): CommandInfo[];
  /** Contract (Session.runCommand): never rejects. */
  runCommand(text: string, mode: 'tui', announce: boolean): Promise<SlashResult>;
  enableConfirmation(ask: AskPerson, options?: { yolo?: boolean }): unknown;
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
  sessions(): SessionSummary[];
  /** Contract: throws when busy or naming the unreadable file. */
  resume(path: string): void;
  renameSession(path: string, name: string): void;
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
}
