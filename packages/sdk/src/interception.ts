// One interception: the extension's interceptors for an event, run in registration order. A
// block ends the chain; modified arguments and replaced text carry on to the next interceptor,
// and the last reason given is kept.
import type { EventInterceptFrame, ReplyBody } from '@zot/protocol';
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
  let text = frame.event === 'assistant_message' ? (frame.text ?? '') : '';
  let modifiedArgs = false;
  let replaced = false;
  let reason: string | undefined;
  for (const fn of chain) {
    const subject =
      frame.event === 'tool_call'
        ? { id: frame.tool_id, name: frame.tool_name ?? '', args }
        : frame.event === 'turn_start'
          ? { step: frame.step }
          : { text };
    const decision = (await fn(subject)) ?? {};
    if (decision.reason !== undefined) reason = decision.reason;
    if (decision.block)
      return { block: true, reason: decision.reason ?? `blocked by ${extensionName}` };
    if (decision.modifiedArgs !== undefined) {
      args = decision.modifiedArgs;
      modifiedArgs = true;
    }
    if (decision.replaceText !== undefined) {
      text = decision.replaceText;
      replaced = true;
    }
  }
  return {
    ...(reason !== undefined ? { reason } : {}),
    ...(modifiedArgs && frame.event === 'tool_call' ? { modified_args: args } : {}),
    ...(replaced && frame.event === 'assistant_message' ? { replace_text: text } : {}),
  };
}
