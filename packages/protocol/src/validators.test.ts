// The generated validators (src/generated/validators.ts) agree with TypeBox's own Value.Check
// on valid frames and on every single-field corruption of them, and come out the same in any process
// (that the committed file is current is `gen-schema --check`, run by `npm test`).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { Type, type TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { compileCheck, generateValidatorsSource, shapeOf } from './codegen.js';
import { conformsToShape, formatFrameError, type FrameValidator } from './errors.js';
import { FROM_EXTENSION, FROM_HOST } from './frame-samples.fixture.js';
import { VALIDATORS_FROM_EXTENSION, VALIDATORS_FROM_HOST } from './generated/validators.js';
import { FRAME_SCHEMAS_FROM_EXTENSION, FRAME_SCHEMAS_FROM_HOST } from './schemas.js';
import { SPEC_EXAMPLES_FROM_EXTENSION, SPEC_EXAMPLES_FROM_HOST } from './spec-examples.fixture.js';

const DIRECTIONS = [
  {
    name: 'extension → host',
    schemas: FRAME_SCHEMAS_FROM_EXTENSION as Record<string, TSchema>,
    validators: VALIDATORS_FROM_EXTENSION,
    valid: [...SPEC_EXAMPLES_FROM_EXTENSION.map((line) => JSON.parse(line)), ...FROM_EXTENSION],
  },
  {
    name: 'host → extension',
    schemas: FRAME_SCHEMAS_FROM_HOST as Record<string, TSchema>,
    validators: VALIDATORS_FROM_HOST,
    valid: [...SPEC_EXAMPLES_FROM_HOST.map((line) => JSON.parse(line)), ...FROM_HOST],
  },
] as const;

// Hand-picked invalid frames (beyond the corruptions generated below).
const INVALID: Record<string, unknown[]> = {
  tool_result: [
    { type: 'tool_result' },
    { type: 'tool_result', id: '1', content: [{ type: 'audio' }] },
    { type: 'tool_result', id: '1', content: [{ text: 'no type' }] },
    { type: 'tool_result', id: '1', content: [{ type: 'text' }, { type: 'image', data: 5 }] },
    { type: 'tool_result', id: '1', content: {} },
    { type: 'tool_result', id: '1', activate_tools: [null] },
  ],
  hello: [
    { type: 'hello', name: null },
    { type: 'hello', name: 'x', capabilities: 'tools' },
  ],
  command_response: [{ type: 'command_response', id: '1', open_panel: { id: 1 } }],
  notify: [{ type: 'notify', level: 'INFO' }],
  event: [
    { type: 'event' },
    { type: 'event', event: 'turn_start', step: 1.5 },
    { type: 'event', event: 'tool_call', tool_args: [] },
    { type: 'event', event: 'turn_end', stop: null },
  ],
  event_intercept: [{ type: 'event_intercept', event: 'tool_call' }],
  hello_ack: [{ type: 'hello_ack' }, { type: 'hello_ack', protocol_version: Infinity }],
  panel_key: [{ type: 'panel_key', panel_id: 'p' }],
};

const JUNK: unknown[] = [7, 1.5, -0, '', 'x', true, null, [], ['x'], [1], {}, { type: 'text' }];

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

function agree(type: string, schema: TSchema, validator: FrameValidator, value: unknown): boolean {
  const expected = Value.Check(schema, value);
  const label = `${type}: ${JSON.stringify(value)}`;
  assert.equal(validator.check(value), expected, `generated check, ${label}`);
  assert.equal(conformsToShape(validator.shape, value), expected, `shape walk, ${label}`);
  if (!expected) {
    const error = formatFrameError(type, validator.shape, value);
    assert.notEqual(error, `${type}: invalid frame`, `no error described, ${label}`);
  }
  return expected;
}

test('the generated tables list every frame type of the schemas, in spec order', () => {
  for (const { schemas, validators } of DIRECTIONS) {
    assert.deepEqual([...validators.keys()], Object.keys(schemas));
  }
});

