import assert from 'node:assert/strict';
import { test } from 'node:test';
import { V2_LIMITS, type FrameFromHost, type UiRequestFrame } from '@zot/protocol';
import type { ExtensionAnswer, ExtensionQuestion } from '../contract/extension-questions.js';
import type { RunningExtension } from './extension.js';
import { Peer } from './peer.js';
import { ExtensionQuestions, MAX_OPEN_QUESTIONS } from './ui-questions.js';

/** An extension as the questions see it: its name, its log, whether it runs, what it was sent. */
function fakeExtension(name = 'asker') {
  const sent: FrameFromHost[] = [];
  const log: string[] = [];
  const extension = {
    name,
    running: true,
    log: { write: (line: string) => void log.push(line) },
    send: (frame: FrameFromHost) => void sent.push(frame),
    // Its clock is Date.now(), which the tests that mock timers drive.
    peer: new Peer(
      () => undefined,
      undefined,
      undefined,
      () => Date.now(),
    ),
  };
  return { extension: extension as unknown as RunningExtension, sent, log, raw: extension };
}

const ask = (id: string, extra: Partial<UiRequestFrame> = {}): UiRequestFrame => ({
  type: 'ui_request',
  id,
  kind: 'confirm',
  title: `question ${id}`,
  ...extra,
});

