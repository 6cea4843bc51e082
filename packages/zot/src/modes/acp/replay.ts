// `session/load`: a recorded transcript replayed as the updates a live session would have sent.
import type { SessionUpdate } from '@agentclientprotocol/sdk';
import type { Message } from '../../contract/content.js';
import { shownMessage } from '../../contract/shown-message.js';
import { ToolCalls } from './tool-calls.js';

/**
 * Every message in order: the user's text and images, the model's thinking, text and tool
 * calls, and each tool result as its call's final update. Context an extension added to a
 * turn is not the user's and is left out.
 */
export function replayUpdates(messages: readonly Message[], cwd: string): SessionUpdate[] {
  const updates: SessionUpdate[] = [];
  const calls = new ToolCalls(cwd, (update) => updates.push(update));
  for (const raw of messages) {
    const message = shownMessage(raw);
    switch (message.role) {
      case 'user':
        if (message.context !== undefined) break;
        for (const block of message.content) {
          updates.push({
            sessionUpdate: 'user_message_chunk',
            content:
              block.type === 'text'
                ? { type: 'text', text: block.text }
                : { type: 'image', mimeType: block.mime_type, data: block.data },
          });
        }
        break;
      case 'assistant':
        for (const block of message.content) {
          if (block.type === 'text') {
            updates.push({ sessionUpdate: 'agent_message_chunk', content: block });
          } else if (block.type === 'thinking') {
            const content = { type: 'text' as const, text: block.thinking };
            updates.push({ sessionUpdate: 'agent_thought_chunk', content });
          } else {
            calls.call({
              type: 'tool_call',
              id: block.id,
              name: block.name,
              args: block.args,
              preview: '',
            });
          }
        }
        break;
      case 'tool':
        for (const result of message.content) {
          calls.result({
            type: 'tool_result',
            id: result.call_id,
            is_error: result.is_error,
            content: result.content,
            ...(result.details ? { details: result.details } : {}),
          });
        }
        break;
    }
  }
  calls.close();
  return updates;
}
