import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resolveModel } from './catalog.js';
import { isTransient, withRetry } from './retry.js';
import type { ProviderEvent, StreamFn, StreamRequest } from './types.js';

const model = resolveModel('openai', 'gpt-5').model;
const done: ProviderEvent = {
  type: 'done',
  message: { role: 'assistant', content: [{ type: 'text', text: 'ok' }], time: '' },
  stop: 'end_turn',
  usage: { input: 1, output: 1, cache_read: 0, cache_write: 0 },
};
const err = (message: string, status?: number): ProviderEvent => ({
  type: 'error',
  message,
  aborted: false,
  kind: 'provider',
  ...(status === undefined ? {} : { status }),
});

function request(signal = new AbortController().signal): StreamRequest {
  return { model, baseUrl: 'http://x', system: '', messages: [], tools: [], signal };
}

/** A StreamFn that plays one scripted attempt per call. */
function scripted(attempts: ProviderEvent[][]): StreamFn & { calls: number } {
  const fn = Object.assign(
    async function* () {
      const events = attempts[fn.calls++] ?? [err('no more attempts')];
      yield* events;
    },
    { calls: 0 },
  );
  return fn;
}

async function collect(stream: AsyncIterable<ProviderEvent>): Promise<ProviderEvent[]> {
  const out: ProviderEvent[] = [];
  for await (const event of stream) out.push(event);
  return out;
}

const start: ProviderEvent = { type: 'start' };

test('isTransient: gateway statuses and dropped connections only', () => {
  for (const status of [502, 503, 504, 529])
    assert.equal(isTransient(err('x', status) as never), true);
  for (const status of [400, 401, 403, 404, 429, 500])
    assert.equal(isTransient(err('x', status) as never), false);
  for (const m of [
    'read ECONNRESET',
    'write EPIPE',
    'socket hang up',
    'terminated: other side closed (UND_ERR_SOCKET)',
  ]) {
    assert.equal(isTransient(err(`openai: connection lost: ${m}`) as never), true, m);
  }
  assert.equal(isTransient(err('openai: connection failed: connect ECONNREFUSED') as never), false);
  assert.equal(isTransient({ type: 'error', message: 'x: aborted', aborted: true }), false);
});

test('retries a 503 silently and yields start once', async () => {
  const inner = scripted([
    [start, err('openai: HTTP 503: busy', 503)],
    [start, done],
  ]);
  const events = await collect(withRetry(inner, [1, 1])(request()));
  assert.equal(inner.calls, 2);
  assert.deepEqual(
    events.map((e) => e.type),
    ['start', 'done'],
  );
});

test('gives up after two retries with the last error', async () => {
  const inner = scripted(
    [1, 2, 3, 4].map(() => [start, err('openai: HTTP 502: bad gateway', 502)]),
  );
  const events = await collect(withRetry(inner, [1, 1])(request()));
  assert.equal(inner.calls, 3);
  assert.deepEqual(
    events.map((e) => e.type),
    ['start', 'error'],
  );
});

test('never retries 400/401/403/429', async () => {
  for (const status of [400, 401, 403, 429]) {
    const inner = scripted([
      [start, err(`openai: HTTP ${status}: no`, status)],
      [start, done],
    ]);
    const events = await collect(withRetry(inner, [1, 1])(request()));
    assert.equal(inner.calls, 1, String(status));
    assert.equal(events.at(-1)?.type, 'error');
  }
});

test('does not retry once output has been yielded', async () => {
  const delta: ProviderEvent = { type: 'text_delta', delta: 'Hel' };
  const inner = scripted([
    [start, delta, err('openai: connection lost: terminated')],
    [start, done],
  ]);
  const events = await collect(withRetry(inner, [1, 1])(request()));
  assert.equal(inner.calls, 1);
  assert.deepEqual(
    events.map((e) => e.type),
    ['start', 'text_delta', 'error'],
  );
});

test('an abort during the retry delay ends at once with an aborted error', async () => {
  const controller = new AbortController();
  const inner = scripted([
    [start, err('openai: HTTP 503: busy', 503)],
    [start, done],
  ]);
  setTimeout(() => controller.abort(), 30);
  // A ten-minute delay: only an abort that ends the wait lets this finish.
  const events = await collect(withRetry(inner, [600_000])(request(controller.signal)));
  assert.equal(inner.calls, 1);
  assert.deepEqual(events.at(-1), { type: 'error', message: 'openai: aborted', aborted: true });
});

test('a stream that breaks the contract still ends with one error', async () => {
  const throwing: StreamFn = async function* () {
    yield start;
    throw new Error('boom');
  };
  const events = await collect(withRetry(throwing, [1])(request()));
  assert.deepEqual(
    events.map((e) => e.type),
    ['start', 'error'],
  );
  const silent: StreamFn = async function* () {
    yield start;
  };
  assert.equal((await collect(withRetry(silent)(request()))).at(-1)?.type, 'error');
});
