// The RPC request validators generated from RPC_REQUESTS (generated/rpc-validators.ts) agree
// with TypeBox's own Value.Check on valid requests and on every single-field corruption of
// them, decodeRpcLine explains failures by path.
import { CONFIRM_DECISIONS } from '../contract/confirm.js';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { formatFrameError } from '@zot/protocol';
import { RPC_VALIDATORS } from './generated/rpc-validators.js';
import { decodeRpcLine } from './rpc-decode.js';
import { RPC_REQUESTS } from './rpc-schema.js';

const SCHEMAS = RPC_REQUESTS as Record<string, TSchema>;

// At least one valid request per type, with and without the optional fields.
const VALID: Array<Record<string, unknown>> = [
  { type: 'hello' },
  { type: 'hello', id: 1, token: 'secret' },
  { type: 'prompt', message: '' },
  { type: 'prompt', id: 'p', message: 'hi', images: [] },
  { type: 'prompt', id: -1.5, message: 'hi', images: [{ mime_type: 'image/png', data: 'AAAA' }] },
  { type: 'abort', id: 2 },
  { type: 'compact' },
  { type: 'get_state', id: 'x', extra: 'kept' },
  { type: 'get_messages' },
  { type: 'clear' },
  { type: 'set_model', id: 3, model: 'm' },
  { type: 'get_sessions' },
  { type: 'abort', queue: true },
  { type: 'switch_session', id: 4, path: '/tmp/s.jsonl' },
  { type: 'get_models' },
  { type: 'ping', id: 1 },
  { type: 'get_commands' },
  { type: 'command', text: '/weather berlin' },
  { type: 'command', id: 'c', text: '/' },
  { type: 'reload_extensions' },
  { type: 'panel_key', panel_id: 'p', key: 'up' },
  { type: 'panel_key', panel_id: 'p', key: 'x', text: '' },
  { type: 'confirm', tool_id: 't', decision: 'allow' },
  { type: 'confirm', tool_id: 't', decision: 'allow_tool_session' },
  { type: 'confirm', tool_id: 't', decision: 'allow_all_session' },
  { type: 'confirm', tool_id: 't', decision: 'deny' },
  { type: 'panel_close', panel_id: 'p' },
  { type: 'list_checkpoints' },
  { type: 'rewind', turn: 1 },
  { type: 'rewind', id: 9, turn: 3, force: true },
  { type: 'list_branches' },
  { type: 'switch_branch', branch: 2 },
  { type: 'fork' },
  { type: 'fork', messages: 4 },
  { type: 'clone' },
  { type: 'merge_branch', branch: 1 },
  { type: 'merge_branch', branch: 1, messages: 50 },
  { type: 'ui_response', id: 'ui-1', value: true },
  { type: 'ui_response', id: 'ui-2', value: 'main' },
  { type: 'ui_response', id: 'ui-3', cancelled: true },
];

// Hand-picked invalid requests and the error decodeRpcLine gives each.
const INVALID: Array<[Record<string, unknown>, string]> = [
  [{ type: 'prompt', id: 'm', message: 42 }, 'prompt: /message must be a string'],
  [{ type: 'prompt' }, 'prompt: /message is required'],
  [{ type: 'prompt', id: null, message: 'x' }, 'prompt: /id must be a string or a number'],
  [{ type: 'prompt', message: 'x', images: {} }, 'prompt: /images must be an array'],
  [
    { type: 'prompt', message: 'x', images: [{ mime_type: '', data: '' }] },
    'prompt: /images/0/mime_type must be a non-empty string',
  ],
  [
    { type: 'prompt', message: 'x', images: [{ mime_type: 'image/png' }] },
    'prompt: /images/0/data is required',
  ],
  [{ type: 'hello', token: 1 }, 'hello: /token must be a string'],
  [{ type: 'set_model', id: 7 }, 'set_model: /model is required'],
  [{ type: 'set_model', model: '' }, 'set_model: /model must be a non-empty string'],
  [{ type: 'switch_session' }, 'switch_session: /path is required'],
  [{ type: 'rewind' }, 'rewind: /turn is required'],
  [{ type: 'rewind', turn: 1.5 }, 'rewind: /turn must be an integer'],
  [{ type: 'rewind', turn: 1, force: 'yes' }, 'rewind: /force must be a boolean'],
  [{ type: 'switch_branch' }, 'switch_branch: /branch is required'],
  [{ type: 'switch_branch', branch: 0 }, 'switch_branch: /branch must be an integer of at least 1'],
  [
    { type: 'merge_branch', branch: 1, messages: 51 },
    'merge_branch: /messages must be an integer from 0 to 50',
  ],
  [{ type: 'command', text: 'weather' }, 'command: /text must be a string matching "^/"'],
  [{ type: 'command', text: ['/x'] }, 'command: /text must be a string matching "^/"'],
  [
    { type: 'confirm', tool_id: 't', decision: 'yes' },
    `confirm: /decision must be one of ${CONFIRM_DECISIONS.map((d) => `"${d}"`).join(', ')}`,
  ],
  [{ type: 'confirm', decision: 'deny' }, 'confirm: /tool_id is required'],
  [{ type: 'panel_key', panel_id: 'p', key: '' }, 'panel_key: /key must be a non-empty string'],
  [{ type: 'panel_close', panel_id: 5 }, 'panel_close: /panel_id must be a non-empty string'],
  [{ type: 'ui_response', value: true }, 'ui_response: /id is required'],
];

