// Refusals and separate text parts, in each wire format. The Anthropic and Chat cases are the
// recorded streams (test/fixtures/streams) with one documented change each: Anthropic's
// `stop_reason: "refusal"` (its streaming-refusals guide) and Chat's `refusal` delta field in
// place of `content` (the Chat Completions chunk object). The multi-part streams follow the
// documented event shapes (Anthropic content_block indexes, Responses content and summary indexes).
// Then end to end: print mode's refusal line and `refusal: true` on assistant_message in --json.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { streamAnthropic } from '../src/providers/anthropic.js';
import { resolveModel } from '../src/providers/catalog.js';
import { streamOpenAIChat } from '../src/providers/openai-chat.js';
import { streamOpenAIResponses } from '../src/providers/openai-responses.js';
import type { ModelInfo, ProviderEvent, StreamFn } from '../src/providers/types.js';
import { fakeLlmFlags, startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { startReplayServer, streamFixture, type ReplayServer } from './support/replay-server.js';
import { jsonLines, makeSandbox, runZot } from './support/zot.js';

let server: ReplayServer;
let fake: FakeLlm;
const box = makeSandbox();
before(async () => {
  server = await startReplayServer();
  fake = await startFakeLlm();
});
after(async () => {
  await server.close();
  await fake.close();
  box.cleanup();
});

const ANTHROPIC = resolveModel('anthropic', 'claude-sonnet-4-5').model;
const CHAT: ModelInfo = { ...resolveModel('openai', 'gpt-4.1').model, api: 'openai-chat' };
const RESPONSES = resolveModel('openai', 'gpt-5').model;

async function run(stream: StreamFn, model: ModelInfo, bytes: Buffer): Promise<ProviderEvent[]> {
  server.serve(bytes, { seed: 7, maxChunk: 23, awkward: true });
  const out: ProviderEvent[] = [];
  for await (const event of stream({
    model,
    baseUrl: server.url,
    apiKey: 'k',
    system: '',
    messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }], time: 't' }],
    tools: [],
    signal: new AbortController().signal,
  })) {
    out.push(event);
  }
  return out;
}

function doneOf(events: ProviderEvent[]) {
  const last = events.at(-1);
  assert.equal(last?.type, 'done', JSON.stringify(last));
  return last as Extract<ProviderEvent, { type: 'done' }>;
}
const shown = (events: ProviderEvent[], type: 'text_delta' | 'thinking_delta') =>
  events.flatMap((e) => (e.type === type ? [e.delta] : [])).join('');

const sse = (events: Array<[string | undefined, unknown]>) =>
  Buffer.from(
    events
      .map(([name, data]) => `${name ? `event: ${name}\n` : ''}data: ${JSON.stringify(data)}\n\n`)
      .join(''),
  );

test('anthropic: stop_reason refusal ends the turn flagged as a refusal, its text kept', async () => {
  const recorded = streamFixture('anthropic-text.sse').toString('utf8');
  assert.ok(recorded.includes('"stop_reason":"end_turn"'));
  const bytes = Buffer.from(
    recorded.replace('"stop_reason":"end_turn"', '"stop_reason":"refusal"'),
  );
  const done = doneOf(await run(streamAnthropic, ANTHROPIC, bytes));
  assert.equal(done.message.refusal, true);
  assert.equal(done.stop, 'end_turn');
  assert.match(shown(await run(streamAnthropic, ANTHROPIC, bytes), 'text_delta'), /^I'm Claude/);
  // The recording itself is no refusal.
  assert.equal(
    doneOf(await run(streamAnthropic, ANTHROPIC, Buffer.from(recorded))).message.refusal,
    undefined,
  );
});

test('openai chat: refusal deltas are shown as the text and flag the message', async () => {
  const recorded = streamFixture('openai-chat-text.sse').toString('utf8');
  const expectedText = doneOf(await run(streamOpenAIChat, CHAT, Buffer.from(recorded)));
  const bytes = Buffer.from(recorded.replaceAll('"content":"', '"refusal":"'));
  const events = await run(streamOpenAIChat, CHAT, bytes);
  const done = doneOf(events);
  assert.equal(done.message.refusal, true);
  assert.deepEqual(done.message.content, expectedText.message.content);
  assert.equal(expectedText.message.refusal, undefined);
});

test('openai responses: refusal deltas are shown as the text and flag the message', async () => {
  const item = { item_id: 'msg_1', output_index: 0, content_index: 0 };
  const bytes = sse([
    ['response.created', { type: 'response.created', response: { id: 'r' } }],
    ['response.refusal.delta', { type: 'response.refusal.delta', ...item, delta: "I can't " }],
    [
      'response.refusal.delta',
      { type: 'response.refusal.delta', ...item, delta: 'help with that.' },
    ],
    [
      'response.refusal.done',
      { type: 'response.refusal.done', ...item, refusal: "I can't help with that." },
    ],
    [
      'response.completed',
      {
        type: 'response.completed',
        response: { id: 'r', usage: { input_tokens: 5, output_tokens: 6 } },
      },
    ],
  ]);
  const events = await run(streamOpenAIResponses, RESPONSES, bytes);
  assert.equal(shown(events, 'text_delta'), "I can't help with that.");
  assert.equal(doneOf(events).message.refusal, true);
});

test('anthropic: separate text blocks are joined with a line break, in the deltas and the message', async () => {
  const block = (index: number, text: string[]) =>
    [
      [
        'content_block_start',
        { type: 'content_block_start', index, content_block: { type: 'text', text: '' } },
      ],
      ...text.map((t) => [
        'content_block_delta',
        { type: 'content_block_delta', index, delta: { type: 'text_delta', text: t } },
      ]),
      ['content_block_stop', { type: 'content_block_stop', index }],
    ] as Array<[string, unknown]>;
  const bytes = sse([
    [
      'message_start',
      { type: 'message_start', message: { usage: { input_tokens: 3, output_tokens: 1 } } },
    ],
    ...block(0, ['First', ' part.']),
    ...block(1, ['Second part.']),
    [
      'message_delta',
      { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 9 } },
    ],
    ['message_stop', { type: 'message_stop' }],
  ]);
  const events = await run(streamAnthropic, ANTHROPIC, bytes);
  assert.equal(shown(events, 'text_delta'), 'First part.\nSecond part.');
  assert.deepEqual(doneOf(events).message.content, [
    { type: 'text', text: 'First part.\nSecond part.' },
  ]);
});

