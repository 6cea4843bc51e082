import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { costUsd, resolveModel } from '../src/providers/index.js';
import type { Message } from '../src/providers/types.js';
import { startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { assertStreamDetail, doneOf, providerHarness, T } from './support/provider-harness.js';

let fake: FakeLlm;
before(async () => {
  fake = await startFakeLlm();
});
after(() => fake.close());

const gpt5 = resolveModel('openai', undefined).model;
const png = { type: 'image' as const, mime_type: 'image/jpeg', data: '/9j/4AAQ' };

const { run } = providerHarness(() => ({
  model: gpt5,
  baseUrl: `${fake.url}/v1`,
  apiKey: 'sk-openai',
}));

test('openai-responses: streams text chunks; usage with cached input split out; cost', async () => {
  fake.script({
    text: ['Alpha', ' beta', ' gamma'],
    usage: { input: 50, output: 9, cache_read: 950 },
  });
  const events = await run();
  assert.deepEqual(
    events.map((e) => e.type),
    ['start', 'text_delta', 'text_delta', 'text_delta', 'done'],
  );
  const done = doneOf(events);
  assert.equal(done.stop, 'end_turn');
  assert.deepEqual(done.message.content, [{ type: 'text', text: 'Alpha beta gamma' }]);
  assert.deepEqual(done.usage, { input: 50, output: 9, cache_read: 950, cache_write: 0 });
  assert.ok(Math.abs(costUsd(gpt5, done.usage) - (50 * 1.25 + 9 * 10 + 950 * 0.125) / 1e6) < 1e-12);
});

test('openai-responses: request shape (instructions, tools, reasoning, store:false, bearer)', async () => {
  fake.script({ text: 'ok' });
  const tools = [{ name: 'read', description: 'Read a file', parameters: { type: 'object' } }];
  doneOf(await run({ tools, reasoning: 'medium', baseUrl: fake.url }));
  const req = fake.requests.at(-1)!;
  assert.equal(req.path, '/v1/responses');
  assert.equal(req.format, 'openai-responses');
  assert.equal(req.headers.authorization, 'Bearer sk-openai');
  assert.deepEqual(req.body, {
    model: 'gpt-5',
    instructions: 'You are zot.',
    input: [{ role: 'user', content: [{ type: 'input_text', text: 'hi' }] }],
    tools: [
      {
        type: 'function',
        name: 'read',
        description: 'Read a file',
        parameters: { type: 'object' },
      },
    ],
    reasoning: { effort: 'medium' },
    max_output_tokens: 128000,
    stream: true,
    store: false,
  });
  fake.script({ text: 'ok' });
  doneOf(await run({ model: resolveModel('openai', 'gpt-4.1').model, reasoning: 'high' }));
  assert.equal(fake.requests.at(-1)!.body.reasoning, undefined);
});

test('openai-responses: converts images, assistant text, function calls and outputs', async () => {
  fake.script({ text: 'ok' });
  const messages: Message[] = [
    { role: 'user', content: [{ type: 'text', text: 'look' }, png], time: T },
    {
      role: 'assistant',
      content: [
        { type: 'text', text: 'First ' },
        { type: 'text', text: 'this.' },
        { type: 'tool_call', id: 'call_1', name: 'read', args: { path: 'a.jpg' } },
        { type: 'tool_call', id: 'call_2', name: 'bash', args: { command: 'false' } },
      ],
      time: T,
    },
    {
      role: 'tool',
      content: [
        { type: 'tool_result', call_id: 'call_1', name: 'read', is_error: false, content: [png] },
        {
          type: 'tool_result',
          call_id: 'call_2',
          is_error: true,
          content: [{ type: 'text', text: 'exit 1' }],
        },
      ],
      time: T,
    },
  ];
  doneOf(await run({ messages }));
  const image = {
    type: 'input_image',
    image_url: 'data:image/jpeg;base64,/9j/4AAQ',
    detail: 'auto',
  };
  assert.deepEqual(fake.requests.at(-1)!.body.input, [
    { role: 'user', content: [{ type: 'input_text', text: 'look' }, image] },
    { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'First this.' }] },
    { type: 'function_call', call_id: 'call_1', name: 'read', arguments: '{"path":"a.jpg"}' },
    { type: 'function_call', call_id: 'call_2', name: 'bash', arguments: '{"command":"false"}' },
    { type: 'function_call_output', call_id: 'call_1', output: '(no output)' },
    { type: 'function_call_output', call_id: 'call_2', output: 'exit 1' },
    {
      role: 'user',
      content: [
        { type: 'input_text', text: 'Image(s) returned by tool call read (call_1):' },
        image,
      ],
    },
  ]);
});

test('openai-responses: streams reasoning summary deltas as thinking, and function-call argument deltas', async () => {
  fake.script({
    thinking: ['Plan: ', 'read it.'],
    text: 'Ok.',
    toolCalls: [
      { id: 'call_1', name: 'read', args: { path: 'src/a.ts', limit: 5 } },
      { id: 'call_2', name: 'bash', args: { command: 'echo "ü" && ls' } },
    ],
  });
  const events = await run({ reasoning: 'low' });
  assertStreamDetail(events, ['Plan: ', 'read it.']);
  const done = doneOf(events);
  assert.deepEqual(done.message.content[0], { type: 'thinking', thinking: 'Plan: read it.' });
  assert.deepEqual(
    events.flatMap((e) => (e.type === 'tool_call' ? [e.id] : [])),
    ['call_1', 'call_2'],
  );
});

test('openai-responses: one and several function calls with call ids; incomplete maps to length', async () => {
  fake.script(
    { toolCalls: [{ id: 'call_r', name: 'read', args: { path: 'x.ts', offset: 10 } }] },
    {
      text: 'Two.',
      toolCalls: [
        { name: 'grep', args: { pattern: '\\bfoo\\b', glob: '**/*.ts' } },
        { name: 'bash', args: { command: 'echo "é"' } },
      ],
    },
    { text: 'cut off', stop: 'length' },
    { toolCalls: [{ name: 'read', args: null, rawArgs: '{"path": ' }] },
  );
  const one = await run();
  assert.deepEqual(
    one.filter((e) => e.type === 'tool_call'),
    [{ type: 'tool_call', id: 'call_r', name: 'read', args: { path: 'x.ts', offset: 10 } }],
  );
  assert.equal(doneOf(one).stop, 'tool_use');
  const done = doneOf(await run());
  assert.equal(done.stop, 'tool_use');
  assert.deepEqual(
    done.message.content.map((b) =>
      b.type === 'tool_call' ? [b.id.replace(/_\d+_/, '_N_'), b.name, b.args] : b,
    ),
    [
      { type: 'text', text: 'Two.' },
      ['call_fake_N_0', 'grep', { pattern: '\\bfoo\\b', glob: '**/*.ts' }],
      ['call_fake_N_1', 'bash', { command: 'echo "é"' }],
    ],
  );
  const cut = doneOf(await run());
  assert.equal(cut.stop, 'length');
  assert.deepEqual(cut.message.content, [{ type: 'text', text: 'cut off' }]);
  const bad = doneOf(await run());
  const call = bad.message.content[0];
  assert.equal(call?.type === 'tool_call' && call.name, 'read');
  assert.deepEqual(call?.type === 'tool_call' && call.args, { __invalid_json__: '{"path": ' });
});
