// Screens an assistant message through the assistant-text hook before anyone sees it. The
// result is the message: what the user is shown, what the transcript keeps, what the model
// gets back on later requests. Only the audit trail keeps the original.
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
 * together (one call, as the protocol's `text`). A blocked part is dropped. A rewritten
 * thinking block loses its signature: it is no longer the model's signed output, so no
 * provider may send it back as such.
 * Contract: never throws; tool calls are never removed, changed or reordered; the replaced
 * text takes the place of the first text block; without the hook the message is returned as is.
 */
export async function screenAssistant(
  hooks: AgentHooks,
  message: AssistantMessage,
): Promise<AssistantMessage> {
  if (!hooks.beforeAssistantText) return message;
  const content: AssistantContent[] = [];
  for (const block of message.content) {
    if (block.type !== 'thinking' || block.thinking === '') {
      content.push(block);
      continue;
    }
    const decision = await ask(hooks, block.thinking, 'thinking');
    if (decision?.block) continue;
    if (decision?.text === undefined || decision.text === block.thinking) content.push(block);
    else if (decision.text !== '') content.push({ type: 'thinking', thinking: decision.text });
  }
  const text = textOf(content);
  const decision = text === '' ? undefined : await ask(hooks, text, 'text');
  if (!decision || (!decision.block && decision.text === undefined)) {
    return { ...message, content };
  }
  const replacement = decision.block ? '' : (decision.text ?? '');
  const first = content.findIndex((block) => block.type === 'text');
  const screened = content.flatMap((block, index): AssistantContent[] => {
    if (block.type !== 'text') return [block];
    return index === first && replacement !== '' ? [{ type: 'text', text: replacement }] : [];
  });
  return { ...message, content: screened };
}