test('openai responses: text parts and reasoning-summary parts are joined with a line break', async () => {
  const summary = (summary_index: number, delta: string) =>
    [
      'response.reasoning_summary_text.delta',
      {
        type: 'response.reasoning_summary_text.delta',
        item_id: 'rs_1',
        output_index: 0,
        summary_index,
        delta,
      },
    ] as [string, unknown];
  const text = (item_id: string, content_index: number, delta: string) =>
    [
      'response.output_text.delta',
      { type: 'response.output_text.delta', item_id, output_index: 1, content_index, delta },
    ] as [string, unknown];
  const bytes = sse([
    summary(0, 'Reading the'),
    summary(0, ' question.'),
    summary(1, 'Planning the answer.'),
    text('msg_1', 0, 'One.'),
    text('msg_1', 1, 'Two.'),
    text('msg_2', 0, 'Three.'),
    [
      'response.completed',
      { type: 'response.completed', response: { usage: { input_tokens: 1, output_tokens: 2 } } },
    ],
  ]);
  const events = await run(streamOpenAIResponses, RESPONSES, bytes);
  assert.equal(shown(events, 'thinking_delta'), 'Reading the question.\nPlanning the answer.');
  assert.equal(shown(events, 'text_delta'), 'One.\nTwo.\nThree.');
  assert.deepEqual(doneOf(events).message.content, [
    { type: 'thinking', thinking: 'Reading the question.\nPlanning the answer.' },
    { type: 'text', text: 'One.\nTwo.\nThree.' },
  ]);
});

for (const provider of ['anthropic', 'openai'] as const) {
  test(`${provider}: print mode prints the refusal and says on stderr that it was one; --json flags it`, async () => {
    const flags = [...fakeLlmFlags(fake.url), '--provider', provider, '--no-session'];
    fake.script({ text: ["I can't", ' help with that.'], refusal: true });
    const printed = await runZot(['-p', 'do it', ...flags], { home: box.home, cwd: box.project });
    assert.equal(printed.code, 0, printed.stderr);
    assert.equal(printed.stdout, "I can't help with that.\n");
    assert.match(printed.stderr, /^zot: the model refused to answer \(provider refusal\)$/m);

    fake.script({ text: "I can't help with that.", refusal: true });
    const json = await runZot(['--json', 'do it', ...flags], { home: box.home, cwd: box.project });
    assert.equal(json.code, 0, json.stderr);
    const messages = jsonLines(json.stdout).filter((e) => e.type === 'assistant_message');
    assert.equal(messages.length, 1);
    assert.equal(messages[0]?.refusal, true);

    fake.script({ text: 'Sure.' });
    const normal = await runZot(['--json', 'do it', ...flags], {
      home: box.home,
      cwd: box.project,
    });
    const plain = jsonLines(normal.stdout).find((e) => e.type === 'assistant_message');
    assert.equal(plain?.refusal, undefined, 'an ordinary answer carries no refusal field');
  });
}
