// Shared set-up of the provider tests: a default request, running a stream to its end, and
// picking out the final `done` event.
import assert from 'node:assert/strict';
import { streamFor } from '../../src/providers/index.js';
import type { ModelInfo, ProviderEvent, StreamRequest } from '../../src/providers/types.js';

export const T = '2025-01-01T00:00:00.000Z';

export interface ProviderHarness {
  request(over?: Partial<StreamRequest>): StreamRequest;
  run(over?: Partial<StreamRequest>): Promise<ProviderEvent[]>;
}

/** `defaults` is read per request, since the fake server's URL is known only once it runs. */
export function providerHarness(
  defaults: () => { model: ModelInfo; baseUrl: string; apiKey: string },
): ProviderHarness {
  const request = (over: Partial<StreamRequest> = {}): StreamRequest => ({
    ...defaults(),
    system: 'You are zot.',
    messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }], time: T }],
    tools: [],
    signal: new AbortController().signal,
    ...over,
  });
  const run = async (over: Partial<StreamRequest> = {}): Promise<ProviderEvent[]> => {
    const out: ProviderEvent[] = [];
    const full = request(over);
    for await (const event of streamFor(full.model)(full)) out.push(event);
    return out;
  };
  return { request, run };
}

export function doneOf(events: ProviderEvent[]): Extract<ProviderEvent, { type: 'done' }> {
  const last = events.at(-1);
  assert.equal(last?.type, 'done', JSON.stringify(last));
  return last as Extract<ProviderEvent, { type: 'done' }>;
}

/**
 * Checks the streaming detail of a reply: the thinking deltas are `thinking` in order and come
 * before any text; every tool call's argument deltas come before its tool_call, carry its id
 * and name, arrive in more than one piece and join to its arguments.
 */
export function assertStreamDetail(events: ProviderEvent[], thinking: string[]): void {
  const thought = events.flatMap((e) => (e.type === 'thinking_delta' ? [e.delta] : []));
  assert.deepEqual(thought, thinking);
  const lastThinking = events.findLastIndex((e) => e.type === 'thinking_delta');
  const firstText = events.findIndex((e) => e.type === 'text_delta');
  if (firstText >= 0) assert.ok(lastThinking < firstText, 'thinking streams before the text');
  const calls = events.filter((e) => e.type === 'tool_call');
  assert.ok(calls.length > 0, 'the reply has tool calls');
  for (const call of calls) {
    const at = events.indexOf(call);
    const pieces = events.flatMap((e, i) =>
      e.type === 'tool_call_delta' && e.id === call.id ? [{ ...e, i }] : [],
    );
    assert.ok(pieces.length > 1, `the arguments of ${call.id} streamed in pieces`);
    assert.ok(
      pieces.every((p) => p.i < at && p.name === call.name),
      `the deltas of ${call.id} come before it and name ${call.name}`,
    );
    assert.deepEqual(JSON.parse(pieces.map((p) => p.delta).join('')), call.args);
  }
  const known = new Set(calls.map((c) => c.id));
  assert.ok(events.every((e) => e.type !== 'tool_call_delta' || known.has(e.id)));
}
