// Each provider's stream function against streams recorded from the real APIs
// (test/fixtures/streams, sources in its README), served byte for byte over HTTP and cut into
// random chunks. The expected values come from the recordings' own sources (their SDK or test
// assertions), not from running our decoders.
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { after, before, test } from 'node:test';
import { streamAnthropic } from '../src/providers/anthropic.js';
import { resolveModel } from '../src/providers/catalog.js';
import { streamOpenAIChat } from '../src/providers/openai-chat.js';
import { streamOpenAIResponses } from '../src/providers/openai-responses.js';
import type {
  AssistantContent,
  ModelInfo,
  ProviderEvent,
  StreamFn,
  TokenUsage,
} from '../src/providers/types.js';
import {
  startReplayServer,
  streamFixture,
  type Cutting,
  type ReplayServer,
} from './support/replay-server.js';

let server: ReplayServer;
before(async () => {
  server = await startReplayServer();
});
after(() => server.close());

const ANTHROPIC = resolveModel('anthropic', 'claude-sonnet-4-5').model;
const CHAT: ModelInfo = { ...resolveModel('openai', 'gpt-4.1').model, api: 'openai-chat' };
const RESPONSES = resolveModel('openai', 'gpt-5').model;

/** What a stream amounted to, in the terms the agent uses. */
interface Outcome {
  text: string;
  textDeltas: number;
  thinking: string;
  thinkingDeltas: number;
  toolCalls: Array<{ id: string; name: string; args: Record<string, unknown> }>;
  end:
    | { type: 'done'; stop: string; usage: TokenUsage; content: AssistantContent[] }
    | {
        type: 'error';
        message: string;
        status?: number;
        partial?: AssistantContent[];
        usage?: TokenUsage;
      };
}

function outcomeOf(events: ProviderEvent[]): Outcome {
  assert.equal(events[0]?.type, 'start', 'start comes first');
  const terminals = events.filter((e) => e.type === 'done' || e.type === 'error');
  assert.equal(terminals.length, 1, 'exactly one done or error');
  assert.equal(terminals[0], events.at(-1), 'and it comes last');
  const last = events.at(-1)!;
  const deltas = (type: 'text_delta' | 'thinking_delta') =>
    events.flatMap((e) => (e.type === type ? [e.delta] : []));
  let end: Outcome['end'];
  if (last.type === 'done') {
    end = { type: 'done', stop: last.stop, usage: last.usage, content: last.message.content };
  } else {
    assert.equal(last.type, 'error');
    if (last.type !== 'error') throw new Error('unreachable');
    assert.equal(last.aborted, false);
    end = { type: 'error', message: last.message };
    if (last.status !== undefined) end.status = last.status;
    if (last.partial) end.partial = last.partial.content;
    if (last.usage) end.usage = last.usage;
  }
  return {
    text: deltas('text_delta').join(''),
    textDeltas: deltas('text_delta').length,
    thinking: deltas('thinking_delta').join(''),
    thinkingDeltas: deltas('thinking_delta').length,
    toolCalls: events.flatMap((e) =>
      e.type === 'tool_call' ? [{ id: e.id, name: e.name, args: e.args }] : [],
    ),
    end,
  };
}

async function run(stream: StreamFn, model: ModelInfo): Promise<ProviderEvent[]> {
  const events: ProviderEvent[] = [];
  for await (const event of stream({
    model,
    baseUrl: server.url,
    apiKey: 'k',
    system: 'You are zot.',
    messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }], time: '' }],
    tools: [],
    signal: new AbortController().signal,
  })) {
    events.push(event);
  }
  return events;
}

// One write; chunks of 1 to 12 bytes; chunks of up to 512 bytes also cut inside every UTF-8
// sequence and every blank line; one seed is new on every run and named when it fails.
const CUTTINGS: Cutting[] = [
  { whole: true },
  { seed: 1, maxChunk: 12 },
  { seed: 2, maxChunk: 512, awkward: true },
  { seed: randomInt(2 ** 31), maxChunk: 64 },
];

/** What a stream that shows no text, thinking or tool calls yields; cases name only the rest. */
const NOTHING_SHOWN = { text: '', textDeltas: 0, thinking: '', thinkingDeltas: 0, toolCalls: [] };

