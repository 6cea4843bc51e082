// One interception: the extension's interceptors for an event, run in registration order. A
// block ends the chain; modified arguments and replaced text carry on to the next interceptor,
// and the last reason given is kept.
import type { ContentBlock, EventInterceptFrame, ReplyBody } from '@zot/protocol';
import type { Interceptor } from './extension-types.js';

/**
 * The reply body for `frame` after running `chain`. Contract: throws (or rejects) with what an
 * interceptor threw; the caller answers that with its failure policy.
 */
export async function runChain(
  frame: EventInterceptFrame,
  chain: ReadonlyArray<Interceptor<unknown>>,
  extensionName: string,
): Promise<ReplyBody<'event_intercept'>> {
  let args = frame.event === 'tool_call' ? (frame.tool_args ?? {}) : {};
  let text =
    frame.event === 'assistant_message' || frame.event === 'user_prompt' ? (frame.text ?? '') : '';
  let content: readonly ContentBlock[] = frame.event === 'tool_result' ? (frame.content ?? []) : [];
  let modifiedArgs = false;
  let replaced = false;
  let replacedContent = false;
  let scope: 'transcript' | undefined;
  const contexts: string[] = [];
  let reason: string | undefined;
  for (const fn of chain) {
    const decision = (await fn(subjectOf(frame, args, text, content))) ?? {};
    if (decision.reason !== undefined) reason = decision.reason;
    if (decision.block)
      return { block: true, reason: decision.reason ?? `blocked by ${extensionName}` };
    if (decision.modifiedArgs !== undefined) {
      args = decision.modifiedArgs;
      modifiedArgs = true;
    }
    const newText = frame.event === 'user_prompt' ? decision.modifiedText : decision.replaceText;
    if (newText !== undefined) {
      text = newText;
      replaced = true;
    }
    if (decision.scope === 'transcript') scope = 'transcript';
    if (decision.replaceContent !== undefined) {
      content = decision.replaceContent;
      replacedContent = true;
    }
    if (decision.addContext) contexts.push(decision.addContext);
  }
  return {
    ...(reason !== undefined ? { reason } : {}),
    ...(modifiedArgs && frame.event === 'tool_call' ? { modified_args: args } : {}),
    ...(replaced && frame.event === 'assistant_message'
      ? { replace_text: text, ...(scope ? { scope } : {}) }
      : {}),
    ...(replaced && frame.event === 'user_prompt' ? { modified_text: text } : {}),
    ...(replacedContent && frame.event === 'tool_result' ? { replace_content: [...content] } : {}),
    ...(contexts.length > 0 && frame.event === 'turn_start'
      ? { add_context: contexts.join('\n\n') }
      : {}),
  };
}

/** What an interceptor of `frame`'s event is handed, with the chain's rewrites so far. */
function subjectOf(
  frame: EventInterceptFrame,
  args: Record<string, unknown>,
  text: string,
  content: readonly ContentBlock[],
): unknown {
  switch (frame.event) {
    case 'tool_call':
      return { id: frame.tool_id, name: frame.tool_name ?? '', args };
    case 'turn_start':
      return { step: frame.step };
    case 'tool_result':
      return {
        id: frame.tool_call_id,
        name: frame.tool ?? '',
        args: frame.args ?? {},
        content,
        isError: frame.is_error === true,
      };
    case 'user_prompt':
      return { text, source: frame.source };
    default:
      return { text };
  }
}
