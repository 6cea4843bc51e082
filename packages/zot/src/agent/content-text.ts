// The readable text of a message: its text blocks joined (thinking, tool calls and images left out).
import type { AssistantContent, UserContent } from '../providers/types.js';

export function textOf(content: ReadonlyArray<AssistantContent | UserContent>): string {
  return content.map((block) => (block.type === 'text' ? block.text : '')).join('');
}