async function expectFixture(
  file: string,
  stream: StreamFn,
  model: ModelInfo,
  shown: Partial<Omit<Outcome, 'end'>> & Pick<Outcome, 'end'>,
): Promise<void> {
  const expected: Outcome = { ...NOTHING_SHOWN, ...shown };
  const bytes = streamFixture(file);
  for (const cutting of CUTTINGS) {
    server.serve(bytes, cutting);
    const outcome = outcomeOf(await run(stream, model));
    const how = 'whole' in cutting ? 'one write' : JSON.stringify(cutting);
    const chunks = server.lastChunks().length;
    assert.deepEqual(outcome, expected, `${file} in ${chunks} chunks (${how})`);
  }
}

const usage = (input: number, output: number): TokenUsage => ({
  input,
  output,
  cache_read: 0,
  cache_write: 0,
});

// --- Anthropic Messages

const CLAUDE_TEXT =
  "I'm Claude, an AI assistant made by Anthropic. I'm designed to be helpful, harmless, and " +
  'honest in my interactions. I can assist with a wide range of tasks like answering ' +
  'questions, providing information, creative writing, summarizing content, and having ' +
  "thoughtful conversations. I'm constantly learning but I do have limitations - I don't " +
  'have the ability to browse the web, run code, or access files unless you share them with ' +
  'me directly. How can I help you today?';

test('anthropic, recorded: text deltas, ping, usage from message_start and message_delta', async () => {
  await expectFixture('anthropic-text.sse', streamAnthropic, ANTHROPIC, {
    text: CLAUDE_TEXT,
    textDeltas: 31,
    end: {
      type: 'done',
      stop: 'end_turn',
      usage: usage(11, 104),
      content: [{ type: 'text', text: CLAUDE_TEXT }],
    },
  });
});

const CLAUDE_THINKING =
  'The question is asking about "the meaning of life, the universe and everything" ' +
  'specifically as it appears in popular fiction. This is most famously addressed in Douglas ' +
  'Adams\' science fiction series "The Hitchhiker\'s Guide to the Galaxy," where a ' +
  'supercomputer named Deep Thought is built to calculate "the Answer to the Ultimate Question ' +
  'of Life, the Universe, and Everything." After 7.5 million years of calculation, Deep ' +
  'Thought provides the answer: 42. However, Deep Thought explains that the answer seems ' +
  "meaningless because the beings who asked didn't actually know what the precise question " +
  'was.\n\nThis reference has become a significant part of pop culture and is often cited ' +
  'humorously when discussing existential questions. The number 42 has become a popular ' +
  'in-joke and reference among fans of science fiction and geek culture.\n\nBeyond this ' +
  "specific reference, the question of life's meaning appears in many works of fiction in " +
  'various ways, with different philosophical approaches. But the "42" reference from ' +
  "Hitchhiker's Guide is by far the most recognizable specific answer to this exact phrasing " +
  'of the question in popular fiction.\n\nI should provide this context in my answer, while ' +
  'acknowledging that the question of meaning is addressed in many different ways across ' +
  'different fictional works.';
const CLAUDE_ANSWER =
  'In popular fiction, the most famous answer to "the meaning of life, the universe and ' +
  'everything" is definitely "42" - a concept from Douglas Adams\' sci-fi comedy series "The ' +
  'Hitchhiker\'s Guide to the Galaxy." In the story, a supercomputer named Deep Thought spends ' +
  '7.5 million years calculating this answer, only to reveal that the question itself was ' +
  'never properly formulated.\n\nThis absurdist response has become a cultural touchstone, ' +
  'suggesting that existential questions might have answers that seem nonsensical or that we ' +
  'might be asking the wrong questions altogether.\n\nOther works of fiction explore this ' +
  'theme differently - through quests for purpose, connection with others, or the idea that ' +
  'we create our own meaning - but the "42" reference remains the most recognizable specific ' +
  'answer to this exact question in pop culture.';
const CLAUDE_SIGNATURE =
  'ErUBCkYIARgCIkCMkRFgNNhwET9y5IN2hGVaMO+tPgd5T2aSXprEVvIU5pN9uklyYgqC6GzmijY5Wr2DFwm5oBX0XHqf' +
  'b9bYcbmzEgyeDDF5O/iNwNRyyd8aDFdKPcaLtnOEE+xkBSIwhVbJFW8zL9keNzmvEjacAs+Zw6hU7b22EqyWy7hrPjLN' +
  'HZHJ6SWUV3TzbClf3D05Kh34DwkpbncEwubXurHJa0E8yOLOfa1mCFe43e4r7g==';

