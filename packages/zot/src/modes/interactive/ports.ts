// What the interactive mode needs from the runtime: a narrow view of Session, so controllers can
// be driven by a fake in tests and the runtime can grow without the TUI noticing.
import type { ImageBlock, Message } from '../../contract/content.js';
import type { SessionEvent } from '../../contract/events.js';
import type { RuntimeState } from '../../contract/state.js';
import type { CommandInfo, SlashResult } from '../../session/commands.js';
import type { AskPerson } from '../../session/confirm.js';
import type { ExtensionUi } from '../../session/extension-ui.js';

export type {
  SessionEvent,
  RuntimeState,
  SlashResult,
  CommandInfo,
  AskPerson,
  Message,
  ExtensionUi,
};

export interface InteractiveSession {
  subscribe(listener: (event: SessionEvent) => void): () => void;
  state(): RuntimeState;
  readonly messages: readonly Message[];
  readonly busy: boolean;
  /** Contract (Session.prompt): never rejects. */
  prompt(text: string, images?: ImageBlock[], mode?: 'follow_up' | 'steer'): Promise<unknown>;
  /** Aborts the running operation and drops everything waiting; returns how many waited. */
  cancel(): number;
  /** Connects the extension-UI port; returns a disconnect function. */
  connectUi(ui: ExtensionUi): () => void;
  /** Resolves once nothing runs or waits. */
  idle(): Promise<void>;
  commands(mode: 'tui'): CommandInfo[];
  /** Contract (Session.runCommand): never rejects. */
  runCommand(text: string, mode: 'tui', announce: boolean): Promise<SlashResult>;
  enableConfirmation(ask: AskPerson): unknown;
  startExtensions(): Promise<unknown>;
}
