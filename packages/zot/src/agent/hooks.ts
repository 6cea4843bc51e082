// Hook points the session wires to the extension host (the agent knows nothing of extensions).
// Contract for every hook: it may be slow but must not throw; a throw counts as "allow".

export interface Decision {
  block?: boolean;
  reason?: string;
}

export interface ToolCallDecision extends Decision {
  /** Arguments the tool runs with instead of the model's (the transcript keeps the original). */
  args?: Record<string, unknown>;
}

export interface TextDecision extends Decision {
  /** Replaces the user-visible text; the transcript keeps the original. */
  text?: string;
}

export type ConfirmAnswer = 'allow' | 'deny';

export interface PendingToolCall {
  id: string;
  name: string;
  args: Record<string, unknown>;
  preview: string;
}

export interface AgentHooks {
  /** Before each model request; a block ends the prompt with stop "error". */
  beforeModelCall?(info: { step: number }): Promise<Decision | void>;
  /** Before a tool runs (after the tool_call event); may block or replace arguments. */
  beforeToolCall?(call: {
    id: string;
    name: string;
    args: Record<string, unknown>;
  }): Promise<ToolCallDecision | void>;
  /** The confirmation gate, after interception; undefined means always allowed. */
  confirmToolCall?(call: PendingToolCall): Promise<ConfirmAnswer>;
  /** Before assistant text is shown; may replace or hide it. */
  beforeAssistantText?(text: string): Promise<TextDecision | void>;
  /** Whether text deltas must be held back this model call (DECISIONS 15). */
  holdTextStream?(): boolean;
}
