import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { resolveModel, streamFor } from '../src/providers/index.js';
import { isTransient } from '../src/providers/retry.js';
import type { ModelInfo, ProviderEvent, StreamRequest } from '../src/providers/types.js';
import { startFakeLlm, type FakeLlm } from './support/fake-llm.js';

let fake: FakeLlm;
before(async () => {
  fake = await startFakeLlm();
});
after(() => fake.close());

const T = '2025-01-01T00:00:00.000Z';
const FORMATS: Array<[string, ModelInfo]> = [
  ['anthropic', resolveModel('anthropic', undefined).model],
  ['openai', resolveModel('openai', undefined).model],
  ['kimi', resolveModel('kimi', undefined).model],
];

function request(model: ModelInfo, over: Partial<StreamRequest> = {}): StreamRequest {
  return {
    model,
    baseUrl: fake.url,
    apiKey: 'key',
    system: 'sys',
    messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }], time: T }],
    tools: [],
    signal: new AbortController().signal,
    ...over,
  };
}

async function run(model: ModelInfo, over: Partial<StreamRequest> = {}): Promise<ProviderEvent[]> {
  const out: ProviderEvent[] = [];
  for await (const event of streamFor(model)(request(model, over))) out.push(event);
  return out;
}

function errorOf(events: ProviderEvent[]) {
  const last = events.at(-1);
  assert.equal(last?.type, 'error', JSON.stringify(last));
  assert.equal(events.filter((e) => e.type === 'error' || e.type === 'done').length, 1);
  return last as Extract<ProviderEvent, { type: 'error' }>;
}

/** Runs `body` and returns how many requests reached the fake server meanwhile. */
async function countRequests(body: () => Promise<void>): Promise<number> {
  const before = fake.requests.length;
  await body();
  return fake.requests.length - before;
}

for (const [provider, model] of FORMATS) {
  test(`${provider}: 401 and 429 name the provider and status and are not retried`, async () => {
    fake.script(
      { status: 401, errorMessage: 'invalid x-api-key' },
      { status: 429, errorMessage: 'Rate limit reached', headers: { 'retry-after': '20' } },
    );
    let events: ProviderEvent[] = [];
    assert.equal(await countRequests(async () => void (events = await run(model))), 1);
    const unauthorized = errorOf(events);
    assert.equal(
      unauthorized.message,
      `${provider}: HTTP 401: invalid x-api-key (check the API key)`,
    );
    assert.equal(unauthorized.status, 401);
    assert.equal(unauthorized.aborted, false);
    assert.equal(await countRequests(async () => void (events = await run(model))), 1);
    const limited = errorOf(events);
    assert.equal(limited.message, `${provider}: HTTP 429: Rate limit reached (retry after 20s)`);
    assert.equal(limited.status, 429);
    assert.equal(fake.pending(), 0);
  });

  test(`${provider}: a 503 and a connection reset are retried silently`, async () => {
    fake.script(
      { status: 503, errorMessage: 'busy' },
      { resetConnection: true },
      { text: ['fine', '!'] },
    );
    let events: ProviderEvent[] = [];
    const began = Date.now();
    assert.equal(await countRequests(async () => void (events = await run(model))), 3);
    assert.ok(Date.now() - began >= 900, 'waited 250 ms then 750 ms');
    assert.deepEqual(
      events.map((e) => e.type),
      ['start', 'text_delta', 'text_delta', 'done'],
    );
  });

  test(`${provider}: an abort mid-stream ends promptly with aborted and the partial message`, async () => {
    fake.script({ text: ['partial ', 'never sent'], hang: true });
    const controller = new AbortController();
    const events: ProviderEvent[] = [];
    for await (const event of streamFor(model)(request(model, { signal: controller.signal }))) {
      events.push(event);
      if (event.type === 'text_delta') {
        controller.abort();
      }
    }
    // The stream hangs after the first delta: only the abort can have ended the loop.
    const error = errorOf(events);
    assert.equal(error.aborted, true);
    assert.equal(error.message, `${provider}: aborted`);
    assert.deepEqual(error.partial?.content, [{ type: 'text', text: 'partial ' }]);
  });
}

test('gives up after two retries and reports the last status', async () => {
  const model = FORMATS[0]![1];
  fake.script(
    { status: 502 },
    { status: 503 },
    { status: 504, errorMessage: 'gateway timeout' },
    { text: 'unused' },
  );
  let events: ProviderEvent[] = [];
  assert.equal(await countRequests(async () => void (events = await run(model))), 3);
  const error = errorOf(events);
  assert.equal(error.message, 'anthropic: HTTP 504: gateway timeout');
  assert.equal(error.status, 504);
  assert.equal(error.kind, 'provider');
  assert.equal(fake.pending(), 1);
  await run(model); // consumes the unused reply
});

test('no retry once output began: a connection lost mid-stream keeps the partial', async () => {
  const own = await startFakeLlm();
  const model = FORMATS[1]![1];
  own.script({ text: ['Hello', ' there'], hang: true }, { text: 'retried!' });
  const events: ProviderEvent[] = [];
  for await (const event of streamFor(model)(request(model, { baseUrl: own.url }))) {
    events.push(event);
    if (event.type === 'text_delta') void own.close(); // drops the open connection
  }
  const error = errorOf(events);
  assert.match(error.message, /^openai: connection lost: /);
  assert.equal(error.aborted, false);
  assert.equal(error.kind, 'network');
  assert.deepEqual(error.partial?.content, [{ type: 'text', text: 'Hello' }]);
  assert.equal(own.requests.length, 1);
  assert.equal(own.pending(), 1);
});

