// Confirmations as ACP permission requests: a tool call waiting for the user (--no-yolo, an
// ask rule, the `ask` mode) and an extension's confirm question. The choices are the TUI's.
import type {
  PermissionOption,
  RequestPermissionRequest,
  RequestPermissionResponse,
} from '@agentclientprotocol/sdk';
import { isConfirmDecision, type ConfirmDecision } from '../../contract/confirm.js';
import type { ConfirmRequest } from '../../contract/front-end.js';
import type { ExtensionQuestion } from '../../contract/extension-questions.js';

/** The TUI's confirmation choices, each an ACP option whose id is the decision it applies. */
export function toolOptions(toolName: string): PermissionOption[] {
  const option = (optionId: ConfirmDecision, name: string, kind: PermissionOption['kind']) => ({
    optionId,
    name,
    kind,
  });
  return [
    option('allow', 'Allow once', 'allow_once'),
    option('allow_tool_session', `Allow ${toolName} for this session`, 'allow_always'),
    option('allow_all_session', 'Allow every tool for this session', 'allow_always'),
    option(
      'allow_always_project',
      'Always allow (rule saved in .zot/settings.json)',
      'allow_always',
    ),
    option(
      'allow_always_user',
      'Always allow (rule saved in your zot config.json)',
      'allow_always',
    ),
    option('deny', 'Reject', 'reject_once'),
  ];
}

export function toolPermissionRequest(
  sessionId: string,
  request: ConfirmRequest,
): RequestPermissionRequest {
  const why = request.rule ? `rule ${request.rule} asks` : request.reason;
  return {
    sessionId,
    toolCall: {
      toolCallId: request.tool_id,
      title: `${request.tool_name} ${request.tool_preview}`.trim(),
      rawInput: { detail: request.tool_detail },
      ...(why ? { _meta: { zot: { reason: why } } } : {}),
    },
    options: toolOptions(request.tool_name),
  };
}

/** The decision an answer applies; a cancelled request or an unknown option denies. */
export function decisionOf(response: RequestPermissionResponse): ConfirmDecision {
  const { outcome } = response;
  if (outcome.outcome !== 'selected') return 'deny';
  return isConfirmDecision(outcome.optionId) ? outcome.optionId : 'deny';
}

/** The tool call id under which an extension's confirm question is shown. */
export function questionCallId(question: ExtensionQuestion): string {
  return `zot-question-${question.id}`;
}

export function questionPermissionRequest(
  sessionId: string,
  question: ExtensionQuestion,
): RequestPermissionRequest {
  return {
    sessionId,
    toolCall: {
      toolCallId: questionCallId(question),
      title: `${question.extension} asks: ${question.title}`,
    },
    options: [
      { optionId: 'yes', name: 'Yes', kind: 'allow_once' },
      { optionId: 'no', name: 'No', kind: 'reject_once' },
    ],
  };
}

/** true for yes, false for no, undefined when the question was dismissed. */
export function questionAnswer(response: RequestPermissionResponse): boolean | undefined {
  const { outcome } = response;
  if (outcome.outcome !== 'selected') return undefined;
  if (outcome.optionId === 'yes') return true;
  if (outcome.optionId === 'no') return false;
  return undefined;
}
