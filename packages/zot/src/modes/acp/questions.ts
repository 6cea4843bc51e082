// An extension's select and input questions as ACP form elicitations (`elicitation/create`), for
// clients that advertise `elicitation.form`. Yes/no questions go as permission requests
// (permissions.ts), which every client has.
import type {
  AgentContext,
  CreateElicitationRequest,
  CreateElicitationResponse,
  ElicitationPropertySchema,
} from '@agentclientprotocol/sdk';
import {
  answerProblem,
  MAX_ANSWER_CHARS,
  type ExtensionAnswer,
  type ExtensionQuestion,
} from '../../contract/extension-questions.js';

/** The form field the answer is asked in. */
const FIELD = 'answer';

/**
 * Why `question` cannot be put to this client, or undefined when it can. A masked input is
 * refused: a form field cannot be hidden as typed, and a secret must not be shown.
 */
export function formProblem(question: ExtensionQuestion, forms: boolean): string | undefined {
  if (!forms) return 'this editor offers no forms (ACP elicitation), so it cannot be answered here';
  if (question.kind === 'input' && question.mask) {
    return "it asks for hidden input, and an editor's form cannot hide what is typed";
  }
  return undefined;
}

export function formRequest(
  sessionId: string,
  question: ExtensionQuestion,
): CreateElicitationRequest {
  const field: ElicitationPropertySchema =
    question.kind === 'select'
      ? { type: 'string', title: question.title, enum: [...(question.options ?? [])] }
      : { type: 'string', title: question.title, maxLength: MAX_ANSWER_CHARS };
  return {
    mode: 'form',
    sessionId,
    message: `${question.extension} asks: ${question.title}`,
    requestedSchema: { type: 'object', properties: { [FIELD]: field }, required: [FIELD] },
    _meta: { zot: { extension: question.extension, question: question.id } },
  };
}

/** The client's answer as the extension hears it: a value that fits, else cancelled. */
export function formAnswer(
  question: ExtensionQuestion,
  response: CreateElicitationResponse,
): ExtensionAnswer {
  if (response.action !== 'accept') return { cancelled: true };
  const content = (response as { content?: Record<string, unknown> | null }).content;
  const value = content?.[FIELD];
  if (typeof value !== 'string' || answerProblem(question, { value }) !== undefined) {
    return { cancelled: true };
  }
  return { value };
}

/** Asks by form; a failed or withdrawn request is a dismissal. Contract: never rejects. */
export async function askByForm(
  client: AgentContext,
  sessionId: string,
  question: ExtensionQuestion,
  withdrawn: AbortSignal,
): Promise<ExtensionAnswer> {
  try {
    const response = await client.request<CreateElicitationResponse>(
      'elicitation/create',
      formRequest(sessionId, question),
      { cancellationSignal: withdrawn },
    );
    return formAnswer(question, response);
  } catch {
    return { cancelled: true };
  }
}
