// The confirmation gate (--no-yolo): asks before a tool runs, remembering session approvals.
import type { ConfirmAnswer, PendingToolCall } from '../agent/hooks.js';

export type ConfirmDecision = 'allow' | 'allow_tool_session' | 'allow_all_session' | 'deny';
export const CONFIRM_DECISIONS: readonly ConfirmDecision[] = [
  'allow',
  'allow_tool_session',
  'allow_all_session',
  'deny',
];

export interface ConfirmRequest {
  tool_id: string;
  tool_name: string;
  tool_preview: string;
}

/** Who answers: the TUI dialog, or an RPC client. Must resolve (deny on abort). */
export type AskPerson = (request: ConfirmRequest, signal: AbortSignal) => Promise<ConfirmDecision>;

export class ConfirmGate {
  private yolo: boolean;
  private allowAll = false;
  private readonly allowedTools = new Set<string>();

  /** `onWaiting` fires only when a person is really asked (tool_confirmation_requested). */
  constructor(
    private readonly ask: AskPerson,
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

  /** Contract: never rejects; an aborted or failed question counts as deny. */
  async check(call: PendingToolCall, signal: AbortSignal): Promise<ConfirmAnswer> {
    if (this.yolo || this.allowAll || this.allowedTools.has(call.name)) return 'allow';
    const request = { tool_id: call.id, tool_name: call.name, tool_preview: call.preview };
    this.onWaiting(request);
    let decision: ConfirmDecision;
    try {
      decision = await this.ask(request, signal);
    } catch {
      decision = 'deny';
    }
    if (decision === 'allow_tool_session') this.allowedTools.add(call.name);
    if (decision === 'allow_all_session') this.allowAll = true;
    return decision === 'deny' ? 'deny' : 'allow';
  }
}