/** A front end whose answers the test gives, one question at a time. */
function frontEnd() {
  const open: Array<{
    question: ExtensionQuestion;
    withdrawn: AbortSignal;
    answer: (a: ExtensionAnswer) => void;
  }> = [];
  const answerer = (question: ExtensionQuestion, withdrawn: AbortSignal) =>
    new Promise<ExtensionAnswer>((answer) => open.push({ question, withdrawn, answer }));
  return { open, answerer };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

test('with no front end every question is answered unavailable at once, the reason logged', () => {
  const questions = new ExtensionQuestions();
  const { extension, sent, log } = fakeExtension();
  questions.ask(extension, ask('q1'));
  assert.deepEqual(sent, [{ type: 'ui_response', id: 'q1', unavailable: true }]);
  assert.match(log.join('\n'), /q1 \(confirm\): answered unavailable: no one can answer/);
});

test("each answer kind goes back under the extension's own id; the front end sees zot's id and the name", async () => {
  const questions = new ExtensionQuestions();
  const { open, answerer } = frontEnd();
  questions.answerWith(answerer);
  const { extension, sent } = fakeExtension();
  questions.ask(extension, ask('a'));
  questions.ask(extension, ask('b', { kind: 'select', options: ['x', 'y'] }));
  questions.ask(extension, ask('c', { kind: 'input', mask: true, options: ['ignored'] }));
  assert.deepEqual(
    open.map((o) => o.question),
    [
      { id: 'ui-1', extension: 'asker', kind: 'confirm', title: 'question a' },
      { id: 'ui-2', extension: 'asker', kind: 'select', title: 'question b', options: ['x', 'y'] },
      { id: 'ui-3', extension: 'asker', kind: 'input', title: 'question c', mask: true },
    ],
  );
  open[0]!.answer({ value: true });
  open[1]!.answer({ cancelled: true });
  open[2]!.answer({ value: 'typed' });
  await settle();
  assert.deepEqual(sent, [
    { type: 'ui_response', id: 'a', value: true },
    { type: 'ui_response', id: 'b', cancelled: true },
    { type: 'ui_response', id: 'c', value: 'typed' },
  ]);
});

test('a front end answer that does not fit is not passed on: the extension hears cancelled', async () => {
  const questions = new ExtensionQuestions();
  const { open, answerer } = frontEnd();
  questions.answerWith(answerer);
  const { extension, sent, log } = fakeExtension();
  questions.ask(extension, ask('s', { kind: 'select', options: ['x'] }));
  open[0]!.answer({ value: 'not offered' });
  await settle();
  assert.deepEqual(sent, [{ type: 'ui_response', id: 's', cancelled: true }]);
  assert.match(log.join('\n'), /answer was refused \("not offered" is not one of the options/);
});

test(`at most ${MAX_OPEN_QUESTIONS} questions of one extension wait; another extension is not held back`, async () => {
  const questions = new ExtensionQuestions();
  const { open, answerer } = frontEnd();
  questions.answerWith(answerer);
  const one = fakeExtension('one');
  const two = fakeExtension('two');
  for (let i = 1; i <= MAX_OPEN_QUESTIONS + 1; i++) questions.ask(one.extension, ask(`q${i}`));
  questions.ask(two.extension, ask('other'));
  assert.equal(open.length, MAX_OPEN_QUESTIONS + 1);
  assert.deepEqual(one.sent, [
    { type: 'ui_response', id: `q${MAX_OPEN_QUESTIONS + 1}`, unavailable: true },
  ]);
  assert.deepEqual(two.sent, []);
  // Answering one makes room again.
  open[0]!.answer({ value: false });
  await settle();
  questions.ask(one.extension, ask('again'));
  assert.equal(open.length, MAX_OPEN_QUESTIONS + 2);
});

test('refused at once: an id already waiting, a select without options, a deadline out of range', () => {
  const questions = new ExtensionQuestions();
  questions.answerWith(frontEnd().answerer);
  const { extension, sent, log } = fakeExtension();
  questions.ask(extension, ask('dup'));
  questions.ask(extension, ask('dup'));
  questions.ask(extension, ask('empty', { kind: 'select', options: [] }));
  questions.ask(extension, ask('long', { timeout_ms: V2_LIMITS.uiTimeoutMs + 1 }));
  assert.deepEqual(
    sent.map((frame) => (frame as { id: string }).id),
    ['dup', 'empty', 'long'],
  );
  assert.match(log.join('\n'), /"dup" is already waiting/);
  assert.match(log.join('\n'), /needs at least one option/);
  assert.match(log.join('\n'), /timeout_ms must be 1 to 3600000/);
});

test('a deadline withdraws the question (the dialog closes) and answers cancelled; a late answer is dropped', async () => {
  const questions = new ExtensionQuestions();
  const { open, answerer } = frontEnd();
  questions.answerWith(answerer);
  const { extension, sent } = fakeExtension();
  questions.ask(extension, ask('t', { timeout_ms: 1 }));
  await new Promise((resolve) => open[0]!.withdrawn.addEventListener('abort', resolve));
  assert.deepEqual(sent, [{ type: 'ui_response', id: 't', cancelled: true }]);
  open[0]!.answer({ value: true });
  await settle();
  assert.equal(sent.length, 1);
});

test('an extension that exits withdraws its questions and is sent nothing; others keep theirs', async () => {
  const questions = new ExtensionQuestions();
  const { open, answerer } = frontEnd();
  questions.answerWith(answerer);
  const gone = fakeExtension('gone');
  const stays = fakeExtension('stays');
  questions.ask(gone.extension, ask('g'));
  questions.ask(stays.extension, ask('s'));
  gone.raw.running = false;
  questions.withdrawFrom(gone.extension);
  assert.equal(open[0]!.withdrawn.aborted, true);
  assert.equal(open[1]!.withdrawn.aborted, false);
  open[0]!.answer({ value: true });
  open[1]!.answer({ value: true });
  await settle();
  assert.deepEqual(gone.sent, []);
  assert.deepEqual(stays.sent, [{ type: 'ui_response', id: 's', value: true }]);
  questions.ask(stays.extension, ask('s2'));
  questions.withdrawAll();
  assert.equal(open[2]!.withdrawn.aborted, true);
});

test("a question pauses the deadlines of its extension's calls in flight until its last question closes; a refused one pauses nothing", async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout', 'Date'] });
  const questions = new ExtensionQuestions(60_000);
  const { open, answerer } = frontEnd();
  questions.answerWith(answerer);
  const { extension, raw, log } = fakeExtension();
  const outcomes: string[] = [];
  const request = (frame: Parameters<Peer['request']>[0], label: string) =>
    raw.peer.request(frame, label, 1_000).then(
      () => outcomes.push(`${label}: answered`),
      (error: { reason: string }) => outcomes.push(`${label}: ${error.reason}`),
    );
  void request({ type: 'tool_call', name: 't' }, 'tool');
  void request({ type: 'command_invoked', name: 'c', args: '' }, 'command');
  void request({ type: 'event_intercept', event: 'turn_start', step: 1 }, 'intercept');
  questions.ask(extension, ask('q1'));
  questions.ask(extension, ask('q2'));
  questions.ask(extension, ask('q1')); // refused: the id is waiting
  t.mock.timers.tick(1_000);
  await settle();
  assert.deepEqual(outcomes, ['intercept: timeout'], 'an interceptor is not paused');
  open[0]!.answer({ value: true });
  await settle();
  t.mock.timers.tick(5_000);
  await settle();
  assert.deepEqual(outcomes, ['intercept: timeout'], 'q2 still waits');
  open[1]!.answer({ value: false });
  await settle();
  t.mock.timers.tick(999);
  await settle();
  assert.equal(outcomes.length, 1);
  t.mock.timers.tick(1);
  await settle();
  assert.deepEqual(outcomes.sort(), ['command: timeout', 'intercept: timeout', 'tool: timeout']);
  assert.equal(log.filter((line) => /deadline paused/.test(line)).length, 2);
  assert.equal(log.filter((line) => /deadline running again/.test(line)).length, 2);
});

test('a question that is never answered pauses a call no longer than the cap', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout', 'Date'] });
  const questions = new ExtensionQuestions(10_000);
  const { answerer } = frontEnd();
  questions.answerWith(answerer);
  const { extension, raw } = fakeExtension();
  let reason = '';
  void raw.peer
    .request({ type: 'tool_call', name: 't' }, 'tool', 1_000)
    .catch((error: { reason: string }) => (reason = error.reason));
  questions.ask(extension, ask('forever'));
  // In steps: a mocked Date reads the tick's end inside the callbacks it runs.
  t.mock.timers.tick(10_000);
  t.mock.timers.tick(999);
  await settle();
  assert.equal(reason, '');
  t.mock.timers.tick(1);
  await settle();
  assert.equal(reason, 'timeout');
});
