// Boundary validation is tolerant (design D12) and its errors name the frame and the field.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  checkFrameFromExtension,
  checkFrameFromHost,
  decodeFromExtension,
  decodeFromHost,
  encodeFrame,
  isEventName,
  isInterceptableEvent,
  type DecodeResult,
} from './index.js';

function failure(result: DecodeResult<unknown>) {
  assert.equal(result.ok, false, 'expected a failure');
  return result as Extract<DecodeResult<unknown>, { ok: false }>;
}

test('unknown fields are tolerated and kept on the frame', () => {
  const line = '{"type":"notify","level":"info","message":"x","future":{"a":[1]},"id":"n"}';
  const result = decodeFromExtension(line);
  assert.ok(result.ok);
  assert.deepEqual(result.frame, JSON.parse(line));
  const nested = decodeFromExtension(
    '{"type":"tool_result","id":"1","content":[{"type":"text","text":"a","annotations":{}}],"structured_content":{}}',
  );
  assert.ok(nested.ok);
});

test('missing optional fields are fine (SDKs omit empty fields)', () => {
  for (const line of [
    '{"type":"hello","name":"x"}',
    '{"type":"tool_result","id":"1"}',
    '{"type":"tool_result","id":"1","content":[{"type":"text"}]}',
    '{"type":"command_response","id":"1"}',
    '{"type":"command_response","id":"1","error":"boom"}',
    '{"type":"event_intercept_response","id":"1"}',
    '{"type":"notify","message":"no level"}',
    '{"type":"register_tool","name":"t"}',
    '{"type":"subscribe"}',
  ]) {
    const result = decodeFromExtension(line);
    assert.ok(result.ok, `${line}: ${result.ok ? '' : result.error}`);
  }
  for (const line of [
    '{"type":"hello_ack","protocol_version":1}',
    '{"type":"command_invoked","id":"1","name":"x"}',
    '{"type":"tool_call","id":"1","name":"x"}',
    '{"type":"event","event":"turn_end"}',
    '{"type":"event_intercept","id":"1","event":"assistant_message"}',
  ]) {
    const result = decodeFromHost(line);
    assert.ok(result.ok, `${line}: ${result.ok ? '' : result.error}`);
  }
});

test('null stands for an absent array or object where Go emits nil as null', () => {
  assert.ok(decodeFromExtension('{"type":"tool_result","id":"1","content":null}').ok);
  assert.ok(decodeFromExtension('{"type":"register_tool","name":"t","schema":null}').ok);
  assert.ok(decodeFromHost('{"type":"tool_call","id":"1","name":"t","args":null}').ok);
});

test('unknown frame types give unknown_type with the type and any id', () => {
  const result = failure(decodeFromExtension('{"type":"call_tool","id":"9","name":"read"}'));
  assert.equal(result.kind, 'unknown_type');
  assert.equal(result.type, 'call_tool');
  assert.equal(result.id, '9');
  assert.equal(result.error, 'unknown frame type "call_tool" from extension');
});

test('a frame of the other direction is an unknown type there', () => {
  assert.equal(failure(decodeFromHost('{"type":"hello","name":"x"}')).kind, 'unknown_type');
  assert.equal(failure(decodeFromExtension('{"type":"shutdown"}')).kind, 'unknown_type');
});

test('bad JSON gives invalid_json', () => {
  for (const line of ['{"type":"notify",', '', 'not json', '{"type":"notify"}}']) {
    const result = failure(decodeFromExtension(line));
    assert.equal(result.kind, 'invalid_json', line);
    assert.match(result.error, /^invalid JSON: /);
  }
});

test('JSON that is not an object gives not_object', () => {
  for (const [line, got] of [
    ['[]', 'an array'],
    ['null', 'null'],
    ['"hello"', 'a string'],
    ['42', 'a number'],
  ] as const) {
    const result = failure(decodeFromHost(line));
    assert.equal(result.kind, 'not_object');
    assert.equal(result.error, `frame must be a JSON object, got ${got}`);
  }
});

test('a missing or non-string type is an invalid frame', () => {
  assert.deepEqual(decodeFromExtension('{"id":"1"}'), {
    ok: false,
    kind: 'invalid_frame',
    id: '1',
    error: 'frame: /type is required',
  });
  assert.equal(failure(decodeFromExtension('{"type":7}')).error, 'frame: /type must be a string');
});

test('a reply without id is rejected with a message naming frame and field', () => {
  for (const type of ['tool_result', 'command_response', 'event_intercept_response']) {
    assert.deepEqual(decodeFromExtension(`{"type":"${type}","action":"noop"}`), {
      ok: false,
      kind: 'invalid_frame',
      type,
      error: `${type}: /id is required`,
    });
  }
  for (const type of ['command_invoked', 'tool_call', 'event_intercept']) {
    const error = failure(decodeFromHost(`{"type":"${type}","name":"x","event":"turn_start"}`));
    assert.equal(error.error, `${type}: /id is required`);
  }
});