test('anthropic, recorded: thinking deltas, the signature from signature_delta, then text', async () => {
  await expectFixture('anthropic-thinking.sse', streamAnthropic, ANTHROPIC, {
    text: CLAUDE_ANSWER,
    textDeltas: 15,
    thinking: CLAUDE_THINKING,
    thinkingDeltas: 23,
    end: {
      type: 'done',
      stop: 'end_turn',
      usage: usage(50, 452),
      content: [
        { type: 'thinking', thinking: CLAUDE_THINKING, signature: CLAUDE_SIGNATURE },
        { type: 'text', text: CLAUDE_ANSWER },
      ],
    },
  });
});

const CLAUDE_BEFORE_TOOL =
  "I'll help you find information about the Tigers game today and provide weather advice for " +
  'appropriate clothing. Let me check both for you.\n\nFirst, let me search for the Tigers ' +
  'game schedule:';
const CLAUDE_SEARCH = {
  id: 'toolu_014cZKakAghgvhi4Y99XBUru',
  name: 'search',
  args: { query: 'Detroit Tigers baseball game today time schedule' },
};

test('anthropic, recorded: tool_use input assembled from input_json_delta pieces', async () => {
  await expectFixture('anthropic-tool-use.sse', streamAnthropic, ANTHROPIC, {
    text: CLAUDE_BEFORE_TOOL,
    textDeltas: 5,
    toolCalls: [CLAUDE_SEARCH],
    end: {
      type: 'done',
      stop: 'tool_use',
      usage: usage(465, 96),
      content: [
        { type: 'text', text: CLAUDE_BEFORE_TOOL },
        { type: 'tool_call', ...CLAUDE_SEARCH },
      ],
    },
  });
});

test('anthropic, recorded: a two-byte character (°) arrives intact however the bytes are cut', async () => {
  const text =
    "The Tigers game is today at 3pm in Detroit.\n\nAs for the weather, it's currently 75° and " +
    "sunny in Detroit, so you probably don't need a coat. It's quite pleasant out! A light " +
    "jacket might be good to have if you tend to get chilly in the evening or if you'll be " +
    'sitting in a shaded area of the stadium.';
  await expectFixture('anthropic-utf8.sse', streamAnthropic, ANTHROPIC, {
    text,
    textDeltas: 12,
    end: {
      type: 'done',
      stop: 'end_turn',
      usage: usage(173, 81),
      content: [{ type: 'text', text }],
    },
  });
});

test('anthropic, documented error event mid-stream: overloaded, 529, with the partial text', async () => {
  const partial = "I'm Claude, an AI assistant made by Anthropic.";
  await expectFixture('anthropic-overloaded.sse', streamAnthropic, ANTHROPIC, {
    text: partial,
    textDeltas: 3,
    end: {
      type: 'error',
      message: 'anthropic: overloaded_error: Overloaded',
      status: 529,
      partial: [{ type: 'text', text: partial }],
      usage: usage(11, 3),
    },
  });
});

// --- OpenAI Chat Completions

const GPT_CHAT_TEXT =
  "I'm unable to provide real-time weather updates. To get the current weather in San " +
  'Francisco, I recommend checking a reliable weather website or a weather app.';

test('openai chat, recorded: content deltas, the usage chunk of stream_options, [DONE]', async () => {
  await expectFixture('openai-chat-text.sse', streamOpenAIChat, CHAT, {
    text: GPT_CHAT_TEXT,
    textDeltas: 30,
    end: {
      type: 'done',
      stop: 'end_turn',
      usage: usage(14, 30),
      content: [{ type: 'text', text: GPT_CHAT_TEXT }],
    },
  });
});

