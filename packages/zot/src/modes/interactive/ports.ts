// What the interactive mode needs from the runtime: the contract's front-end port, so
// controllers can be driven by a fake in tests and the runtime can grow without the TUI noticing.
export type { ImageBlock, Message } from '../../contract/content.js';
export type { SessionEvent } from '../../contract/events.js';
export type { RuntimeState } from '../../contract/state.js';
export type { ExtensionUi } from '../../contract/extension-ui.js';
export type { SessionSummary } from '../../contract/summaries.js';
export type {
  AskPerson,
  CommandInfo,
  InteractiveSession,
  LoginResult,
  ProviderStatus,
  SkillInfo,
  SlashResult,
  TrustAnswer,
  TrustDecision,
  TrustOutcome,
  TrustReview,
} from '../../contract/front-end.js';
