import assert from 'node:assert/strict';
import { test } from 'node:test';
import type {
  AssistantContent,
  Message,
  ModelInfo,
  ProviderEvent,
  StreamRequest,
} from '../providers/types.js';
import type { AgentEvent } from './events.js';
import type { AgentHooks } from './hooks.js';
import { runAgent, type AgentSetup } from './loop.js';
import type { Tool } from './tool.js';

const model: ModelInfo = {
  id: 'test-model',
  name: 'Test',
  provider: 'anthropic',
  api: 'anthropic-messages',
  reasoning: false,
  contextWindow: 1000,
  maxTokens: 100,
  prices: { input: 1, output: 2, cache_read: 0, cache_write: 0 },
};

type Reply = {
  thinking?: string[];
  text?: string;
  calls?: Array<{ id: string; name: string; args: Record<string, unknown> }>;
};

/** An in-process scripted model: each request takes the next reply and is recorded. */
function scriptedModel(replies: Reply[]) {
  const requests: StreamRequest[] = [];
  const stream = (request: StreamRequest): AsyncIterable<ProviderEvent> => {
    requests.push({ ...request, messages: structuredClone(request.messages) });
    const reply = replies.shift() ?? { text: 'no more replies' };
    return (async function* () {
      yield { type: 'start' } as const;
      const content: AssistantContent[] = [];
      for (const [n, thinking] of (reply.thinking ?? []).entries()) {
        yield { type: 'thinking_delta', delta: thinking } as const;
        content.push({ type: 'thinking', thinking, signature: `sig${n}` });
      }
      if (reply.text) {
        for (const piece of reply.text.match(/.{1,4}/gs) ?? [])
          yield { type: 'text_delta', delta: piece } as const;
        content.push({ type: 'text', text: reply.text });
      }
      for (const call of reply.calls ?? []) {
        const json = JSON.stringify(call.args);
        for (const delta of [json.slice(0, 3), json.slice(3)])
          yield { type: 'tool_call_delta', id: call.id, name: call.name, delta } as const;
        content.push({ type: 'tool_call', ...call });
      }
      yield {
        type: 'done',
        message: { role: 'assistant', content, time: new Date().toISOString() },
        stop: reply.calls?.length ? 'tool_use' : 'end_turn',
        usage: { input: 10, output: 5, cache_read: 0, cache_write: 0 },
      } as const;
    })();
  };
  return { requests, stream };
}

const echoTool: Tool = {
  name: 'echo',
  description: 'echoes its text',
  parameters: {
    type: 'object',
    properties: { text: { type: 'string' } },
    required: ['text'],
    additionalProperties: false,
  },
  execute: async (args) => ({ content: [{ type: 'text', text: `echo: ${String(args.text)}` }] }),
  preview: (args) => String(args.text),
};

function setup(replies: Reply[], hooks: AgentHooks = {}, tools: () => Tool[] = () => [echoTool]) {
  const model$ = scriptedModel(replies);
  const events: AgentEvent[] = [];
  const appended: Message[] = [];
  const agent: AgentSetup = {
    cwd: process.cwd(),
    maxSteps: 5,
    hooks,
    activeTools: tools,
    findTool: (name) => tools().find((tool) => tool.name === name),
    settings: () => ({ model, baseUrl: 'http://127.0.0.1:1', system: 'sys' }),
    stream: () => model$.stream,
    usage: (_m, usage) => {
      const call = { ...usage, cost_usd: 0 };
      return { call, cumulative: call };
    },
    emit: (event) => events.push(event),
    append: (message) => appended.push(message),
  };
  const transcript: Message[] = [
    { role: 'user', content: [{ type: 'text', text: 'hi' }], time: '' },
  ];
  return { agent, events, appended, transcript, requests: model$.requests };
}

const types = (events: AgentEvent[]) => events.map((event) => event.type);

