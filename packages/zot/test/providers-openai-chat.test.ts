import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { costUsd, resolveModel } from '../src/providers/index.js';
import type { Message, ModelInfo } from '../src/providers/types.js';
import { startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { assertStreamDetail, doneOf, providerHarness, T } from './support/provider-harness.js';

let fake: FakeLlm;
before(async () => {
  fake = await startFakeLlm();
});
after(() => fake.close());

const kimi = resolveModel('kimi', 'kimi-k2-0905-preview').model;
const png = { type: 'image' as const, mime_type: 'image/png', data: 'iVBORw0KGgo=' };

const { run } = providerHarness(() => ({
  model: kimi,
  baseUrl: `${fake.url}/v1`,
  apiKey: 'sk-kimi',
}));

test('openai-chat: streams text chunks; usage from the final chunk with cached tokens split out', async () => {
  fake.script({
    text: ['One', ', two', ', three.'],
    usage: { input: 300, output: 12, cache_read: 700 },
  });
  const events = await run();
  assert.deepEqual(
    events.filter((e) => e.type === 'text_delta').map((e) => e.type === 'text_delta' && e.delta),
    ['One', ', two', ', three.'],
  );
  const done = doneOf(events);
  assert.equal(done.stop, 'end_turn');
  assert.deepEqual(done.message.content, [{ type: 'text', text: 'One, two, three.' }]);
  assert.deepEqual(done.usage, { input: 300, output: 12, cache_read: 700, cache_write: 0 });
  assert.ok(
    Math.abs(costUsd(kimi, done.usage) - (300 * 0.6 + 12 * 2.5 + 700 * 0.15) / 1e6) < 1e-12,
  );
});

test('openai-chat: request shape for kimi (max_tokens, bearer key, tools, stream_options)', async () => {
  fake.script({ text: 'ok' });
  const tools = [{ name: 'read', description: 'Read a file', parameters: { type: 'object' } }];
  doneOf(await run({ tools, reasoning: 'high' }));
  const req = fake.requests.at(-1)!;
  assert.equal(req.path, '/v1/chat/completions');
  assert.equal(req.format, 'openai-chat');
  assert.equal(req.headers.authorization, 'Bearer sk-kimi');
  assert.deepEqual(req.body, {
    model: 'kimi-k2-0905-preview',
    messages: [
      { role: 'system', content: 'You are zot.' },
      { role: 'user', content: 'hi' },
    ],
    stream: true,
    stream_options: { include_usage: true },
    max_tokens: kimi.maxTokens,
    tools: [
      {
        type: 'function',
        function: { name: 'read', description: 'Read a file', parameters: { type: 'object' } },
      },
    ],
  });
});

test('openai-chat: ollama without a key sends no Authorization; base URL without /v1 works', async () => {
  fake.script({ text: 'local' });
  const llama = resolveModel('ollama', undefined).model;
  doneOf(await run({ model: llama, apiKey: undefined, baseUrl: fake.url, system: '' }));
  const req = fake.requests.at(-1)!;
  assert.equal(req.path, '/v1/chat/completions');
  assert.equal(req.headers.authorization, undefined);
  assert.equal(req.body.model, 'llama3.1');
  assert.deepEqual(req.body.messages, [{ role: 'user', content: 'hi' }]);
});

test('openai-chat: provider openai uses max_completion_tokens and reasoning_effort', async () => {
  fake.script({ text: 'ok' });
  const model: ModelInfo = { ...resolveModel('openai', 'o4-mini').model, api: 'openai-chat' };
  doneOf(await run({ model, reasoning: 'low' }));
  const body = fake.requests.at(-1)!.body;
  assert.equal(body.max_completion_tokens, model.maxTokens);
  assert.equal(body.max_tokens, undefined);
  assert.equal(body.reasoning_effort, 'low');
});

test('openai-chat: converts images, tool calls, and tool results whose images follow as a user message', async () => {
  fake.script({ text: 'seen' });
  const messages: Message[] = [
    { role: 'user', content: [{ type: 'text', text: 'look' }, png], time: T },
    {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'not sent back' },
        { type: 'text', text: 'Reading both.' },
        { type: 'tool_call', id: 'call_1', name: 'read', args: { path: 'a.png' } },
        { type: 'tool_call', id: 'call_2', name: 'bash', args: { command: 'false' } },
      ],
      time: T,
    },
    {
      role: 'tool',
      content: [
        {
          type: 'tool_result',
          call_id: 'call_1',
          name: 'read',
          is_error: false,
          content: [{ type: 'text', text: 'an image' }, png],
        },
        {
          type: 'tool_result',
          call_id: 'call_2',
          is_error: true,
          content: [{ type: 'text', text: 'exit 1' }],
        },
      ],
      time: T,
    },
    {
      role: 'assistant',
      content: [{ type: 'tool_call', id: 'call_3', name: 'ls', args: {} }],
      time: T,
    },
    {
      role: 'tool',
      content: [{ type: 'tool_result', call_id: 'call_3', is_error: false, content: [] }],
      time: T,
    },
  ];
  doneOf(await run({ messages }));
  const url = { url: 'data:image/png;base64,iVBORw0KGgo=' };
  assert.deepEqual(fake.requests.at(-1)!.body.messages, [
    { role: 'system', content: 'You are zot.' },
    {
      role: 'user',
      content: [
        { type: 'text', text: 'look' },
        { type: 'image_url', image_url: url },
      ],
    },
    {
      role: 'assistant',
      content: 'Reading both.',
      tool_calls: [
        {
          id: 'call_1',
          type: 'function',
          function: { name: 'read', arguments: '{"path":"a.png"}' },
        },
        {
          id: 'call_2',
          type: 'function',
          function: { name: 'bash', arguments: '{"command":"false"}' },
        },
      ],
    },
    { role: 'tool', tool_call_id: 'call_1', content: 'an image' },
    { role: 'tool', tool_call_id: 'call_2', content: 'exit 1' },
    {
      role: 'user',
      content: [
        { type: 'text', text: 'Image(s) returned by tool call read (call_1):' },
        { type: 'image_url', image_url: url },
      ],
    },
    {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'call_3', type: 'function', function: { name: 'ls', arguments: '{}' } }],
    },
    { role: 'tool', tool_call_id: 'call_3', content: '(no output)' },
  ]);
});

