// The confirmation gate (--no-yolo): asks before a tool runs, remembering session approvals.
import type { ConfirmAnswer, PendingToolCall } from '../agent/hooks.js';
import { isConfirmDecision, type ConfirmDecision } from '../contract/confirm.js';

export type { ConfirmDecision } from '../contract/confirm.js';
import type { AskPerson, ConfirmRequest } from '../contract/front-end.js';
import type { ExtensionHost } from '../extensions/host.js';
export type { AskPerson, ConfirmRequest };

/** What a person is asked: the `confirm_request` event without its type. */

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
    return isConfirmDecision(decision) ? decision : 'deny';
  }
}

/**
 * A gate whose questions extensions hear about (`tool_confirmation_requested`, with the short
 * preview only, as extensions.md defines it) from whichever host runs when one is asked.
 */
export function announcedGate(
  ask: AskPerson,
  host: () => ExtensionHost | undefined,
  yolo: boolean,
): ConfirmGate {
  return new ConfirmGate(
    ask,
    ({ tool_id, tool_name, tool_preview }) =>
      host()?.emitEvent('tool_confirmation_requested', { tool_id, tool_name, tool_preview }),
    { yolo },
  );
}