test('connection refused fails at once, naming the provider', async () => {
  const port = await new Promise<number>((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
  const model = FORMATS[2]![1];
  const error = errorOf(await run(model, { baseUrl: `http://127.0.0.1:${port}/v1` }));
  assert.match(error.message, /^kimi: connection failed: .*ECONNREFUSED/);
  assert.equal(error.kind, 'network');
  // Structural, not a stopwatch: a retry is decided by isTransient alone.
  assert.equal(isTransient(error), false, 'not retried');
});

test('an unscripted request fails loudly with HTTP 500', async () => {
  const error = errorOf(await run(FORMATS[0]![1]));
  assert.equal(error.message, 'anthropic: HTTP 500: fake-llm: no scripted reply left');
  assert.equal(error.status, 500);
});

test('an already aborted signal yields start then an aborted error without a request', async () => {
  const controller = new AbortController();
  controller.abort();
  const model = FORMATS[0]![1];
  let events: ProviderEvent[] = [];
  const n = await countRequests(
    async () => void (events = await run(model, { signal: controller.signal })),
  );
  assert.equal(n, 0);
  assert.deepEqual(events, [
    { type: 'start' },
    { type: 'error', message: 'anthropic: aborted', aborted: true },
  ]);
});

test('a stream that goes silent ends after the idle timeout with the partial answer kept', async () => {
  const own = await startFakeLlm();
  process.env.ZOT_STREAM_IDLE_TIMEOUT_MS = '300';
  try {
    for (const [provider, model] of FORMATS) {
      own.script({ text: ['Hello', ' there'], hang: true });
      const error = errorOf(await run(model, { baseUrl: own.url }));
      assert.equal(
        error.message,
        `${provider}: no data from the server for 300 ms; gave up (ZOT_STREAM_IDLE_TIMEOUT_MS sets the limit)`,
      );
      assert.equal(error.aborted, false);
      assert.equal(error.kind, 'network');
      assert.deepEqual(error.partial?.content, [{ type: 'text', text: 'Hello' }]);
      assert.equal(isTransient(error), false, 'not retried: the answer had begun');
    }
  } finally {
    delete process.env.ZOT_STREAM_IDLE_TIMEOUT_MS;
    await own.close();
  }
});

test('an answer past ZOT_STREAM_MAX_BYTES ends with an error that keeps what fit, in every format', async () => {
  process.env.ZOT_STREAM_MAX_BYTES = '4096';
  const kilo = (letter: string) => Array.from({ length: 20 }, () => letter.repeat(1000));
  try {
    for (const [provider, model] of FORMATS) {
      const cases = [
        { text: kilo('a') },
        { thinking: kilo('b'), text: 'never' },
        { text: 'before', toolCalls: [{ name: 'write', args: { content: 'c'.repeat(20_000) } }] },
      ];
      const kept: string[] = [];
      for (const reply of cases) {
        fake.script(reply);
        const error = errorOf(await run(model));
        assert.equal(
          error.message,
          `${provider}: the answer passed the 4 KB limit (text, thinking and tool arguments); ` +
            'stopped reading it and kept what had arrived (ZOT_STREAM_MAX_BYTES sets the limit)',
        );
        assert.equal(isTransient(error), false, 'not retried: the same answer would come again');
        assert.equal(error.kind, 'provider');
        kept.push(
          (error.partial?.content ?? [])
            .map((b) => (b.type === 'text' ? b.text : b.type === 'thinking' ? b.thinking : b.type))
            .join('|'),
        );
      }
      assert.deepEqual(kept, ['a'.repeat(4000), 'b'.repeat(4000), 'before'], provider);
    }
  } finally {
    delete process.env.ZOT_STREAM_MAX_BYTES;
  }
});

test('a server that never answers the request is given up on after the idle timeout', async () => {
  const silent = createServer((socket) => socket.on('data', () => {})); // reads, never writes
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const { port } = silent.address() as { port: number };
  process.env.ZOT_STREAM_IDLE_TIMEOUT_MS = '200';
  try {
    const error = errorOf(await run(FORMATS[0]![1], { baseUrl: `http://127.0.0.1:${port}` }));
    assert.equal(
      error.message,
      'anthropic: no data from the server for 200 ms; gave up (ZOT_STREAM_IDLE_TIMEOUT_MS sets the limit)',
    );
    assert.equal(error.partial, undefined);
  } finally {
    delete process.env.ZOT_STREAM_IDLE_TIMEOUT_MS;
    await new Promise((resolve) => silent.close(resolve));
  }
});

test('an abort while the server is silent ends the stream at once as aborted', async () => {
  const own = await startFakeLlm();
  own.script({ text: ['Hello'], hang: true });
  const controller = new AbortController();
  const events: ProviderEvent[] = [];
  const model = FORMATS[0]![1];
  // Only the abort can end this stream before the 120 s idle timeout.
  for await (const event of streamFor(model)(
    request(model, { baseUrl: own.url, signal: controller.signal }),
  )) {
    events.push(event);
    if (event.type === 'text_delta') controller.abort();
  }
  const error = errorOf(events);
  assert.equal(error.message, 'anthropic: aborted');
  assert.equal(error.aborted, true);
  assert.deepEqual(error.partial?.content, [{ type: 'text', text: 'Hello' }]);
  await own.close();
});