test('a tool round trip emits events in order and feeds the result back', async () => {
  const t = setup([
    { text: 'calling', calls: [{ id: 'c1', name: 'echo', args: { text: 'x' } }] },
    { text: 'done' },
  ]);
  const result = await runAgent(t.transcript, t.agent, new AbortController().signal);
  assert.equal(result.stop, 'end_turn');
  assert.equal(result.finalText, 'done');
  assert.deepEqual(
    types(t.events).filter((type) => type !== 'text_delta'),
    [
      'turn_start',
      'assistant_start',
      'tool_call_delta',
      'tool_call_delta',
      'usage',
      'assistant_message',
      'tool_call',
      'tool_result',
      'turn_end',
      'turn_start',
      'assistant_start',
      'usage',
      'assistant_message',
      'turn_end',
    ],
  );
  const second = t.requests[1]!.messages.at(-1)!;
  assert.equal(second.role, 'tool');
  assert.deepEqual(second.content[0], {
    type: 'tool_result',
    call_id: 'c1',
    name: 'echo',
    is_error: false,
    content: [{ type: 'text', text: 'echo: x' }],
  });
  assert.equal(t.appended.length, 3);
});

test('beforeModelCall can block a turn: no model request, stop error with the reason', async () => {
  const t = setup([{ text: 'never' }], {
    beforeModelCall: async () => ({ block: true, reason: 'after hours' }),
  });
  const result = await runAgent(t.transcript, t.agent, new AbortController().signal);
  assert.equal(result.stop, 'error');
  assert.match(result.error!, /after hours/);
  assert.equal(t.requests.length, 0);
  assert.equal(result.errorKind, 'blocked');
  assert.deepEqual(t.events.slice(-2), [
    { type: 'error', message: result.error, kind: 'blocked' },
    { type: 'turn_end', stop: 'error', error: result.error, error_kind: 'blocked' },
  ]);
});

test('beforeToolCall can block (model sees the reason) or replace arguments (transcript keeps the original)', async () => {
  const seen: unknown[] = [];
  const tool: Tool = {
    ...echoTool,
    execute: async (args) => (seen.push(args), { content: [{ type: 'text', text: 'ran' }] }),
  };
  const t = setup(
    [
      {
        calls: [
          { id: 'a', name: 'echo', args: { text: 'rm -rf /' } },
          { id: 'b', name: 'echo', args: { text: 'ls' } },
        ],
      },
      { text: 'ok' },
    ],
    {
      beforeToolCall: async (call) =>
        call.args.text === 'rm -rf /'
          ? { block: true, reason: 'dangerous' }
          : { args: { text: 'ls -la' } },
    },
    () => [tool],
  );
  await runAgent(t.transcript, t.agent, new AbortController().signal);
  assert.deepEqual(seen, [{ text: 'ls -la' }]);
  const results = t.requests[1]!.messages.at(-1)!.content as Array<{
    is_error: boolean;
    content: Array<{ text: string }>;
  }>;
  assert.equal(results[0]!.is_error, true);
  assert.match(results[0]!.content[0]!.text, /dangerous/);
  const call = t.requests[1]!.messages.at(-2)!.content.find((block) => block.type === 'tool_call');
  assert.deepEqual(call && 'args' in call ? call.args : undefined, { text: 'rm -rf /' });
});

test('beforeAssistantText with transcript: the screened message is what the user, the transcript and the model get', async () => {
  const parts: string[] = [];
  const t = setup(
    [
      {
        thinking: ['think sk-1', 'plain thought'],
        text: 'key sk-123',
        calls: [{ id: 'c1', name: 'echo', args: { text: 'hi' } }],
      },
      { text: 'done' },
    ],
    {
      beforeAssistantText: async (text, part) => {
        parts.push(`${part}:${text}`);
        return { text: text.replace(/sk-\d+/, '[redacted]'), transcript: true };
      },
      holdTextStream: () => true, // as the session wires it while text is intercepted
    },
  );
  const result = await runAgent(t.transcript, t.agent, new AbortController().signal);
  assert.equal(result.finalText, 'done');
  assert.deepEqual(parts, [
    'thinking:think sk-1',
    'thinking:plain thought',
    'text:key sk-123',
    'text:done',
  ]);
  const screened: AssistantContent[] = [
    { type: 'thinking', thinking: 'think [redacted]' },
    { type: 'thinking', thinking: 'plain thought', signature: 'sig1' },
    { type: 'text', text: 'key [redacted]' },
    { type: 'tool_call', id: 'c1', name: 'echo', args: { text: 'hi' } },
  ];
  const shown = t.events.find((event) => event.type === 'assistant_message');
  assert.deepEqual(shown && 'content' in shown ? shown.content : undefined, screened);
  assert.deepEqual(t.transcript[1]!.content, screened);
  assert.deepEqual(t.appended[0]!.content, screened);
  assert.deepEqual(t.requests[1]!.messages[1]!.content, screened);
  assert.equal(
    t.events.some((event) => (event.type as string) === 'thinking_delta'),
    false,
  );
});

