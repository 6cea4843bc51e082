// The requests that are not commands or tools: each interception the extension declared, its
// subscribed events and a frame of an unknown type, the last two followed by a request it
// answered before (a probe) to see whether it still answers.
import {
  MAX_ADD_CONTEXT_CHARS,
  MAX_MODIFIED_PROMPT_CHARS,
  type EventInterceptResponseFrame,
} from '@zot/protocol';
import { convertContent } from '../extensions/tool-adapter.js';
import type { RequestType } from '../extensions/peer.js';
import type { Outcome } from './child.js';
import { noAnswer, notRunning, type Kit } from './kit.js';
import { cut, type Check } from './report.js';

const SAMPLE_COMMAND = 'echo zot ext test';

export type Request = { type: RequestType } & Record<string, unknown>;

/** A request the extension answered well, repeated to see whether it still answers. */
export interface Probe {
  frame: Request;
  timeoutMs: number;
  what: string;
}

export function ask(
  kit: Kit,
  frame: Request,
  timeoutMs: number,
): Promise<{ sent: string; outcome: Outcome }> {
  const { sent, outcome } = kit.child.request(frame, timeoutMs);
  return outcome.then((result) => ({ sent, outcome: result }));
}

const INTERCEPT_FRAMES: Record<string, Record<string, unknown>> = {
  tool_call: {
    event: 'tool_call',
    tool_id: 'zot-ext-test-1',
    tool_name: 'bash',
    tool_args: { command: SAMPLE_COMMAND },
  },
  turn_start: { event: 'turn_start', step: 1 },
  assistant_message: {
    event: 'assistant_message',
    text: 'zot ext test: a harmless assistant message.',
  },
  tool_result: {
    event: 'tool_result',
    tool: 'bash',
    args: { command: SAMPLE_COMMAND },
    tool_call_id: 'zot-ext-test-1',
    content: [{ type: 'text', text: 'zot ext test' }],
    is_error: false,
  },
  user_prompt: { event: 'user_prompt', text: 'zot ext test: a harmless prompt.', source: 'user' },
};

/**
 * What zot would ignore (a warning) or refuse (a failure: the answer counts as malformed, and
 * the manifest's intercept_failure decides) in an answer's version-2 fields; undefined: nothing.
 */
function v2Problem(
  event: string,
  reply: EventInterceptResponseFrame,
): { status: 'warn' | 'fail'; message: string } | undefined {
  const ignored = (message: string) => ({ status: 'warn' as const, message });
  const refused = (message: string) => ({
    status: 'fail' as const,
    message: `${message}: zot treats the answer as malformed (intercept_failure decides)`,
  });
  if (reply.replace_content !== undefined) {
    if (event !== 'tool_result') return ignored(`replace_content answers ${event}: zot ignores it`);
    const content = convertContent(reply.replace_content);
    if (typeof content === 'string') return refused(`replace_content holds ${content}`);
  }
  if (reply.modified_text !== undefined) {
    if (event !== 'user_prompt') return ignored(`modified_text answers ${event}: zot ignores it`);
    if (reply.modified_text.length > MAX_MODIFIED_PROMPT_CHARS)
      return refused(`modified_text is longer than ${MAX_MODIFIED_PROMPT_CHARS} characters`);
  }
  if (reply.add_context !== undefined) {
    if (event !== 'turn_start') return ignored(`add_context answers ${event}: zot ignores it`);
    if (reply.add_context.length > MAX_ADD_CONTEXT_CHARS)
      return refused(`add_context is longer than ${MAX_ADD_CONTEXT_CHARS} characters`);
  }
  if (reply.scope !== undefined && reply.scope !== 'transcript')
    return ignored(`scope "${reply.scope}" is not "transcript": zot ignores it`);
  return undefined;
}

/** What a version-2 answer did, for the pass message ('' when it only allowed). */
function v2Effect(event: string, reply: EventInterceptResponseFrame): string {
  if (event === 'tool_result' && reply.replace_content !== undefined)
    return `: replaced the result with ${reply.replace_content.length} block(s)`;
  if (event === 'user_prompt' && reply.modified_text !== undefined)
    return `: rewrote the prompt (${reply.modified_text.length} characters)`;
  if (event === 'turn_start' && reply.add_context !== undefined)
    return `: added context (${reply.add_context.length} characters)`;
  return '';
}