test('openai chat, recorded: two tool calls whose arguments are split across chunks', async () => {
  const calls = [
    {
      id: 'call_JMW1whyEaYG438VE1OIflxA2',
      name: 'GetWeatherArgs',
      args: { city: 'Edinburgh', country: 'GB', units: 'c' },
    },
    {
      id: 'call_DNYTawLBoN8fj3KN6qU9N1Ou',
      name: 'get_stock_price',
      args: { ticker: 'AAPL', exchange: 'NASDAQ' },
    },
  ];
  await expectFixture('openai-chat-tool-calls.sse', streamOpenAIChat, CHAT, {
    toolCalls: calls,
    end: {
      type: 'done',
      stop: 'tool_use',
      usage: usage(149, 60),
      content: calls.map((call) => ({ type: 'tool_call' as const, ...call })),
    },
  });
});

test('openai chat, recorded: finish_reason length', async () => {
  await expectFixture('openai-chat-length.sse', streamOpenAIChat, CHAT, {
    text: '{"',
    textDeltas: 1,
    end: {
      type: 'done',
      stop: 'length',
      usage: usage(79, 1),
      content: [{ type: 'text', text: '{"' }],
    },
  });
});

// --- OpenAI Responses

const GPT_RESPONSES_TEXT =
  "I am OpenAI's language model, known as GPT-3. I'm an artificial intelligence designed to " +
  "comprehend text inputs and generate text outputs based on those inputs. I'm trained on a " +
  "wide range of internet text, but I don't have personal experiences because I am a machine " +
  'learning model.';

test('openai responses, recorded: output_text deltas and the usage of response.completed', async () => {
  await expectFixture('openai-responses-text.sse', streamOpenAIResponses, RESPONSES, {
    text: GPT_RESPONSES_TEXT,
    textDeltas: 60,
    end: {
      type: 'done',
      stop: 'end_turn',
      usage: usage(10, 62),
      content: [{ type: 'text', text: GPT_RESPONSES_TEXT }],
    },
  });
});

test('openai responses, recorded: two function calls from arguments delta/done', async () => {
  const calls = [
    {
      id: 'call_GXd80NWdsX8ng3xdeNLeA42o',
      name: 'search',
      args: { query: 'Detroit Tigers game time October 6, 2023' },
    },
    { id: 'call_qfdHN9tTntv02109c9RNnGGe', name: 'weather', args: { city: 'Detroit' } },
  ];
  await expectFixture('openai-responses-tool-calls.sse', streamOpenAIResponses, RESPONSES, {
    toolCalls: calls,
    end: {
      type: 'done',
      stop: 'tool_use',
      usage: usage(92, 52),
      content: calls.map((call) => ({ type: 'tool_call' as const, ...call })),
    },
  });
});

test('openai responses, recorded: reasoning summary deltas become thinking, then a call', async () => {
  const summary =
    "**Calculating step-by-step using calculator**\n\nI'll compute 12 plus 7, then multiply " +
    'the result by 3, and finally multiply that by 10, reporting the final product.';
  const call = {
    id: 'call_AB6AaRZ1FYZB2RwS6A5vbdqn',
    name: 'calculator',
    args: { a: 12, b: 7, op: 'add' },
  };
  await expectFixture('openai-responses-reasoning.sse', streamOpenAIResponses, RESPONSES, {
    thinking: summary,
    thinkingDeltas: 32,
    toolCalls: [call],
    end: {
      type: 'done',
      stop: 'tool_use',
      usage: usage(134, 28),
      content: [
        { type: 'thinking', thinking: summary },
        { type: 'tool_call', ...call },
      ],
    },
  });
});

const TPM_MESSAGE =
  'Request too large for gpt-4o in project proj_f4H0b30rYp2y52CGw64BafkL organization ' +
  'org-H9rGLigVW0aTEjgfHIg3Ircj on tokens per min (TPM): Limit 1, Requested 30. The input or ' +
  'output tokens must be reduced in order to run successfully. Visit ' +
  'https://platform.openai.com/account/rate-limits to learn more.';

test('openai responses, recorded: an error event ends the stream with its message', async () => {
  await expectFixture('openai-responses-error.sse', streamOpenAIResponses, RESPONSES, {
    end: { type: 'error', message: `openai: ${TPM_MESSAGE}` },
  });
});

test('openai responses: response.failed ends the stream with the response error', async () => {
  const message =
    'Request too large for gpt-4o-mini in organization on tokens per min (TPM): Limit 30000, ' +
    'Requested 35364.';
  await expectFixture('openai-responses-failed.sse', streamOpenAIResponses, RESPONSES, {
    end: { type: 'error', message: `openai: response failed: ${message}` },
  });
});
