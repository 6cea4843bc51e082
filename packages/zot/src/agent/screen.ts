// Screens an assistant message through the assistant-text hook before anyone sees it: what the
// user is shown, and what the transcript keeps for the model (its original, unless a rewrite
// asked for the transcript too).
import { textOf } from './content-text.js';
import type { AssistantContent, AssistantMessage } from '../providers/types.js';
import type { AgentHooks, AssistantTextPart, TextDecision } from './hooks.js';

async function ask(
  hooks: AgentHooks,
  text: string,
  part: AssistantTextPart,
): Promise<TextDecision | undefined> {
  try {
    return (await hooks.beforeAssistantText?.(text, part)) ?? undefined;
  } catch {
    return undefined; // the hook contract: a throw counts as "allow"
  }
}

/**
 * Applies the hook to every thinking block (one call each, in order), then to the text blocks
 * together (one call, as the protocol's `text`). What the user sees is the screened message: a
 * blocked part is dropped, a replaced one replaced. The transcript (what the model gets back)
 * keeps the model's own output, unless a decision says `transcript`: then that part is replaced
 * (or dropped) there too, and a rewritten thinking block loses its signature (it is no longer
 * the model's signed output). When the two differ, the message's `content` is the transcript's
 * and `shown` the user's.
 * Contract: never throws; tool calls are never removed, changed or reordered; the replaced
 * text takes the place of the first text block; without the hook the message is returned as is.
 */
export async function screenAssistant(
  hooks: AgentHooks,
  message: AssistantMessage,
): Promise<AssistantMessage> {
  if (!hooks.beforeAssistantText) return message;
  const shown: AssistantContent[] = [];
  const kept: AssistantContent[] = [];
  let differs = false;
  for (const block of message.content) {
    if (block.type !== 'thinking' || block.thinking === '') {
      shown.push(block);
      kept.push(block);
      continue;
    }
    const decision = await ask(hooks, block.thinking, 'thinking');
    const replaced = decision?.block
      ? undefined
      : decision?.text === undefined || decision.text === block.thinking
        ? block
        : decision.text === ''
          ? undefined
          : ({ type: 'thinking', thinking: decision.text } as const);
    if (replaced) shown.push(replaced);
    if (replaced !== block) differs = true;
    if (!decision?.transcript) kept.push(block);
    else if (replaced) kept.push(replaced);
  }
  const text = textOf(shown);
  const decision = text === '' ? undefined : await ask(hooks, text, 'text');
  if (!decision || (!decision.block && decision.text === undefined)) {
    return differs ? { ...message, content: kept, shown } : { ...message, content: kept };
  }
  const replacement = decision.block ? '' : (decision.text ?? '');
  const swap = (content: AssistantContent[]) => {
    const first = content.findIndex((block) => block.type === 'text');
    return content.flatMap((block, index): AssistantContent[] => {
      if (block.type !== 'text') return [block];
      return index === first && replacement !== '' ? [{ type: 'text', text: replacement }] : [];
    });
  };
  const visible = swap(shown);
  return { ...message, content: decision.transcript ? swap(kept) : kept, shown: visible };
}
