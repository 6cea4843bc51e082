// Every frame type round-trips (encode, split, decode), and the spec's examples decode.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FROM_EXTENSION, FROM_HOST } from './frame-samples.fixture.js';
import {
  EVENT_NAMES,
  FRAME_TYPES_FROM_EXTENSION,
  FRAME_TYPES_FROM_HOST,
  INTERCEPTABLE_EVENTS,
  LineSplitter,
  decodeFromExtension,
  decodeFromHost,
  encodeFrame,
  type NotifyLevel,
  type TurnEndStop,
} from './index.js';
import { SPEC_EXAMPLES_FROM_EXTENSION, SPEC_EXAMPLES_FROM_HOST } from './spec-examples.fixture.js';

test('the samples cover every frame type of both directions and every event', () => {
  assert.deepEqual(new Set(FROM_EXTENSION.map((f) => f.type)), new Set(FRAME_TYPES_FROM_EXTENSION));
  assert.deepEqual(new Set(FROM_HOST.map((f) => f.type)), new Set(FRAME_TYPES_FROM_HOST));
  const events = FROM_HOST.flatMap((f) => (f.type === 'event' ? [f.event] : []));
  assert.deepEqual(new Set(events), new Set(EVENT_NAMES));
  const intercepts = FROM_HOST.flatMap((f) => (f.type === 'event_intercept' ? [f.event] : []));
  assert.deepEqual(new Set(intercepts), new Set(INTERCEPTABLE_EVENTS));
});

test('every extension frame round-trips through encodeFrame and decodeFromExtension', () => {
  for (const frame of FROM_EXTENSION) {
    const line = encodeFrame(frame);
    assert.ok(line.endsWith('\n'), frame.type);
    assert.equal(line.indexOf('\n'), line.length - 1, `${frame.type}: one LF, at the end`);
    assert.deepEqual(decodeFromExtension(line.slice(0, -1)), { ok: true, frame }, frame.type);
  }
});

test('every host frame round-trips through encodeFrame and decodeFromHost', () => {
  for (const frame of FROM_HOST) {
    const line = encodeFrame(frame);
    assert.equal(line.indexOf('\n'), line.length - 1, `${frame.type}: one LF, at the end`);
    assert.deepEqual(decodeFromHost(line.slice(0, -1)), { ok: true, frame }, frame.type);
  }
});

test('a stream of every frame survives the splitter at any chunk size', () => {
  const wire = Buffer.from(FROM_EXTENSION.map(encodeFrame).join(''));
  for (const size of [1, 2, 3, 7, 64, wire.length]) {
    const decoded: unknown[] = [];
    const splitter = new LineSplitter({
      onLine: (line) => {
        const result = decodeFromExtension(line);
        assert.ok(result.ok, line);
        decoded.push(result.frame);
      },
    });
    for (let i = 0; i < wire.length; i += size) splitter.push(wire.subarray(i, i + size));
    splitter.end();
    assert.deepEqual(decoded, FROM_EXTENSION, `chunk size ${size}`);
  }
});

test('the JSON examples of extensions.md decode (extension → host)', () => {
  for (const example of SPEC_EXAMPLES_FROM_EXTENSION) {
    const result = decodeFromExtension(example);
    assert.ok(result.ok, `${example}\n${result.ok ? '' : result.error}`);
    assert.deepEqual(result.frame, JSON.parse(example));
  }
});

test('the JSON examples of extensions.md decode (host → extension)', () => {
  for (const example of SPEC_EXAMPLES_FROM_HOST) {
    const result = decodeFromHost(example);
    assert.ok(result.ok, `${example}\n${result.ok ? '' : result.error}`);
    assert.deepEqual(result.frame, JSON.parse(example));
  }
});

test('decoded frames narrow on type (and on event)', () => {
  const result = decodeFromHost('{"type":"event","event":"turn_end","stop":"end_turn"}');
  assert.ok(result.ok);
  const frame = result.frame;
  if (frame.type === 'event' && frame.event === 'turn_end') {
    const stop: TurnEndStop | undefined = frame.stop; // literal types survive Static<>
    assert.equal(stop, 'end_turn');
  } else assert.fail('expected a turn_end event');
  const notify = decodeFromExtension('{"type":"notify","level":"warn"}');
  assert.ok(notify.ok && notify.frame.type === 'notify');
  const level: NotifyLevel | undefined = notify.frame.level;
  assert.equal(level, 'warn');
});
