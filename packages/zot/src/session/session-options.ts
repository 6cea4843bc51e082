// What a Session is made of (its options, from the composition root) and the small pieces of
// bookkeeping it shares with nothing else: which events can change the snapshot, usage sums.
import type { Usage } from '../agent/events.js';
import type { CheckpointStore } from './checkpoints/store.js';
import type { PrunePolicy } from './checkpoints/prune.js';
import type { CheckpointEntry } from './load.js';
import type { AgentHooks } from '../agent/hooks.js';
import type { PromptOutcome } from '../contract/front-end.js';
export type { PromptOutcome };
import type { ExtensionHost } from '../extensions/host.js';
import type {
  Message,
  ModelInfo,
  ReasoningLevel,
  StreamFn,
  TokenUsage,
} from '../providers/types.js';
import type { SkillCatalog } from '../tools/skills/catalog.js';
import type { FileRoute } from '../tools/common.js';
import type { SessionEvent } from '../contract/events.js';
import type { RuleEngine } from '../security/rules/engine.js';
import type { RuleFiles } from './permission-files.js';
import type { ProviderAccess } from './provider-access.js';
import type { RecordedUsage, SessionFiles } from './session-files.js';
import type { DeferredTranscript, SessionWriter } from './store.js';
import type { ToolRegistry } from './tool-registry.js';
import type { TrustAccess } from './trust.js';
import type { SandboxController } from '../security/sandbox/controller.js';

/**
 * Events that never change the snapshot: the stream's pieces (the hot path, one per token) and
 * the state event itself. Every other event may, and is followed by a check.
 */
export const STATELESS_EVENTS = new Set<SessionEvent['type']>([
  'state',
  'text_delta',
  'thinking_delta',
  'tool_call_delta',
  'tool_progress',
]);

export interface CheckpointSetup {
  store: CheckpointStore;
  prune?: PrunePolicy;
  /** The checkpoints of the session file being resumed. */
  recorded?: CheckpointEntry[];
}

export interface SessionOptions {
  cwd: string;
  model: ModelInfo;
  /**
   * Models, base URLs and keys of every provider. A key is asked for only when a model call is
   * about to happen (a prompt, a compaction), so commands that never call the model need none;
   * a key once found is kept until /login or /logout changes it.
   */
  providers: ProviderAccess;
  systemPrompt: string;
  reasoning?: ReasoningLevel;
  maxSteps: number;
  tools: ToolRegistry;
  stream: (model: ModelInfo) => StreamFn;
  writer?: SessionWriter;
  /** This directory's session files (`/new`, `/sessions`); absent when sessions are not recorded. */
  files?: SessionFiles;
  messages?: Message[];
  /** A resumed transcript read after the first frame (openSession's `deferAfter`). */
  deferred?: DeferredTranscript;
  /** The usage recorded in a resumed session file. */
  usage?: RecordedUsage;
  /** The name a resumed session file holds. */
  sessionName?: string;
  /** Re-reads every skill (`/skills`); absent with --no-skill. */
  skills?(): Promise<SkillCatalog>;
  /** One skill's body, read now (the TUI's /skills preview). */
  skillBody?(name: string): Promise<{ body: string; file: string } | { error: string }>;
  /** Problems found loading `messages` (bad lines, repaired tool calls); see subscribe(). */
  warnings?: string[];
  hooks?: AgentHooks;
  /** The permission rules in force; absent when there are none. */
  rules?: RuleEngine;
  /** Where "always allow" and `/permissions remove` write. */
  ruleFiles?: RuleFiles;
  /** --no-yolo: what no rule allows is asked about, and denied where nobody can answer. */
  askByDefault?: boolean;
  extensions?: ExtensionHost;
  /**
   * Creates the extension host when the session started without one (no extension could exist
   * then): a `/reload-ext` after `zot ext install` in the same run finds the new extension.
   */
  loadExtensions?(): Promise<ExtensionHost>;
  /** Trust answers given while zot runs (the TUI's trust dialog). */
  trust?: TrustAccess;
  /** The bash tool's sandbox (its mode is part of the snapshot; /sandbox switches it). */
  sandbox?: SandboxController;
  /** Where /sandbox --save writes the mode ($ZOT_HOME/config.json). */
  configPath?: string;
  /** Where the file tools read and write text; a front end may connect an editor to it. */
  fileRoute?: FileRoute;
  /** Working-tree checkpoints (absent with --no-checkpoints or the setting off). */
  checkpoints?: CheckpointSetup;
}

/** The context a call used: everything the model read plus what it wrote. */
export const contextUsed = (usage: TokenUsage) =>
  usage.input + usage.cache_read + usage.cache_write + usage.output;

export const zeroUsage = (): Usage => ({
  input: 0,
  output: 0,
  cache_read: 0,
  cache_write: 0,
  cost_usd: 0,
});