test('openai-chat: streams reasoning_content and reasoning as thinking deltas, and tool-call argument deltas', async () => {
  const toolCalls = [
    { id: 'call_1', name: 'read', args: { path: 'src/a.ts', limit: 5 } },
    { id: 'call_2', name: 'bash', args: { command: 'echo "ü" && ls' } },
  ];
  for (const reasoningField of ['reasoning_content', 'reasoning'] as const) {
    fake.script({ thinking: ['Hmm, ', 'files.'], reasoningField, text: 'Looking.', toolCalls });
    const events = await run();
    assertStreamDetail(events, ['Hmm, ', 'files.']);
    const done = doneOf(events);
    assert.deepEqual(done.message.content[0], { type: 'thinking', thinking: 'Hmm, files.' });
    assert.deepEqual(
      events.flatMap((e) => (e.type === 'tool_call' ? [e.id] : [])),
      ['call_1', 'call_2'],
    );
  }
});

test('openai-chat: one and several tool calls accumulated by index; length stop', async () => {
  fake.script(
    { toolCalls: [{ id: 'call_x', name: 'read', args: { path: 'README.md' } }] },
    {
      text: 'Running.',
      toolCalls: [
        { name: 'bash', args: { command: 'npm test -- --grep "a b"' } },
        { name: 'write', args: { path: 'ü.txt', content: 'line1\nline2' } },
      ],
    },
    { text: 'trunc', stop: 'length' },
  );
  const one = await run();
  assert.deepEqual(
    one.filter((e) => e.type === 'tool_call'),
    [{ type: 'tool_call', id: 'call_x', name: 'read', args: { path: 'README.md' } }],
  );
  assert.equal(doneOf(one).stop, 'tool_use');
  const done = doneOf(await run());
  assert.equal(done.stop, 'tool_use');
  assert.deepEqual(
    done.message.content.map((b) => (b.type === 'tool_call' ? [b.name, b.args] : b)),
    [
      { type: 'text', text: 'Running.' },
      ['bash', { command: 'npm test -- --grep "a b"' }],
      ['write', { path: 'ü.txt', content: 'line1\nline2' }],
    ],
  );
  assert.equal(doneOf(await run()).stop, 'length');
});