test('beforeAssistantText: a block with transcript drops the part everywhere; tool calls stay', async () => {
  const hidden = setup([{ text: 'secret' }], {
    beforeAssistantText: async () => ({ block: true, transcript: true }),
  });
  await runAgent(hidden.transcript, hidden.agent, new AbortController().signal);
  assert.equal(
    hidden.events.some((event) => event.type === 'assistant_message'),
    false,
  );
  assert.deepEqual(
    hidden.transcript.map((m) => m.role),
    ['user'],
  );

  const withCall = setup(
    [{ thinking: ['x'], text: 'secret', calls: [{ id: 'c1', name: 'echo', args: { text: 'a' } }] }],
    { beforeAssistantText: async () => ({ block: true, transcript: true }) },
  );
  await runAgent(withCall.transcript, withCall.agent, new AbortController().signal);
  assert.deepEqual(withCall.transcript[1]!.content, [
    { type: 'tool_call', id: 'c1', name: 'echo', args: { text: 'a' } },
  ]);
});

const streamingReply: Reply = {
  thinking: ['mull'],
  text: 'a long streamed answer',
  calls: [{ id: 'c1', name: 'echo', args: { text: 'x' } }],
};
const DELTAS = ['thinking_delta', 'text_delta', 'tool_call_delta'];

test('deltas stream in order: thinking, text, tool arguments, then the message and the call with its preview', async () => {
  const t = setup([streamingReply, { text: 'ok' }]);
  await runAgent(t.transcript, t.agent, new AbortController().signal);
  const first = types(t.events).slice(0, types(t.events).indexOf('tool_result'));
  assert.deepEqual(first, [
    'turn_start',
    'assistant_start',
    'thinking_delta',
    ...Array(6).fill('text_delta'),
    'tool_call_delta',
    'tool_call_delta',
    'usage',
    'assistant_message',
    'tool_call',
  ]);
  const pieces = t.events.flatMap((e) => (e.type === 'tool_call_delta' ? [e] : []));
  assert.deepEqual(
    pieces.map((e) => [e.id, e.name]),
    [
      ['c1', 'echo'],
      ['c1', 'echo'],
    ],
  );
  assert.equal(pieces.map((e) => e.delta).join(''), '{"text":"x"}');
  const call = t.events.find((e) => e.type === 'tool_call');
  assert.equal(call?.type === 'tool_call' && call.preview, 'x');
});

test('holdTextStream suppresses every delta: text, thinking and tool arguments', async () => {
  const t = setup([streamingReply, { text: 'ok' }], { holdTextStream: () => true });
  await runAgent(t.transcript, t.agent, new AbortController().signal);
  assert.deepEqual(
    t.events.filter((event) => DELTAS.includes(event.type)),
    [],
  );
  assert.ok(t.events.some((event) => event.type === 'assistant_message'));
  assert.ok(t.events.some((event) => event.type === 'tool_call'));
});

test('the confirmation gate runs after interception and can deny', async () => {
  const order: string[] = [];
  const t = setup([{ calls: [{ id: 'a', name: 'echo', args: { text: 'x' } }] }, { text: 'ok' }], {
    beforeToolCall: async () => void order.push('intercept'),
    confirmToolCall: async (call) => (order.push(`confirm:${call.preview}`), 'deny'),
  });
  await runAgent(t.transcript, t.agent, new AbortController().signal);
  assert.deepEqual(order, ['intercept', 'confirm:x']);
  const result = t.events.find((event) => event.type === 'tool_result');
  assert.ok(result && result.type === 'tool_result' && result.is_error);
});

