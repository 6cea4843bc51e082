// Pairs every tool call of a loaded transcript with its result, as the model APIs require: a
// crash mid-tool leaves a call without a result, which every later request would be refused for.
import type { Message, ToolCallBlock, ToolMessage, ToolResultBlock } from '../providers/types.js';
import { terminalSafe } from '../util/terminal-text.js';

export const INTERRUPTED_TEXT = 'interrupted: zot exited before the tool finished';

/** A message with the session-file line it came from. */
export interface LineMessage {
  message: Message;
  line: number;
}

export interface RepairedTranscript {
  messages: Message[];
  warnings: string[];
  /** The synthetic tool message when it is the transcript's last message (see LoadedSession). */
  tailRepair?: ToolMessage;
}

const quoted = (text: string) =>
  terminalSafe(JSON.stringify(text.length > 60 ? `${text.slice(0, 60)}…` : text));

function interrupted(call: ToolCallBlock): ToolResultBlock {
  return {
    type: 'tool_result',
    call_id: call.id,
    name: call.name,
    is_error: true,
    content: [{ type: 'text', text: INTERRUPTED_TEXT }],
  };
}

/**
 * Gives each assistant tool call the result from the tool message right after it, or a
 * synthetic error result ("interrupted ...") when there is none; results in call order. Drops
 * results no call asked for (orphans, duplicates) and tool messages that follow no call.
 * Contract: linear, never throws; a transcript that needs no repair comes back equal.
 */
export function pairToolCalls(transcript: LineMessage[], file: string): RepairedTranscript {
  const messages: Message[] = [];
  const warnings: string[] = [];
  let tailRepair: ToolMessage | undefined;
  const dropped = (result: ToolResultBlock, line: number, why: string) =>
    warnings.push(
      `${file}: dropped the tool result for call ${quoted(result.call_id)} on line ${line}: ${why}`,
    );
  for (let i = 0; i < transcript.length; i++) {
    const { message, line } = transcript[i]!;
    if (message.role === 'tool') {
      for (const result of message.content) dropped(result, line, 'no tool call precedes it');
      continue;
    }
    messages.push(message);
    if (message.role !== 'assistant') continue;
    const calls = message.content.filter((block) => block.type === 'tool_call');
    if (calls.length === 0) continue;
    const next = transcript[i + 1];
    const results = next?.message.role === 'tool' ? next : undefined;
    const found = new Map<string, ToolResultBlock>();
    if (results) {
      i++;
      const wanted = new Set(calls.map((call) => call.id));
      for (const result of results.message.content as ToolResultBlock[]) {
        if (!wanted.has(result.call_id))
          dropped(result, results.line, `its call is not on line ${line}`);
        else if (found.has(result.call_id)) dropped(result, results.line, 'a duplicate');
        else found.set(result.call_id, result);
      }
    }
    const content = calls.map((call) => {
      const result = found.get(call.id);
      if (result) return result;
      warnings.push(
        `${file}: tool call ${quoted(call.name)} (${quoted(call.id)}) on line ${line} has no ` +
          `result; the model is told it was interrupted`,
      );
      return interrupted(call);
    });
    const time = results?.message.time ?? message.time;
    const repaired: ToolMessage = { role: 'tool', content, time };
    messages.push(repaired);
    // Completing the very end of the transcript can be written back without rewriting the file.
    if (!results && i === transcript.length - 1) tailRepair = repaired;
  }
  return { messages, warnings, ...(tailRepair ? { tailRepair } : {}) };
}
