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