test('generated checks agree with Value.Check on the spec examples and the samples', () => {
  for (const { name, schemas, validators, valid } of DIRECTIONS) {
    for (const frame of valid) {
      const type = (frame as { type: string }).type;
      const [schema, validator] = [schemas[type], validators.get(type)];
      assert.ok(schema && validator, `${name}: ${type}`);
      assert.equal(agree(type, schema, validator, frame), true, `${name}: ${type} is valid`);
    }
  }
});

test('generated checks agree with Value.Check on invalid frames and on corruptions', () => {
  let invalid = 0;
  for (const { schemas, validators, valid } of DIRECTIONS) {
    const samples = [...valid, ...Object.values(INVALID).flat()];
    for (const frame of samples) {
      const type = (frame as { type: string }).type;
      const [schema, validator] = [schemas[type], validators.get(type)];
      if (schema === undefined || validator === undefined) continue; // other direction
      if (!agree(type, schema, validator, frame)) invalid++;
      for (const corrupted of corruptions(frame)) {
        if (!agree(type, schema, validator, corrupted)) invalid++;
      }
    }
  }
  assert.ok(invalid > 1000, `only ${invalid} invalid frames exercised`);
});

test('non-objects fail every generated check and its shape walk', () => {
  for (const { schemas, validators } of DIRECTIONS) {
    for (const [type, validator] of validators) {
      for (const value of [undefined, null, 'x', 1, [], [{ type }]]) {
        agree(type, schemas[type]!, validator, value);
      }
    }
  }
});

test('codegen refuses schemas the generated module could not honour', () => {
  assert.throws(() => shapeOf(Type.String({ format: 'email' }), 'S'), /keyword "format"/);
  assert.throws(
    () => shapeOf(Type.Integer({ exclusiveMinimum: 1 }), 'I'),
    /keyword "exclusiveMinimum"/,
  );
  assert.throws(() => shapeOf(Type.Array(Type.Null(), { maxItems: 1.5 }), 'A'), /maxItems 1.5/);
  assert.throws(() => shapeOf(Type.Number({ minimum: Infinity }), 'N'), /minimum/);
  assert.throws(() => shapeOf(Type.String({ minLength: 0.5 }), 'S'), /minLength 0.5/);
  assert.throws(() => shapeOf(Type.String({ pattern: '(' }), 'S'), /Invalid regular expression/);
  assert.throws(() => shapeOf(Type.Object({}, { additionalProperties: false }), 'O'), /keyword/);
  assert.throws(() => shapeOf(Type.Date(), 'D'), /kind Date/);
  const hoisted = Type.Object({ a: Type.String() }, { $id: 'A' });
  assert.throws(() => compileCheck(hoisted, 'A'), /hoisted helpers/);
});

test('the generated module is the same in a fresh process as after this process’s work', () => {
  // This process has compiled and checked every schema above; a generation that depended on
  // that state, on the clock or on chance would differ from one in a new process.
  generateValidatorsSource();
  const here = generateValidatorsSource();
  const codegen = new URL('./codegen.js', import.meta.url).href;
  const fresh = spawnSync(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `process.stdout.write((await import(${JSON.stringify(codegen)})).generateValidatorsSource())`,
    ],
    { encoding: 'utf8' },
  );
  assert.equal(fresh.status, 0, fresh.stderr);
  assert.equal(here, fresh.stdout);
  // A schema shared by both directions is emitted once, and every row names an emitted check.
  const defined = [...here.matchAll(/^function (check\w+)\(/gm)].map((m) => m[1]);
  const used = [...here.matchAll(/\{ check: (check\w+), shape: /g)].map((m) => m[1]);
  assert.equal(new Set(defined).size, defined.length, 'no check is emitted twice');
  assert.deepEqual(new Set(used), new Set(defined));
  assert.ok(used.length > defined.length, 'some rows share a check');
});
