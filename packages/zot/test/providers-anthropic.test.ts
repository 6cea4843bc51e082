import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { costUsd, resolveModel } from '../src/providers/index.js';
import type { AssistantContent, Message, ModelInfo } from '../src/providers/types.js';
import { startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { assertStreamDetail, doneOf, providerHarness, T } from './support/provider-harness.js';

let fake: FakeLlm;
before(async () => {
  fake = await startFakeLlm();
});
after(() => fake.close());

const sonnet = resolveModel('anthropic', 'claude-sonnet-4-5').model;
const png = { type: 'image' as const, mime_type: 'image/png', data: 'iVBORw0KGgo=' };

const { run } = providerHarness(() => ({
  model: sonnet,
  baseUrl: fake.url,
  apiKey: 'sk-ant-test',
}));

test('anthropic: streams text chunks, maps usage with cache tokens, and prices it', async () => {
  fake.script({
    text: ['Hel', 'lo ', 'world'],
    usage: { input: 100, output: 20, cache_read: 1000, cache_write: 50 },
  });
  const events = await run();
  assert.deepEqual(events.slice(0, -1), [
    { type: 'start' },
    ...['Hel', 'lo ', 'world'].map((delta) => ({ type: 'text_delta', delta })),
  ]);
  const done = doneOf(events);
  assert.equal(done.stop, 'end_turn');
  assert.deepEqual(done.message.content, [{ type: 'text', text: 'Hello world' }]);
  assert.deepEqual(done.usage, { input: 100, output: 20, cache_read: 1000, cache_write: 50 });
  const cost = costUsd(sonnet, done.usage);
  assert.ok(Math.abs(cost - (100 * 3 + 20 * 15 + 1000 * 0.3 + 50 * 3.75) / 1e6) < 1e-12);
});

test('anthropic: request headers, URL and body shape (system and tool cache_control)', async () => {
  fake.script({ text: 'ok' });
  const tools = [
    {
      name: 'read',
      description: 'Read a file',
      parameters: { type: 'object', properties: { path: { type: 'string' } } },
    },
    { name: 'bash', description: 'Run a command', parameters: { type: 'object' } },
  ];
  doneOf(await run({ tools, baseUrl: `${fake.url}/v1/` }));
  const req = fake.requests.at(-1)!;
  assert.equal(req.path, '/v1/messages');
  assert.equal(req.format, 'anthropic');
  assert.equal(req.headers['x-api-key'], 'sk-ant-test');
  assert.equal(req.headers['anthropic-version'], '2023-06-01');
  assert.match(String(req.headers['content-type']), /^application\/json/);
  assert.equal(req.headers.authorization, undefined);
  assert.deepEqual(req.body, {
    model: 'claude-sonnet-4-5',
    max_tokens: 64000,
    stream: true,
    system: [{ type: 'text', text: 'You are zot.', cache_control: { type: 'ephemeral' } }],
    messages: [
      {
        role: 'user',
        content: [{ type: 'text', text: 'hi', cache_control: { type: 'ephemeral' } }],
      },
    ],
    tools: [
      { name: 'read', description: 'Read a file', input_schema: tools[0]!.parameters },
      {
        name: 'bash',
        description: 'Run a command',
        input_schema: { type: 'object' },
        cache_control: { type: 'ephemeral' },
      },
    ],
  });
});

test('anthropic: converts a conversation with images, thinking, tool calls and tool results', async () => {
  fake.script({ text: 'done' });
  const messages: Message[] = [
    { role: 'user', content: [{ type: 'text', text: 'look' }, png], time: T },
    {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'hmm', signature: 'sig1' },
        { type: 'thinking', thinking: 'unsigned, from another provider' },
        { type: 'text', text: 'Reading.' },
        { type: 'tool_call', id: 'toolu_1', name: 'read', args: { path: 'a.png' } },
        { type: 'tool_call', id: 'functions.bash:1', name: 'bash', args: { command: 'false' } },
      ],
      time: T,
    },
    {
      role: 'tool',
      content: [
        {
          type: 'tool_result',
          call_id: 'toolu_1',
          is_error: false,
          content: [{ type: 'text', text: 'an image' }, png],
        },
        {
          type: 'tool_result',
          call_id: 'functions.bash:1',
          is_error: true,
          content: [{ type: 'text', text: 'exit 1' }],
        },
      ],
      time: T,
    },
    { role: 'user', content: [{ type: 'text', text: 'and now?' }], time: T },
  ];
  doneOf(await run({ messages, system: '' }));
  const body = fake.requests.at(-1)!.body;
  assert.equal(body.system, undefined);
  const image = {
    type: 'image',
    source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' },
  };
  assert.deepEqual(body.messages, [
    { role: 'user', content: [{ type: 'text', text: 'look' }, image] },
    {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'hmm', signature: 'sig1' },
        { type: 'text', text: 'Reading.' },
        { type: 'tool_use', id: 'toolu_1', name: 'read', input: { path: 'a.png' } },
        { type: 'tool_use', id: 'functions_bash_1', name: 'bash', input: { command: 'false' } },
      ],
    },
    {
      role: 'user',
      content: [
        {
          type: 'tool_result',
          tool_use_id: 'toolu_1',
          content: [{ type: 'text', text: 'an image' }, image],
          is_error: false,
        },
        {
          type: 'tool_result',
          tool_use_id: 'functions_bash_1',
          content: [{ type: 'text', text: 'exit 1' }],
          is_error: true,
        },
        { type: 'text', text: 'and now?', cache_control: { type: 'ephemeral' } },
      ],
    },
  ]);
});