export async function intercepts(kit: Kit, probes: Probe[]): Promise<void> {
  const ms = kit.timeouts.interceptMs;
  for (const event of kit.registry.intercepts) {
    const base = { check: 'intercept', target: event } as const;
    if (notRunning(kit, base)) continue;
    const frame: Request = { type: 'event_intercept', ...INTERCEPT_FRAMES[event] };
    const { sent, outcome } = await ask(kit, frame, ms);
    const failed = noAnswer(base, sent, outcome, 'event_intercept_response', ms);
    if (failed || outcome.kind !== 'reply') {
      kit.checks.add({
        ...failed!,
        message: `${failed!.message}; zot treats a missing answer as allow`,
      });
      continue;
    }
    probes.push({ frame, timeoutMs: ms, what: `intercept ${event}` });
    const reply = outcome.frame as EventInterceptResponseFrame;
    const done = { ...base, ms: outcome.ms };
    const args = reply.modified_args;
    const v2 = v2Problem(event, reply);
    if (reply.block === true)
      kit.checks.add({
        ...done,
        status: 'pass',
        message: `answered in ${outcome.ms} ms: blocked (${cut(reply.reason ?? 'no reason', 120)})`,
      });
    else if (
      event === 'tool_call' &&
      args !== undefined &&
      (args === null || typeof args !== 'object' || Array.isArray(args))
    )
      kit.checks.add({
        ...done,
        status: 'warn',
        message: 'modified_args is not a JSON object: zot ignores it',
        frame: outcome.line,
        sent,
      });
    else if (v2 !== undefined) kit.checks.add({ ...done, ...v2, frame: outcome.line, sent });
    else
      kit.checks.add({
        ...done,
        status: 'pass',
        message: `answered in ${outcome.ms} ms${v2Effect(event, reply)}`,
      });
  }
}

const EVENT_FRAMES: Record<string, Record<string, unknown>> = {
  session_start: {},
  turn_start: { step: 1 },
  tool_call: {
    tool_id: 'zot-ext-test-1',
    tool_name: 'bash',
    tool_args: { command: SAMPLE_COMMAND },
  },
  tool_confirmation_requested: {
    tool_id: 'zot-ext-test-1',
    tool_name: 'bash',
    tool_preview: SAMPLE_COMMAND,
  },
  assistant_message: { text: 'zot ext test: a harmless assistant message.' },
  turn_end: { stop: 'end_turn' },
};

/** Sends each subscribed event once, then checks that the extension still answers. */
export async function events(kit: Kit, probes: Probe[]): Promise<void> {
  const names = [...kit.registry.events];
  if (names.length === 0 || notRunning(kit, { check: 'events' })) return;
  for (const event of names) kit.child.send({ type: 'event', event, ...EVENT_FRAMES[event] });
  await stillAnswers(kit, probes, { check: 'events' }, `after the events ${names.join(', ')}`);
}

/** Sends a frame type no host sends, then checks that the extension still answers. */
export async function unknownFrame(kit: Kit, probes: Probe[]): Promise<void> {
  const base = { check: 'unknown_frame' } as const;
  if (notRunning(kit, base)) return;
  kit.child.send({
    type: 'zot_ext_test_unknown_frame',
    id: 'zot-ext-test',
    data: { future: [1, 'two', null] },
  });
  await stillAnswers(kit, probes, base, 'after a frame of an unknown type');
}

async function stillAnswers(
  kit: Kit,
  probes: Probe[],
  base: Pick<Check, 'check' | 'target'>,
  when: string,
): Promise<void> {
  const probe = probes[0];
  if (!probe) {
    // Nothing it answered before to ask again: it must at least stay up for a moment.
    await kit.child.waitUntil(() => false, Math.min(300, kit.timeouts.autoReadyMs));
    if (kit.child.ended)
      kit.checks.add({
        ...base,
        status: 'fail',
        message: `the extension ${kit.child.exitText} ${when}`,
      });
    else
      kit.checks.add({
        ...base,
        status: 'pass',
        message: `still running ${when} (it answered no request the kit could repeat)`,
      });
    return;
  }
  const { sent, outcome } = await ask(kit, probe.frame, probe.timeoutMs);
  const failed = noAnswer(base, sent, outcome, 'answer', probe.timeoutMs);
  if (failed) kit.checks.add({ ...failed, message: `${when}: ${failed.message}` });
  else
    kit.checks.add({
      ...base,
      status: 'pass',
      ms: outcome.ms,
      message: `still answers ${when} (${probe.what} in ${outcome.ms} ms)`,
    });
}
