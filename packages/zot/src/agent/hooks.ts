// Hook points the session wires to the extension host (the agent knows nothing of extensions).
// Contract for every hook: it may be slow but must not throw; a throw counts as "allow".
import type { ToolContent } from './tool.js';

export interface Decision {
  block?: boolean;
  reason?: string;
}

export interface ToolCallDecision extends Decision {
  /** Arguments the tool runs with instead of the model's (the transcript keeps the original). */
  args?: Record<string, unknown>;
}

export interface TextDecision extends Decision {
  /**
   * Replaces the text the user sees (screen, events, get_messages). The model keeps its original
   * in the transcript, unless `transcript` is set: then the transcript gets the text too, and the
   * model never sees its original again. The audit trail keeps the original either way.
   */
  text?: string;
  /** With `text` (or `block`): the transcript is rewritten too ("scope": "transcript"). */
  transcript?: boolean;
}

export interface ToolResultDecision extends Decision {
  /** Content the model gets instead of the tool's (the front ends show it too). */
  content?: ToolContent[];
}

/** Context for one model call, with who added it (an extension's name). */
export interface TurnContext {
  source: string;
  text: string;
}

export interface ModelCallDecision extends Decision {
  /** Context blocks the model gets for this turn, before the call. */
  context?: TurnContext[];
}

/** Where a prompt came from: typed, an extension's, steering, or a queued follow-up. */
export type PromptOrigin = 'user' | 'extension' | 'steer' | 'queue';

export interface PromptDecision extends Decision {
  /** The prompt's text instead. */
  text?: string;
}

/** Which model output is screened: a message's text, one of its thinking blocks, a summary. */
export type AssistantTextPart = 'text' | 'thinking' | 'summary';

export type ConfirmAnswer = 'allow' | 'deny';
/** A refusal that says why (a permission rule, nobody to ask): the model reads the reason. */
export interface Refusal {
  answer: 'deny';
  reason: string;
}

export interface PendingToolCall {
  id: string;
  name: string;
  args: Record<string, unknown>;
  preview: string;
  /** Everything the call will do, for a person (see detailCall). */
  detail: string;
}

export interface AgentHooks {
  /** Before each model request; a block ends the prompt with stop "error". */
  beforeModelCall?(info: { step: number }): Promise<ModelCallDecision | void>;
  /** After a tool call's result is known, before the model or anyone sees it. */
  afterToolCall?(
    call: { id: string; name: string; args: Record<string, unknown> },
    result: { content: ToolContent[]; isError: boolean },
  ): Promise<ToolResultDecision | void>;
  /** Before a prompt joins the transcript; a block refuses it (the reason goes to the user). */
  beforePrompt?(text: string, origin: PromptOrigin): Promise<PromptDecision | void>;
  /** Before a tool runs (after the tool_call event); may block or replace arguments. */
  beforeToolCall?(call: {
    id: string;
    name: string;
    args: Record<string, unknown>;
  }): Promise<ToolCallDecision | void>;
  /**
   * The permission gate (rules, then asking a person), after interception and validation, with
   * the arguments that will run; undefined means always allowed.
   */
  confirmToolCall?(call: PendingToolCall): Promise<ConfirmAnswer | Refusal>;
  /** Before model output is shown or kept; may replace or hide it. Called once per part. */
  beforeAssistantText?(text: string, part: AssistantTextPart): Promise<TextDecision | void>;
  /** Whether this model call's deltas (text, thinking, tool arguments) are held back (design D15). */
  holdTextStream?(): boolean;
  /**
   * A model request has been written to the network (its answer is at least a round trip
   * away): work held back until then may start. Must be quick; it is not awaited.
   */
  modelRequestSent?(): void;
  /**
   * The model began streaming a tool call (once per model call, at its first tool-call delta,
   * held back or not): no tool of that reply has run, and none runs before beforeToolCall.
   * Work the first tool call must wait for may start here. Must be quick; it is not awaited.
   */
  toolCallStreaming?(): void;
}
