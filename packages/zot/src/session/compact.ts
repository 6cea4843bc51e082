// Compaction: summarise the older part of the transcript, keep the last exchanges verbatim.
import { textOf } from '../agent/content-text.js';
import type { Message, ModelInfo, StreamFn } from '../providers/types.js';
import type { AgentHooks } from '../agent/hooks.js';
import type { ModelCallSettings } from '../agent/loop.js';
import type { ErrorKind } from '../contract/errors.js';

/** Why compaction did not happen; no `kind` when it was aborted (not a failure). */
export type CompactionFailure = { error: string; kind?: ErrorKind };

export const KEEP_EXCHANGES = 2;
export const AUTO_COMPACT_RATIO = 0.85;
const RESULT_CHARS = 2000;

const SUMMARY_SYSTEM =
  'You summarise a coding session so that it can continue without the full transcript. ' +
  "Keep: the user's goals and constraints, decisions made, files read or changed (with paths), " +
  'commands run and their outcomes, errors still open, and the next steps. Be specific and terse.';

/** Index of the first message to keep verbatim: the start of one of the last exchanges. */
export function splitPoint(messages: readonly Message[], keep = KEEP_EXCHANGES): number {
  const starts = messages
    .map((message, index) => (message.role === 'user' ? index : -1))
    .filter((index) => index >= 0);
  if (starts.length === 0) return messages.length;
  const kept = Math.min(keep, starts.length - 1);
  return kept === 0 ? messages.length : starts[starts.length - kept]!;
}

function clip(text: string): string {
  return text.length > RESULT_CHARS ? `${text.slice(0, RESULT_CHARS)} […]` : text;
}

/** Plain-text rendering of messages for the summariser. */
export function renderTranscript(messages: Message[]): string {
  const lines: string[] = [];
  for (const message of messages) {
    for (const block of message.content) {
      if (block.type === 'text') lines.push(`${message.role.toUpperCase()}: ${block.text}`);
      else if (block.type === 'image')
        lines.push(`${message.role.toUpperCase()}: [image ${block.mime_type}]`);
      else if (block.type === 'tool_call')
        lines.push(`TOOL CALL ${block.name}: ${JSON.stringify(block.args)}`);
      else if (block.type === 'tool_result') {
        const text = block.content.map((c) => (c.type === 'text' ? c.text : '[image]')).join('\n');
        lines.push(`TOOL RESULT${block.is_error ? ' (error)' : ''}: ${clip(text)}`);
      }
    }
  }
  return lines.join('\n\n');
}

/** What one text-only model call gave: its text (trimmed), its error, or nothing. */
export type TextAnswer =
  | { text: string }
  | { error: string; kind: ErrorKind | undefined; aborted: boolean }
  | { ended: true };

/**
 * One model call without tools: `system`, and `prompt` as the user's message.
 * Contract: never throws (a StreamFn never does); `ended` when the stream stopped without a
 * result.
 */
export async function askForText(
  settings: ModelCallSettings,
  stream: (model: ModelInfo) => StreamFn,
  system: string,
  prompt: string,
  signal: AbortSignal,
): Promise<TextAnswer> {
  const request = {
    model: settings.model,
    baseUrl: settings.baseUrl,
    ...(settings.apiKey !== undefined ? { apiKey: settings.apiKey } : {}),
    system,
    messages: [
      {
        role: 'user' as const,
        content: [{ type: 'text' as const, text: prompt }],
        time: new Date().toISOString(),
      },
    ],
    tools: [],
    signal,
  };
  for await (const event of stream(settings.model)(request)) {
    if (event.type === 'done') return { text: textOf(event.message.content).trim() };
    if (event.type === 'error')
      return { error: event.message, kind: event.kind, aborted: event.aborted === true };
  }
  return { ended: true };
}

/**
 * Asks the model for a summary of `head`.
 * Contract: never throws; returns the summary or an error message.
 */
export async function summarise(
  head: Message[],
  settings: ModelCallSettings,
  stream: (model: ModelInfo) => StreamFn,
  signal: AbortSignal,
): Promise<{ summary: string } | CompactionFailure> {
  const prompt = `Summarise this session:\n\n${renderTranscript(head)}`;
  const answer = await askForText(settings, stream, SUMMARY_SYSTEM, prompt, signal);
  if ('text' in answer)
    return answer.text
      ? { summary: answer.text }
      : { error: 'compaction failed: the model returned an empty summary', kind: 'provider' };
  if ('error' in answer) {
    const error = `compaction failed: ${answer.error}`;
    return answer.aborted ? { error } : { error, kind: answer.kind };
  }
  return { error: 'compaction failed: the stream ended without a result', kind: 'internal' };
}

/**
 * The summary is model output that the user sees and the transcript keeps, so it is screened
 * like assistant text (an earlier tool result may have carried what a rule redacts).
 * Contract: never throws; a blocked or emptied summary is an error and changes nothing.
 */
export async function screenSummary(
  hooks: AgentHooks,
  summary: string,
): Promise<{ summary: string } | CompactionFailure> {
  let decision;
  try {
    decision = await hooks.beforeAssistantText?.(summary, 'summary');
  } catch {
    return { summary }; // the hook contract: a throw counts as "allow"
  }
  if (decision?.block) {
    const why = decision.reason ? `: ${decision.reason}` : '';
    return { error: `compaction failed: the summary was blocked${why}`, kind: 'blocked' };
  }
  const text = (decision?.text ?? summary).trim();
  return text
    ? { summary: text }
    : { error: 'compaction failed: the summary was emptied', kind: 'blocked' };
}

/**
 * What compaction makes of `messages`: the screened summary of the older part, and the last
 * exchanges kept as they are. `call` is asked for the model settings only once there is
 * something to compact (so "nothing to compact" wins over a missing API key).
 * Contract: never throws.
 */
export async function compactTranscript(
  messages: readonly Message[],
  call: () => { settings: ModelCallSettings } | CompactionFailure,
  stream: (model: ModelInfo) => StreamFn,
  hooks: AgentHooks,
  signal: AbortSignal,
): Promise<{ summary: string; kept: Message[] } | CompactionFailure> {
  const cut = splitPoint(messages);
  if (cut === 0 || messages.length === 0)
    return { error: 'nothing to compact yet', kind: 'failed' };
  const ready = call();
  if ('error' in ready) return ready;
  const summarised = await summarise(messages.slice(0, cut), ready.settings, stream, signal);
  const result =
    'error' in summarised ? summarised : await screenSummary(hooks, summarised.summary);
  if ('error' in result) return result;
  return { summary: result.summary, kept: messages.slice(cut) };
}