const JUNK: unknown[] = [7, 1.5, -0, Infinity, '', 'x', '/', true, null, [], ['x'], {}];

// Every copy of `value` with one member (at any depth) removed or replaced by junk.
function* corruptions(value: unknown): Generator<unknown> {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      for (const junk of JUNK) yield value.map((v, j) => (j === i ? junk : v));
      for (const inner of corruptions(value[i])) yield value.map((v, j) => (j === i ? inner : v));
    }
  } else if (typeof value === 'object' && value !== null) {
    const record = value as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      const { [key]: _dropped, ...rest } = record;
      yield rest;
      for (const junk of JUNK) yield { ...record, [key]: junk };
      for (const inner of corruptions(record[key])) yield { ...record, [key]: inner };
    }
  }
}

// Asserts the generated check agrees with Value.Check (for the request's declared type) and
// that a failure is explained; returns Value.Check's verdict.
function agree(type: string, value: unknown): boolean {
  const [schema, validator] = [SCHEMAS[type]!, RPC_VALIDATORS.get(type)!];
  const expected = Value.Check(schema, value);
  const label = `${type}: ${JSON.stringify(value)}`;
  assert.equal(validator.check(value), expected, `generated check, ${label}`);
  if (!expected) {
    const error = formatFrameError(type, validator.shape, value);
    assert.notEqual(error, `${type}: invalid frame`, `no error described, ${label}`);
  }
  return expected;
}

test('the generated table lists every request type, in RPC_REQUESTS order', () => {
  assert.deepEqual([...RPC_VALIDATORS.keys()], Object.keys(RPC_REQUESTS));
  const covered = new Set(VALID.map((r) => r.type));
  assert.deepEqual([...covered].sort(), Object.keys(RPC_REQUESTS).sort(), 'a sample per type');
});

test('generated checks agree with Value.Check on valid requests', () => {
  for (const request of VALID) {
    assert.equal(agree(String(request.type), request), true, JSON.stringify(request));
    const decoded = decodeRpcLine(JSON.stringify(request));
    assert.deepEqual(decoded, { ok: true, request });
  }
});

test('generated checks agree with Value.Check on invalid requests and on corruptions', () => {
  let invalid = 0;
  for (const request of [...VALID, ...INVALID.map(([r]) => r)]) {
    const type = String(request.type);
    if (!agree(type, request)) invalid++;
    for (const corrupted of corruptions(request)) {
      // A corrupted `type` is checked against the original type's schema.
      if (!agree(type, corrupted)) invalid++;
    }
    for (const value of [undefined, null, 'x', 1, [], [request]]) agree(type, value);
  }
  assert.ok(invalid > 500, `only ${invalid} invalid requests exercised`);
});

test('decodeRpcLine names the request, the field and the problem', () => {
  for (const [request, error] of INVALID) {
    const decoded = decodeRpcLine(JSON.stringify(request));
    const id = request.id;
    const withId = typeof id === 'string' || typeof id === 'number' ? { id } : {};
    assert.deepEqual(decoded, { ok: false, ...withId, command: request.type, error });
  }
});

test('decodeRpcLine: bad JSON, non-objects, missing or unknown types', () => {
  const bad = decodeRpcLine('this is not json');
  assert.equal(bad.ok, false);
  assert.match(!bad.ok ? bad.error : '', /^invalid JSON: /);
  assert.deepEqual(decodeRpcLine('[1,2]'), {
    ok: false,
    command: 'unknown',
    error: 'each line must be a JSON object',
  });
  assert.deepEqual(decodeRpcLine('{"id":3}'), {
    ok: false,
    id: 3,
    command: 'unknown',
    error: 'missing "type"',
  });
  const known = Object.keys(RPC_REQUESTS).join(', ');
  for (const type of ['teleport', '__proto__', 'toString', 'constructor']) {
    assert.deepEqual(decodeRpcLine(JSON.stringify({ id: 'u', type })), {
      ok: false,
      id: 'u',
      command: type,
      error: `unknown command "${type}" (known: ${known})`,
    });
  }
});
