// Background detection against a fake terminal on real streams: it answers the query as
// terminals do (OSC 11 ended by BEL or ST, or only DA1), or not at all.
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import {
  BACKGROUND_QUERY,
  backgroundFromColorFgBg,
  backgroundFromReply,
  detectBackground,
  queryBackground,
} from './background.js';

const DA1_REPLY = '\x1b[?62;22c';

/** A tty-like input and an output whose writes the "terminal" answers with `answer(query)`. */
function fakeTerminal(answer: (query: string) => string | undefined, typedFirst = '') {
  const input = Object.assign(new PassThrough(), {
    isTTY: true,
    isRaw: false,
    rawCalls: [] as boolean[],
    setRawMode(mode: boolean) {
      this.rawCalls.push(mode);
      this.isRaw = mode;
      return this;
    },
  });
  const written: string[] = [];
  const output = {
    isTTY: true,
    write(text: string) {
      written.push(text);
      const reply = answer(text);
      // The user's keys may arrive before the answer.
      setImmediate(() => input.write(typedFirst + (reply ?? '')));
      return true;
    },
  };
  return { input, output, written };
}

/** Whatever the input still holds for the next reader. */
function leftover(input: PassThrough): string {
  const chunks: Buffer[] = [];
  for (let chunk = input.read(); chunk !== null; chunk = input.read()) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

test('a white background answered with BEL is light; raw mode is put back', async () => {
  const t = fakeTerminal(() => '\x1b]11;rgb:ffff/ffff/ffff\x07' + DA1_REPLY);
  assert.equal(await queryBackground(t.input, t.output, 60_000), 'light');
  assert.deepEqual(t.written, [BACKGROUND_QUERY]);
  assert.deepEqual(t.input.rawCalls, [true, false]);
});

test('a dark background answered with ST and two hex digits is dark', async () => {
  const t = fakeTerminal(() => '\x1b]11;rgb:1e/1e/2e\x1b\\' + DA1_REPLY);
  assert.equal(await queryBackground(t.input, t.output, 60_000), 'dark');
});

test('a terminal without OSC 11 answers DA1 only: no answer, and no waiting for the limit', async () => {
  // The limit is an hour: only the DA1 answer can end this wait in time for the test.
  const t = fakeTerminal(() => DA1_REPLY);
  assert.equal(await queryBackground(t.input, t.output, 3_600_000), undefined);
});

test('keys typed during the query are handed back, UTF-8 intact', async () => {
  const t = fakeTerminal(() => '\x1b]11;rgb:0000/0000/0000\x1b\\' + DA1_REPLY, 'hé✓');
  assert.equal(await queryBackground(t.input, t.output, 60_000), 'dark');
  assert.equal(leftover(t.input), 'hé✓');
});

test('a terminal that answers nothing ends the wait at the limit', async () => {
  const t = fakeTerminal(() => undefined);
  assert.equal(await queryBackground(t.input, t.output, 20), undefined);
  assert.deepEqual(t.input.rawCalls, [true, false]);
});

test('no tty: nothing is written and nothing is read', async () => {
  const t = fakeTerminal(() => DA1_REPLY);
  const input = Object.assign(t.input, { isTTY: false });
  assert.equal(await queryBackground(input, t.output), undefined);
  assert.deepEqual(t.written, []);
});

test('COLORFGBG decides without asking; the answer parser weighs luminance', async () => {
  assert.equal(backgroundFromColorFgBg('15;0'), 'dark');
  assert.equal(backgroundFromColorFgBg('0;15'), 'light');
  assert.equal(backgroundFromColorFgBg('0;default;7'), 'light');
  assert.equal(backgroundFromColorFgBg('default'), undefined);
  assert.equal(backgroundFromColorFgBg(undefined), undefined);
  assert.equal(backgroundFromReply('\x1b]11;rgb:00/ff/00\x07'), 'light', 'pure green is bright');
  assert.equal(backgroundFromReply('\x1b]11;rgb:00/00/ff\x07'), 'dark', 'pure blue is dark');
  assert.equal(backgroundFromReply('\x1b]11;rgba:ffff/ffff/ffff/ffff\x1b\\'), 'light');
  assert.equal(backgroundFromReply('\x1b]11;rgb:zz/00/00\x07'), undefined);
  const t = fakeTerminal(() => '\x1b]11;rgb:ffff/ffff/ffff\x07' + DA1_REPLY);
  assert.equal(await detectBackground({ COLORFGBG: '15;0' }, t.input, t.output), 'dark');
  assert.deepEqual(t.written, [], 'COLORFGBG answered: the terminal is not asked');
  assert.equal(await detectBackground({}, t.input, t.output), 'light');
});
