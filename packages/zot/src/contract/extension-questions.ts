// An extension's question to the user (its ui_request frame) and the answers a front end may
// give. The runtime hands each question to the port a mode connected
// (`answerExtensionQuestions`): the TUI shows a dialog, RPC sends a `ui_request` event; with no
// port connected (print, JSON) every question is answered `unavailable` at once.
import type { FrontEndEvent } from './events.js';

/** A question as front ends see it: zot's unique id, the extension's name, what it asks. */
export type ExtensionQuestion = Omit<Extract<FrontEndEvent, { type: 'ui_request' }>, 'type'>;

/** The longest typed answer, in characters (the protocol's `V2_LIMITS.uiValue`; a test holds them equal). */
export const MAX_ANSWER_CHARS = 100_000;

/**
 * What a person answered: a value of the question's kind, or they dismissed it; `unavailable`
 * when nobody is left to answer (an RPC client's input ended).
 */
export type ExtensionAnswer =
  | { value: boolean | string }
  | { cancelled: true }
  | { unavailable: true };

/**
 * Who answers: the TUI's dialog, an RPC client. Contract: resolves once (never rejects);
 * `withdrawn` aborts when the question is no longer asked (its deadline passed, the extension
 * exited or restarted, zot is stopping): the front end closes its dialog and may resolve with
 * anything, which is then ignored.
 */
export type AnswerExtension = (
  question: ExtensionQuestion,
  withdrawn: AbortSignal,
) => Promise<ExtensionAnswer>;

/**
 * Why `answer` does not fit `question`, or undefined when it does: confirm takes a boolean,
 * select one of the options offered, input a string (at most MAX_ANSWER_CHARS characters).
 */
export function answerProblem(
  question: Pick<ExtensionQuestion, 'kind' | 'options'>,
  answer: { value?: unknown; cancelled?: unknown; unavailable?: unknown },
): string | undefined {
  if (answer.cancelled === true || answer.unavailable === true) {
    return answer.value === undefined ? undefined : 'give either `value` or `cancelled`, not both';
  }
  const { value } = answer;
  if (value === undefined) return 'give `value` (the answer) or `cancelled: true`';
  switch (question.kind) {
    case 'confirm':
      return typeof value === 'boolean'
        ? undefined
        : `a confirm question is answered with true or false, not ${describe(value)}`;
    case 'select':
      if (typeof value !== 'string')
        return `a select question is answered with one of its options, not ${describe(value)}`;
      return question.options?.includes(value)
        ? undefined
        : `"${value.slice(0, 80)}" is not one of the options offered`;
    case 'input':
      if (typeof value !== 'string')
        return `an input question is answered with a string, not ${describe(value)}`;
      return value.length > MAX_ANSWER_CHARS
        ? `the answer has ${value.length} characters; at most ${MAX_ANSWER_CHARS} are allowed`
        : undefined;
  }
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'string' ? 'a string' : `a ${typeof value}`;
}
