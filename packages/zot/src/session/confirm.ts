// The confirmation gate (--no-yolo): asks before a tool runs, remembering session approvals.
import type { ConfirmAnswer, PendingToolCall } from '../agent/hooks.js';

/**
 * A person's answer. `allow_always_user` and `allow_always_project` also write the narrowest
 * allow rule for the call to the user's config.json or the project's .zot/settings.json.
 */
export type ConfirmDecision =
  | 'allow'
  | 'allow_tool_session'
  | 'allow_all_session'
  | 'allow_always_user'
  | 'allow_always_project'
  | 'deny';
export const CONFIRM_DECISIONS: readonly ConfirmDecision[] = [
  'allow',
  'allow_tool_session',
  'allow_all_session',
  'allow_always_user',
  'allow_always_project',
  'deny',
];

export interface ConfirmRequest {
  tool_id: string;
  tool_name: string;
  tool_preview: string;
  /** Everything the call will do: the whole command, every argument (what a person judges). */
  tool_detail: string;
  /** The ask rule that asks, as written, when one does. */
  rule?: string;
  /** Why the call is asked about (the rule's match, or what could not be checked). */
  reason?: string;
}

/** Who answers: the TUI dialog, or an RPC client. Must resolve (deny on abort). */
export type AskPerson = (request: ConfirmRequest, signal: AbortSignal) => Promise<ConfirmDecision>;

export class ConfirmGate {
  private yolo: boolean;
  private allowAll = false;
  private readonly allowedTools = new Set<string>();

  /** `onWaiting` fires only when a person is really asked (tool_confirmation_requested). */
  constructor(
    private readonly askPerson: AskPerson,
    private readonly onWaiting: (request: ConfirmRequest) => void,
    options: { yolo: boolean },
  ) {
    this.yolo = options.yolo;
  }

  /** `/yolo`: toggles asking; returns the new state (true = tools run without asking). */
  setYolo(on: boolean): boolean {
    this.yolo = on;
    return on;
  }
  get isYolo(): boolean {
    return this.yolo;
  }

  /** Whether a call would run without a question (yolo, or approved for this session). */
  approved(call: PendingToolCall): boolean {
    return this.yolo || this.allowAll || this.allowedTools.has(call.name);
  }

  /** Contract: never rejects; an aborted or failed question counts as deny. */
  async check(call: PendingToolCall, signal: AbortSignal): Promise<ConfirmAnswer> {
    if (this.approved(call)) return 'allow';
    return (await this.ask(call, signal)) === 'deny' ? 'deny' : 'allow';
  }

  /**
   * Asks whatever yolo and session approvals say (an ask rule always asks); `why` says which
   * rule asks. Contract: never rejects; an aborted or failed question counts as deny.
   */
  async ask(
    call: PendingToolCall,
    signal: AbortSignal,
    why: { rule?: string; reason?: string } = {},
  ): Promise<ConfirmDecision> {
    const request: ConfirmRequest = {
      tool_id: call.id,
      tool_name: call.name,
      tool_preview: call.preview,
      tool_detail: call.detail,
      ...(why.rule !== undefined ? { rule: why.rule } : {}),
      ...(why.reason !== undefined ? { reason: why.reason } : {}),
    };
    this.onWaiting(request);
    let decision: ConfirmDecision;
    try {
      decision = await this.askPerson(request, signal);
    } catch {
      decision = 'deny';
    }
    if (decision === 'allow_tool_session') this.allowedTools.add(call.name);
    if (decision === 'allow_all_session') this.allowAll = true;
    return CONFIRM_DECISIONS.includes(decision) ? decision : 'deny';
  }
}