test('anthropic: one and several tool calls, arguments assembled across deltas', async () => {
  fake.script(
    { toolCalls: [{ id: 'toolu_a', name: 'read', args: { path: 'src/main.ts', limit: 20 } }] },
    {
      text: 'Two things.',
      toolCalls: [
        { name: 'bash', args: { command: 'ls -la && echo "done"' } },
        { name: 'edit', args: { path: 'x', edits: [{ old: 'a', new: 'ü' }] } },
      ],
    },
  );
  const one = await run();
  assert.deepEqual(
    one.filter((e) => e.type === 'tool_call'),
    [{ type: 'tool_call', id: 'toolu_a', name: 'read', args: { path: 'src/main.ts', limit: 20 } }],
  );
  assert.equal(doneOf(one).stop, 'tool_use');
  const two = await run();
  const done = doneOf(two);
  assert.equal(done.stop, 'tool_use');
  assert.deepEqual(
    done.message.content.map((b) => (b.type === 'tool_call' ? [b.name, b.args] : b)),
    [
      { type: 'text', text: 'Two things.' },
      ['bash', { command: 'ls -la && echo "done"' }],
      ['edit', { path: 'x', edits: [{ old: 'a', new: 'ü' }] }],
    ],
  );
  const ids = two.flatMap((e) => (e.type === 'tool_call' ? [e.id] : []));
  assert.equal(new Set(ids).size, 2);
});

test('anthropic: streams thinking deltas, then the argument deltas of each tool call before the call', async () => {
  fake.script({
    thinking: ['Let me ', 'look.'],
    text: 'Reading.',
    toolCalls: [
      { id: 'toolu_1', name: 'read', args: { path: 'src/a.ts', limit: 5 } },
      { id: 'toolu_2', name: 'bash', args: { command: 'echo "ü" && ls' } },
    ],
  });
  const events = await run({ reasoning: 'high' });
  assertStreamDetail(events, ['Let me ', 'look.']);
  assert.deepEqual(
    events.flatMap((e) => (e.type === 'tool_call' ? [e.id] : [])),
    ['toolu_1', 'toolu_2'],
  );
});

