import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Message } from '../providers/types.js';
import { loadSessionText, SessionLoading } from './load.js';
import { INTERRUPTED_TEXT } from './repair.js';
import { MAX_TAIL_BYTES, readTranscriptTail } from './transcript-tail.js';
import { sessionHeader, sessionLine as line } from './testing/session-lines.js';

const header = sessionHeader('/w');
const message = (message: Message) => line({ type: 'message', message });
const user = (text: string) =>
  message({ role: 'user', content: [{ type: 'text', text }], time: 't' });
const answer = (text: string) =>
  message({ role: 'assistant', content: [{ type: 'text', text }], time: 't' });
const call = (id: string) =>
  message({
    role: 'assistant',
    content: [{ type: 'tool_call', id, name: 'bash', args: { command: 'ls' } }],
    time: 't',
  });
const result = (id: string) =>
  message({
    role: 'tool',
    content: [
      { type: 'tool_result', call_id: id, is_error: false, content: [{ type: 'text', text: id }] },
    ],
    time: 't',
  });
const usage = line({
  type: 'usage',
  time: 't',
  provider: 'anthropic',
  model: 'm',
  input: 1,
  output: 2,
  cache_read: 0,
  cache_write: 0,
  cost_usd: 0.5,
});

/** `turns` turns of prompt, tool call, result and answer, with usage and a name among them. */
function conversation(turns: number, from = 0): string {
  let text = '';
  for (let turn = from; turn < from + turns; turn++) {
    text += user(`q${turn}`) + call(`c${turn}`) + usage + result(`c${turn}`) + answer(`a${turn}`);
    if (turn % 7 === 0) text += line({ type: 'name', time: 't', name: `n${turn}` });
  }
  return text;
}

function agrees(text: string, count: number): Message[] | undefined {
  const tail = readTranscriptTail(Buffer.from(text), count);
  if (tail === undefined) return undefined;
  const { messages } = loadSessionText(text);
  assert.ok(tail.length >= Math.min(count, messages.length));
  assert.deepEqual(tail, messages.slice(messages.length - tail.length));
  return tail;
}

test('the newest messages, from a prompt on, are the end of the whole transcript', () => {
  const text = header + conversation(50);
  const tail = agrees(text, 10)!;
  // 10 messages reach back into turn 47; the tail starts at its prompt.
  assert.equal(tail.length, 12);
  assert.equal(tail[0]!.role, 'user');
  assert.deepEqual(tail[0]!.content, [{ type: 'text', text: 'q47' }]);
});

test('a short file gives all of its messages; CRLF, blank and bad lines are read as the whole read does', () => {
  const text =
    '\ufeff' +
    header.replace('\n', '\r\n') +
    conversation(3).replaceAll('\n', '\r\n') +
    '  \n{not json\n' +
    '{"type":"message","message":{"role":"user"}}\n' +
    answer('cut').slice(0, 20);
  const tail = agrees(text, 100)!;
  assert.equal(tail.length, 12);
});

test('an interrupted tool call at the end gets the same synthetic result as the whole read', () => {
  const text = header + conversation(20) + user('last') + call('open');
  const tail = agrees(text, 3)!;
  const last = tail.at(-1)!;
  assert.equal(last.role, 'tool');
  assert.deepEqual(
    last.content.map((block) => block.type === 'tool_result' && block.content),
    [[{ type: 'text', text: INTERRUPTED_TEXT }]],
  );
});

test('a move among the newest entries leaves the tail to the whole read; one before them does not', () => {
  const moves = [
    line({ type: 'rewind', time: 't', turn: 1, messages: 4 }),
    line({ type: 'branch', time: 't', to: 3 }),
    line({ type: 'compaction', time: 't', summary: 's', kept: 2 }),
    line({ type: 'clear', time: 't' }),
    line({ type: 'merge', time: 't', from: 3, label: 'l', text: 'x' }),
  ];
  for (const move of moves) {
    const within = header + conversation(20) + move + conversation(2, 20);
    assert.equal(readTranscriptTail(Buffer.from(within), 10), undefined, move);
    const before = header + conversation(20) + move + conversation(10, 20);
    assert.ok(agrees(before, 10), move);
  }
});

test('a tail longer than its byte bound is left to the whole read', () => {
  const big = 'x'.repeat(MAX_TAIL_BYTES / 4);
  const text = header + user('q') + answer(big) + answer(big) + answer(big) + answer(big);
  assert.equal(readTranscriptTail(Buffer.from(text), 2), undefined);
  assert.equal(agrees(header + user('q') + answer(big), 2)?.length, 2);
});

test('reading in steps gives what reading at once does, and takes many steps on a long file', () => {
  const text = header + conversation(400) + 'not json\n';
  const loading = new SessionLoading(text, 'f');
  let steps = 1;
  while (!loading.step(0)) steps++;
  assert.ok(steps > 10, `${steps} steps`);
  const whole = loadSessionText(text, 'f');
  const stepped = loading.finish();
  assert.deepEqual(stepped.messages, whole.messages);
  assert.deepEqual(stepped.warnings, whole.warnings);
  assert.deepEqual(stepped.usage, whole.usage);
  assert.equal(stepped.name, 'n399');
  assert.equal(loading.finish(), stepped, 'finish gives the same session again');
});