test('wrong types are rejected with the offending path', () => {
  const cases: Array<[string, string]> = [
    ['{"type":"tool_result","id":7}', 'tool_result: /id must be a string'],
    [
      '{"type":"tool_result","id":"1","content":[{"type":"audio"}]}',
      'tool_result: /content/0/type must be "text" or "image"',
    ],
    [
      '{"type":"tool_result","id":"1","content":[{"type":"text","text":"a"},{"type":"image","data":5}]}',
      'tool_result: /content/1/data must be a string',
    ],
    ['{"type":"tool_result","id":"1","content":[3]}', 'tool_result: /content/0 must be an object'],
    [
      '{"type":"tool_result","id":"1","content":"x"}',
      'tool_result: /content must be an array or null',
    ],
    [
      '{"type":"tool_result","id":"1","is_error":"yes"}',
      'tool_result: /is_error must be a boolean',
    ],
    [
      '{"type":"notify","level":"debug","message":"x"}',
      'notify: /level must be one of "info", "success", "warn", "error"',
    ],
    [
      '{"type":"command_response","id":"1","action":"open_panel","open_panel":{"title":"t"}}',
      'command_response: /open_panel/id is required',
    ],
    [
      '{"type":"register_tool","name":"t","schema":[]}',
      'register_tool: /schema must be an object or null',
    ],
    ['{"type":"hello"}', 'hello: /name is required'],
    ['{"type":"subscribe","events":"tool_call"}', 'subscribe: /events must be an array'],
    [
      '{"type":"panel_render","panel_id":"p","lines":[1]}',
      'panel_render: /lines/0 must be a string',
    ],
  ];
  for (const [line, error] of cases) {
    const result = failure(decodeFromExtension(line));
    assert.equal(result.kind, 'invalid_frame', line);
    assert.equal(result.error, error, line);
  }
});

test('host frames: wrong event payloads name the field', () => {
  const cases: Array<[string, string]> = [
    ['{"type":"event","event":"turn_start","step":1.5}', 'event: /step must be an integer'],
    [
      '{"type":"event","event":"turn_end","stop":"done"}',
      'event: /stop must be one of "end_turn", "tool_use", "length", "error", "aborted"',
    ],
    [
      '{"type":"event","event":"bogus"}',
      'event: /event must be one of "session_start", "turn_start", "turn_end", "tool_call", "tool_confirmation_requested", "assistant_message"',
    ],
    [
      '{"type":"event_intercept","id":"1","event":"turn_end"}',
      'event_intercept: /event must be one of "tool_call", "turn_start", "assistant_message", "tool_result", "user_prompt"',
    ],
    [
      '{"type":"hello_ack","protocol_version":"1"}',
      'hello_ack: /protocol_version must be an integer',
    ],
    [
      '{"type":"panel_key","panel_id":"p","key":"space"}',
      'panel_key: /key must be one of "up", "down", "left", "right", "enter", "esc", "tab", "pageup", "pagedown", "home", "end", "backspace", "delete", "rune"',
    ],
  ];
  for (const [line, error] of cases) assert.equal(failure(decodeFromHost(line)).error, error, line);
});

test('a failed reply still carries its id so the host can fail the request at once', () => {
  const result = failure(
    decodeFromExtension('{"type":"command_response","id":"c7","action":"fly"}'),
  );
  assert.equal(result.id, 'c7');
  assert.equal(result.type, 'command_response');
});

test('modified_args of any JSON type passes the boundary (the host ignores non-objects)', () => {
  assert.ok(
    decodeFromExtension('{"type":"event_intercept_response","id":"1","modified_args":"x"}').ok,
  );
});

test('subscribe accepts unknown event names; the guards filter them', () => {
  const result = decodeFromExtension('{"type":"subscribe","events":["turn_end","future_event"]}');
  assert.ok(result.ok && result.frame.type === 'subscribe');
  assert.deepEqual(result.frame.events?.filter(isEventName), ['turn_end']);
  assert.equal(isInterceptableEvent('tool_call'), true);
  assert.equal(isInterceptableEvent('turn_end'), false);
  assert.equal(isEventName(42), false);
});

test('checkFrame* validate already-parsed values', () => {
  assert.deepEqual(checkFrameFromExtension({ type: 'ready' }), {
    ok: true,
    frame: { type: 'ready' },
  });
  assert.equal(failure(checkFrameFromHost({ type: 'shutdown_ack' })).kind, 'unknown_type');
  assert.equal(failure(checkFrameFromHost(undefined)).kind, 'not_object');
});

test('encodeFrame escapes newlines, keeps U+2028 raw, and ends with one LF', () => {
  const line = encodeFrame({ type: 'notify', message: 'a\nb\u2028c\r' });
  assert.equal(line, '{"type":"notify","message":"a\\nb\u2028c\\r"}\n');
  const decoded = decodeFromExtension(line.slice(0, -1));
  assert.ok(decoded.ok && decoded.frame.type === 'notify');
  assert.equal(decoded.frame.message, 'a\nb\u2028c\r');
});

test('inherited property names are not frame types', () => {
  for (const type of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
    const result = failure(decodeFromExtension(JSON.stringify({ type })));
    assert.equal(result.kind, 'unknown_type', type);
  }
});
