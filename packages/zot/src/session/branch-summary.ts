// The short summary zot writes of a branch the session leaves (a switch in /tree, a rewind of
// the conversation), so that its result is not lost: one made from the transcript at once, and
// one asked of the model afterwards when a model can be called (the later one wins).
import { textOf } from '../agent/content-text.js';
import type { ModelCallSettings } from '../agent/loop.js';
import { MAX_BRANCH_SUMMARY_CHARS } from './entries.js';
import type { Message, ModelInfo, StreamFn } from '../providers/types.js';
import { askForText, renderTranscript } from './compact.js';

const MAX_PROMPTS = 6;
const MAX_FILES = 12;
const ANSWER_LINES = 3;
/** What the model is shown of a branch: its first prompt and the end of its transcript. */
export const MAX_SUMMARY_PROMPT_CHARS = 24_000;

const SYSTEM =
  'You summarise one branch of a coding session that the user is leaving, so that its result ' +
  'is not lost. In at most 8 short lines: what was tried, what was found or changed (files with ' +
  'paths), and where it stopped. No preamble.';

const oneLine = (text: string, max = 160) => {
  const line = (text.trim().split('\n')[0] ?? '').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
};

const textIn = (message: Message) => (message.role === 'tool' ? '' : textOf(message.content));

export function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** The paths the branch's tools wrote or edited (their results' details, or their arguments). */
function filesTouched(messages: readonly Message[]): string[] {
  const files = new Set<string>();
  for (const message of messages) {
    for (const block of message.content) {
      if (block.type === 'tool_result' && block.details) {
        const details = block.details;
        if (details.kind === 'edit' || details.kind === 'write') files.add(details.path);
      } else if (block.type === 'tool_call' && /^(edit|write)$/.test(block.name)) {
        const path = block.args['path'];
        if (typeof path === 'string') files.add(path);
      }
    }
  }
  return [...files];
}

/**
 * A summary made without a model: the prompts, the files written or edited, the first lines of
 * the last answer. Empty when the messages hold nothing of the kind. Contract: never throws;
 * at most MAX_BRANCH_SUMMARY_CHARS.
 */
export function plainSummary(messages: readonly Message[]): string {
  const prompts = messages
    .filter((message) => message.role === 'user')
    .map((message) => oneLine(textIn(message)))
    .filter((text) => text !== '');
  const files = filesTouched(messages);
  const lines: string[] = [];
  if (prompts.length > 0) {
    lines.push('Prompts:');
    for (const prompt of prompts.slice(0, MAX_PROMPTS)) lines.push(`- ${prompt}`);
    if (prompts.length > MAX_PROMPTS) lines.push(`- and ${prompts.length - MAX_PROMPTS} more`);
  }
  if (files.length > 0) {
    const shown = files.slice(0, MAX_FILES).join(', ');
    const more = files.length > MAX_FILES ? ` and ${files.length - MAX_FILES} more` : '';
    lines.push(`Files written or edited: ${shown}${more}`);
  }
  const last = [...messages]
    .reverse()
    .find((message) => message.role === 'assistant' && textIn(message).trim() !== '');
  if (last) {
    const answer = textIn(last).trim().split('\n').slice(0, ANSWER_LINES);
    lines.push('Last answer:', ...answer.map((line) => `  ${clip(line, 300)}`));
  }
  return clip(lines.join('\n'), MAX_BRANCH_SUMMARY_CHARS);
}

/** The prompt the model is given: the branch's first prompt and the end of its transcript. */
export function summaryPrompt(messages: readonly Message[]): string {
  const rendered = renderTranscript([...messages]);
  const first = messages.find((message) => message.role === 'user');
  const firstText = first ? clip(textIn(first).trim(), 2000) : '';
  const room = MAX_SUMMARY_PROMPT_CHARS - firstText.length;
  const tail = rendered.length > room ? `[…]\n${rendered.slice(rendered.length - room)}` : rendered;
  return `The branch began with this prompt:\n${firstText}\n\nIts transcript:\n\n${tail}`;
}

/**
 * Asks the model for a branch summary. Contract: never throws; undefined when the call fails
 * or returns nothing (the plain summary already written stands).
 */
export async function modelSummary(
  messages: readonly Message[],
  settings: ModelCallSettings,
  stream: (model: ModelInfo) => StreamFn,
  signal: AbortSignal,
): Promise<string | undefined> {
  try {
    const answer = await askForText(settings, stream, SYSTEM, summaryPrompt(messages), signal);
    if ('text' in answer && answer.text) return clip(answer.text, MAX_BRANCH_SUMMARY_CHARS);
  } catch {
    // A failed summary call changes nothing.
  }
  return undefined;
}
