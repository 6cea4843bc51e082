// Stream shapes the scripted fake does not produce (errors inside a 200 stream, tool calls
// without ids): a raw server.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolveModel, streamFor } from '../src/providers/index.js';
import type { ModelInfo, ProviderEvent } from '../src/providers/types.js';

const bodies: string[] = [];
let server: Server;
let url = '';
before(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(bodies.shift() ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => {
  server.closeAllConnections();
  server.close();
});

const sse = (events: Array<[string | undefined, unknown]>) =>
  events
    .map(([name, data]) => `${name ? `event: ${name}\n` : ''}data: ${JSON.stringify(data)}\n\n`)
    .join('');

async function run(model: ModelInfo, body: string): Promise<ProviderEvent[]> {
  bodies.push(body);
  const out: ProviderEvent[] = [];
  const request = {
    model,
    baseUrl: url,
    system: '',
    messages: [],
    tools: [],
    signal: new AbortController().signal,
  };
  for await (const event of streamFor(model)(request)) out.push(event);
  return out;
}

const anthropic = resolveModel('anthropic', undefined).model;
const kimi = resolveModel('kimi', undefined).model;
const openai = resolveModel('openai', undefined).model;
const start = (u = { input_tokens: 5, output_tokens: 1 }) =>
  ['message_start', { type: 'message_start', message: { usage: u } }] as [string, unknown];
const text = (t: string) =>
  [
    'content_block_delta',
    { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: t } },
  ] as [string, unknown];

test('anthropic: an error event mid-stream ends with that error, the partial and usage', async () => {
  const error = { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } };
  const events = await run(anthropic, sse([start(), text('Hi'), ['error', error]]));
  const last = events.at(-1);
  assert.equal(last?.type, 'error');
  if (last?.type !== 'error') return;
  assert.equal(last.message, 'anthropic: overloaded_error: Overloaded');
  assert.equal(last.status, 529);
  assert.equal(last.kind, 'provider');
  assert.deepEqual(last.partial?.content, [{ type: 'text', text: 'Hi' }]);
  assert.deepEqual(last.usage, { input: 5, output: 1, cache_read: 0, cache_write: 0 });
});

test('anthropic: a stream cut before message_stop is an error, not a short answer', async () => {
  const last = (await run(anthropic, sse([start(), text('Hal')]))).at(-1);
  assert.deepEqual(last?.type === 'error' && [last.message, last.kind], [
    'anthropic: stream ended before message_stop',
    'network',
  ]);
});

test('openai-chat: an error object in the stream; a finish without [DONE] is accepted', async () => {
  const failed = await run(kimi, sse([[undefined, { error: { message: 'upstream failed' } }]]));
  assert.deepEqual(failed.at(-1), {
    type: 'error',
    message: 'kimi: upstream failed',
    aborted: false,
    kind: 'provider',
  });
  const chunk = { choices: [{ index: 0, delta: { content: 'ok' }, finish_reason: 'stop' }] };
  const done = (await run(kimi, sse([[undefined, chunk]]))).at(-1);
  assert.equal(done?.type === 'done' && done.stop, 'end_turn');
  const cut = (await run(kimi, sse([[undefined, { choices: [{ delta: { content: 'o' } }] }]]))).at(
    -1,
  );
  assert.equal(cut?.type === 'error' && cut.message, 'kimi: stream ended before a finish_reason');
  assert.equal(cut?.type === 'error' && cut.kind, 'network');
});

test('openai-responses: response.failed and error events', async () => {
  const failed = {
    type: 'response.failed',
    response: { error: { code: 'server_error', message: 'boom' } },
  };
  const one = (await run(openai, sse([['response.failed', failed]]))).at(-1);
  assert.equal(one?.type === 'error' && one.message, 'openai: response failed: boom');
  assert.equal(one?.type === 'error' && one.kind, 'provider');
  const error = { type: 'error', code: 'invalid_prompt', message: 'bad prompt' };
  const two = (await run(openai, sse([['error', error]]))).at(-1);
  assert.equal(two?.type === 'error' && two.message, 'openai: bad prompt');
});

/** The ids of the tool_call_delta events and of the tool_call events (one call streamed). */
function callIds(events: ProviderEvent[]): { deltas: string[]; calls: string[] } {
  const deltas = events.flatMap((e) => (e.type === 'tool_call_delta' ? [e.id] : []));
  const calls = events.flatMap((e) => (e.type === 'tool_call' ? [e.id] : []));
  return { deltas, calls };
}

test('a call streamed without an id: its deltas carry the id it ends up with, in every format', async () => {
  const pieces = ['{"path"', ':"a.ts"}'];
  const chatChunk = (tool: unknown, finish: string | null = null) => [
    undefined,
    { choices: [{ index: 0, delta: { tool_calls: [tool] }, finish_reason: finish }] },
  ];
  const chat = sse([
    chatChunk({ index: 0, function: { name: 'read', arguments: '' } }),
    ...pieces.map((p) => chatChunk({ index: 0, function: { arguments: p } })),
    [undefined, { choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] }],
  ] as Array<[string | undefined, unknown]>);
  const item = { type: 'function_call', id: 'fc_1', name: 'read', arguments: '' };
  const responses = sse([
    ['response.output_item.added', { type: 'response.output_item.added', item }],
    ...pieces.map(
      (delta) =>
        [
          'response.function_call_arguments.delta',
          { type: 'response.function_call_arguments.delta', item_id: 'fc_1', delta },
        ] as [string, unknown],
    ),
    [
      'response.output_item.done',
      { type: 'response.output_item.done', item: { ...item, arguments: pieces.join('') } },
    ],
    ['response.completed', { type: 'response.completed', response: {} }],
  ]);
  const block = { type: 'tool_use', name: 'read', input: {} };
  const messages = sse([
    start(),
    ['content_block_start', { type: 'content_block_start', index: 0, content_block: block }],
    ...pieces.map(
      (partial_json) =>
        [
          'content_block_delta',
          {
            type: 'content_block_delta',
            index: 0,
            delta: { type: 'input_json_delta', partial_json },
          },
        ] as [string, unknown],
    ),
    ['content_block_stop', { type: 'content_block_stop', index: 0 }],
    ['message_delta', { type: 'message_delta', delta: { stop_reason: 'tool_use' } }],
    ['message_stop', { type: 'message_stop' }],
  ]);
  for (const [model, body] of [
    [kimi, chat],
    [openai, responses],
    [anthropic, messages],
  ] as const) {
    const events = await run(model, body);
    const { deltas, calls } = callIds(events);
    assert.equal(calls.length, 1, model.api);
    assert.match(calls[0]!, /^call_1_/, model.api);
    assert.deepEqual(deltas, [calls[0], calls[0]], model.api);
    const call = events.find((e) => e.type === 'tool_call');
    assert.deepEqual(call?.type === 'tool_call' && call.args, { path: 'a.ts' }, model.api);
  }
});