test('anthropic: thinking budget per level, raised max_tokens, thinking blocks with signature', async () => {
  fake.script({ thinking: 'Let me think.', text: 'Answer.' });
  const events = await run({ reasoning: 'high' });
  assert.deepEqual(fake.requests.at(-1)!.body.thinking, { type: 'enabled', budget_tokens: 24576 });
  assert.equal(fake.requests.at(-1)!.body.max_tokens, 64000);
  assert.ok(events.some((e) => e.type === 'thinking_delta' && e.delta === 'Let me think.'));
  const done = doneOf(events);
  const [thinking, text] = done.message.content;
  assert.equal(thinking?.type === 'thinking' && thinking.thinking, 'Let me think.');
  assert.match(thinking?.type === 'thinking' ? (thinking.signature ?? '') : '', /^sig_fake_\d+$/);
  assert.deepEqual(text, { type: 'text', text: 'Answer.' });

  const small: ModelInfo = { ...sonnet, maxTokens: 8192 };
  fake.script({ text: 'a' }, { text: 'b' }, { text: 'c' });
  doneOf(await run({ model: small, reasoning: 'medium' }));
  assert.deepEqual(fake.requests.at(-1)!.body.thinking, { type: 'enabled', budget_tokens: 8192 });
  assert.ok(fake.requests.at(-1)!.body.max_tokens > 8192);
  doneOf(await run({ model: small, reasoning: 'low' }));
  assert.deepEqual(fake.requests.at(-1)!.body.thinking, { type: 'enabled', budget_tokens: 2048 });
  assert.equal(fake.requests.at(-1)!.body.max_tokens, 8192);
  doneOf(await run({ model: { ...sonnet, reasoning: false }, reasoning: 'high' }));
  assert.equal(fake.requests.at(-1)!.body.thinking, undefined);
});

test('anthropic: a tool continuation whose assistant message lost its signed thinking is sent with thinking off', async () => {
  const turn = (thinking: AssistantContent[]): Message[] => [
    { role: 'user', content: [{ type: 'text', text: 'go' }], time: T },
    {
      role: 'assistant',
      content: [
        ...thinking,
        { type: 'tool_call', id: 'toolu_1', name: 'bash', args: { command: 'true' } },
      ],
      time: T,
    },
    {
      role: 'tool',
      content: [{ type: 'tool_result', call_id: 'toolu_1', is_error: false, content: [] }],
      time: T,
    },
  ];
  fake.script({ text: 'a' }, { text: 'b' }, { text: 'c' });
  doneOf(
    await run({ reasoning: 'low', messages: turn([{ type: 'thinking', thinking: 'redacted' }]) }),
  );
  const unsigned = fake.requests.at(-1)!.body;
  assert.equal(unsigned.thinking, undefined);
  assert.equal(unsigned.messages[1].content[0].type, 'tool_use');
  const signed = { type: 'thinking' as const, thinking: 'ok', signature: 'sig1' };
  doneOf(await run({ reasoning: 'low', messages: turn([signed]) }));
  assert.deepEqual(fake.requests.at(-1)!.body.thinking, { type: 'enabled', budget_tokens: 2048 });
  // A new prompt after a finished turn has no such requirement.
  const finished: Message[] = [
    ...turn([{ type: 'thinking', thinking: 'redacted' }]),
    { role: 'assistant', content: [{ type: 'text', text: 'done' }], time: T },
    { role: 'user', content: [{ type: 'text', text: 'next' }], time: T },
  ];
  doneOf(await run({ reasoning: 'low', messages: finished }));
  assert.deepEqual(fake.requests.at(-1)!.body.thinking, { type: 'enabled', budget_tokens: 2048 });
});

test('anthropic: max_tokens stop maps to length; invalid tool JSON is kept for validation', async () => {
  fake.script(
    { text: 'cut', stop: 'length' },
    {
      toolCalls: [{ name: 'write', args: null, rawArgs: '{"path": "a", "content": "unterminated' }],
    },
  );
  assert.equal(doneOf(await run()).stop, 'length');
  const call = (await run()).find((e) => e.type === 'tool_call');
  assert.equal(call?.type === 'tool_call' && call.name, 'write');
  assert.deepEqual(call?.type === 'tool_call' && call.args, {
    __invalid_json__: '{"path": "a", "content": "unterminated',
  });
});