test('invalid arguments come back to the model as a readable error result', async () => {
  const t = setup([{ calls: [{ id: 'a', name: 'echo', args: { txt: 1 } }] }, { text: 'ok' }]);
  await runAgent(t.transcript, t.agent, new AbortController().signal);
  const result = t.events.find((event) => event.type === 'tool_result');
  assert.ok(result?.type === 'tool_result');
  assert.equal(result.is_error, true);
  const text = result.content[0]!.type === 'text' ? result.content[0]!.text : '';
  assert.match(text, /invalid arguments for tool "echo"/);
  assert.match(text, /missing required property "text"/);
  assert.match(text, /unknown property "txt"/);
});

test('the tool registry is read again before every model request', async () => {
  let tools: Tool[] = [echoTool];
  const extra: Tool = { ...echoTool, name: 'late' };
  const t = setup(
    [{ calls: [{ id: 'a', name: 'echo', args: { text: 'x' } }] }, { text: 'ok' }],
    {},
    () => tools,
  );
  t.agent.emit = (event) => {
    if (event.type === 'tool_result') tools = [echoTool, extra];
  };
  await runAgent(t.transcript, t.agent, new AbortController().signal);
  assert.deepEqual(
    t.requests.map((r) => r.tools.map((tool) => tool.name)),
    [['echo'], ['echo', 'late']],
  );
});

test('max steps ends the prompt with an error', async () => {
  const call = { calls: [{ id: 'a', name: 'echo', args: { text: 'x' } }] };
  const t = setup([call, call, call, call, call, call]);
  const result = await runAgent(t.transcript, t.agent, new AbortController().signal);
  assert.equal(result.stop, 'error');
  assert.match(result.error!, /--max-steps/);
  assert.equal(t.requests.length, 5);
});

test('an unknown tool and a throwing tool become error results', async () => {
  const boom: Tool = {
    ...echoTool,
    name: 'boom',
    execute: async () => {
      throw new Error('kaput');
    },
  };
  const t = setup(
    [
      {
        calls: [
          { id: 'a', name: 'nope', args: {} },
          { id: 'b', name: 'boom', args: { text: 'x' } },
        ],
      },
      { text: 'ok' },
    ],
    {},
    () => [boom],
  );
  await runAgent(t.transcript, t.agent, new AbortController().signal);
  const texts = t.events
    .filter((event) => event.type === 'tool_result')
    .map((event) =>
      event.type === 'tool_result' && event.content[0]!.type === 'text'
        ? event.content[0]!.text
        : '',
    );
  assert.match(texts[0]!, /unknown tool "nope"/);
  assert.match(texts[1]!, /boom failed: kaput/);
});

test('toolCallStreaming fires once per reply at its first tool-call delta, before the reply ends and any tool runs, held back or not', async () => {
  for (const hold of [false, true]) {
    const log: string[] = [];
    const t = setup(
      [
        {
          calls: [
            { id: 'c1', name: 'echo', args: { text: 'x' } },
            { id: 'c2', name: 'echo', args: { text: 'y' } },
          ],
        },
        { text: 'done' },
      ],
      {
        toolCallStreaming: () => log.push('streaming'),
        beforeToolCall: async (call) => {
          log.push(`before ${call.id}`);
        },
        holdTextStream: () => hold,
      },
    );
    const inner = t.agent.stream;
    t.agent.stream = (m) => (request) =>
      (async function* () {
        for await (const event of inner(m)(request)) {
          log.push(event.type);
          yield event;
        }
      })();
    const result = await runAgent(t.transcript, t.agent, new AbortController().signal);
    assert.equal(result.stop, 'end_turn');
    assert.deepEqual(log.slice(0, 9), [
      'start',
      'tool_call_delta',
      'streaming',
      'tool_call_delta',
      'tool_call_delta',
      'tool_call_delta',
      'done',
      'before c1',
      'before c2',
    ]);
    assert.equal(
      log.filter((entry) => entry === 'streaming').length,
      1,
      'not for a reply without calls',
    );
  }
});
