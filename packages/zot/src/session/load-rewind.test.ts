// Session files with checkpoints and conversation rewinds: a rewind entry cuts the transcript
// back (the later messages stay in the file), and a checkpoint's conversation point is kept
// only while the transcript still holds that prefix.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Message } from '../providers/types.js';
import { loadSessionText } from './load.js';
import { sessionHeader, sessionLine as line } from './testing/session-lines.js';

const header = sessionHeader();
const user = (text: string): Message => ({
  role: 'user',
  content: [{ type: 'text', text }],
  time: 't',
});
const answer = (text: string): Message => ({
  role: 'assistant',
  content: [{ type: 'text', text }],
  time: 't',
});
const message = (m: Message) => line({ type: 'message', message: m });
const checkpoint = (turn: number, messages?: number) =>
  line({
    type: 'checkpoint',
    time: 't',
    turn,
    phase: 'before',
    commit: 'a'.repeat(40),
    root: '/p',
    ...(messages !== undefined ? { messages } : {}),
  });
const texts = (messages: Message[]) => messages.map((m) => (m.content[0] as { text: string }).text);

test('a rewind entry moves the transcript back; what follows it continues from there', () => {
  const text =
    header +
    message(user('one')) +
    checkpoint(1, 0) +
    message(answer('did one')) +
    message(user('two')) +
    checkpoint(2, 2) +
    message(answer('did two')) +
    line({ type: 'rewind', time: 't', turn: 2, messages: 2 }) +
    message(user('two again')) +
    message(answer('did it differently'));
  const loaded = loadSessionText(text, 'f');
  assert.deepEqual(loaded.warnings, []);
  assert.deepEqual(texts(loaded.messages), ['one', 'did one', 'two again', 'did it differently']);
  assert.deepEqual(
    loaded.checkpoints?.map((entry) => [entry.turn, entry.messages]),
    [
      [1, 0],
      [2, 2],
    ],
  );
});

test('a compaction, a clear or a rewind before a point forgets the conversation points it cuts', () => {
  const compacted =
    header +
    message(user('one')) +
    checkpoint(1, 0) +
    message(answer('a')) +
    line({ type: 'compaction', time: 't', summary: 's', kept: 1 }) +
    message(user('two')) +
    checkpoint(2, 2);
  assert.deepEqual(
    loadSessionText(compacted, 'f').checkpoints?.map((entry) => entry.messages),
    [undefined, 2],
  );
  const rewound =
    header +
    message(user('one')) +
    checkpoint(1, 0) +
    message(answer('a')) +
    message(user('two')) +
    checkpoint(2, 2) +
    line({ type: 'rewind', time: 't', turn: 1, messages: 0 });
  const loaded = loadSessionText(rewound, 'f');
  assert.deepEqual(
    loaded.checkpoints?.map((entry) => entry.messages),
    [0, undefined],
  );
  assert.deepEqual(loaded.messages, []);
});
