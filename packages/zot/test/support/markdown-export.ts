// Reads an export's Markdown back (session/export/markdown.ts): the verbatim text blocks between
// their marker comments, tool calls with their JSON arguments, results with their output. What
// it returns is compared with what the session file holds, so the export must keep every text.
import type { Message, ToolResultBlock } from '../../src/providers/types.js';

export type ReadBlock =
  | { kind: 'user' | 'assistant' | 'thinking' | 'summary' | 'merge'; text: string }
  | { kind: 'call'; name: string; args: string }
  | { kind: 'result' | 'error'; texts: string[] };

export function readMarkdownExport(markdown: string): ReadBlock[] {
  const lines = markdown.split('\n');
  const blocks: ReadBlock[] = [];
  let pending: ReadBlock | undefined;
  const fenceAt = (at: number): { text: string; next: number } | undefined => {
    let i = at;
    while (i < lines.length && lines[i] === '') i++;
    const open = /^(`{3,})(json|text)$/.exec(lines[i] ?? '');
    if (!open) return undefined;
    const end = lines.indexOf(open[1]!, i + 1);
    if (end === -1) throw new Error(`unclosed fence at line ${i + 1}`);
    return { text: lines.slice(i + 1, end).join('\n'), next: end };
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const begin = /^<!-- zot:([0-9a-f]{12}) (user|assistant|thinking|summary|merge) -->$/.exec(
      line,
    );
    if (begin) {
      const end = lines.indexOf(`<!-- /zot:${begin[1]} -->`, i + 1);
      if (end === -1) throw new Error(`unclosed text block at line ${i + 1}`);
      let text = lines.slice(i + 1, end).join('\n');
      if (begin[2] === 'thinking')
        text = text
          .split('\n')
          .map((l) => (l === '>' ? '' : l.replace(/^> /, '')))
          .join('\n');
      blocks.push({ kind: begin[2] as 'user', text });
      i = end;
      continue;
    }
    const call = /^\*\*Tool call:\*\* (`+) ?(.*?) ?\1$/.exec(line);
    if (call) {
      const fence = fenceAt(i + 1);
      if (!fence) throw new Error(`tool call without arguments at line ${i + 1}`);
      blocks.push({ kind: 'call', name: call[2]!, args: fence.text });
      i = fence.next;
      continue;
    }
    const result = /^\*\*(Result|Error)\*\*/.exec(line);
    if (result) {
      pending = { kind: result[1] === 'Error' ? 'error' : 'result', texts: [] };
      blocks.push(pending);
      continue;
    }
    if (pending && 'texts' in pending) {
      const fence = /^`{3,}text$/.test(line) ? fenceAt(i) : undefined;
      if (fence) {
        pending.texts.push(fence.text);
        i = fence.next;
        continue;
      }
      if (line.startsWith('## ') || line.startsWith('**')) pending = undefined;
    }
  }
  return blocks;
}

/** What readMarkdownExport should find for these messages (results under their calls). */
export function expectedBlocks(messages: readonly Message[]): ReadBlock[] {
  const results = new Map<string, ToolResultBlock>();
  for (const message of messages)
    if (message.role === 'tool')
      for (const result of message.content)
        if (!results.has(result.call_id)) results.set(result.call_id, result);
  const blocks: ReadBlock[] = [];
  for (const message of messages) {
    if (message.role === 'user') {
      for (const block of message.content)
        if (block.type === 'text') blocks.push({ kind: 'user', text: block.text });
    } else if (message.role === 'assistant') {
      for (const block of message.content) {
        if (block.type === 'text') blocks.push({ kind: 'assistant', text: block.text });
        else if (block.type === 'thinking') blocks.push({ kind: 'thinking', text: block.thinking });
        else {
          blocks.push({
            kind: 'call',
            name: block.name,
            args: JSON.stringify(block.args, null, 2),
          });
          const result = results.get(block.id);
          if (result)
            blocks.push({
              kind: result.is_error ? 'error' : 'result',
              texts: result.content.flatMap((c) => (c.type === 'text' ? [c.text] : [])),
            });
        }
      }
    }
  }
  return blocks;
}
