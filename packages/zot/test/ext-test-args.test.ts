// The argument generator of `zot ext test`: made-up arguments pass zot's own validator, invalid
// ones fail it, and schemas it cannot satisfy trivially are skipped with a reason.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadValidator, validateArgs } from '../src/agent/validate.js';
import { invalidArgs, validArgs } from '../src/conformance/args.js';

const cases: Array<[string, Record<string, unknown>]> = [
  ['empty', {}],
  ['no type, properties only', { properties: { a: { type: 'string' } }, required: ['a'] }],
  [
    'types',
    {
      type: 'object',
      properties: {
        s: { type: 'string', minLength: 3, maxLength: 5 },
        i: { type: 'integer', minimum: 10, maximum: 20, multipleOf: 3 },
        n: { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 1 },
        b: { type: 'boolean' },
        z: { type: 'null' },
        e: { enum: ['red', 'green'] },
        c: { const: 7 },
        u: { type: ['null', 'string'] },
        a: { type: 'array', items: { type: 'integer', minimum: 2 }, minItems: 2 },
        o: { type: 'object', properties: { x: { type: 'number', maximum: -5 } }, required: ['x'] },
      },
      required: ['s', 'i', 'n', 'b', 'z', 'e', 'c', 'u', 'a', 'o'],
      additionalProperties: false,
    },
  ],
  [
    'formats and patterns',
    {
      type: 'object',
      properties: {
        when: { type: 'string', format: 'date-time' },
        mail: { type: 'string', format: 'email' },
        slug: { type: 'string', pattern: '^[a-z][a-z0-9-]*$' },
        digits: { type: 'string', pattern: '^\\d+$', maxLength: 3 },
        version: { type: 'string', pattern: '^\\d+\\.\\d+\\.\\d+$' },
      },
      required: ['when', 'mail', 'slug', 'digits', 'version'],
    },
  ],
  [
    '$ref, allOf, anyOf, oneOf',
    {
      type: 'object',
      definitions: { id: { type: 'integer', minimum: 1 } },
      properties: {
        id: { $ref: '#/definitions/id' },
        both: { allOf: [{ type: 'string' }, { minLength: 2 }] },
        either: { anyOf: [{ type: 'null' }, { type: 'number' }] },
        one: { oneOf: [{ type: 'string', maxLength: 1 }, { type: 'boolean' }] },
      },
      required: ['id', 'both', 'either', 'one'],
    },
  ],
  ['minProperties', { type: 'object', properties: { a: { type: 'integer' } }, minProperties: 1 }],
];

for (const [name, schema] of cases) {
  test(`valid and invalid arguments: ${name}`, async () => {
    await loadValidator();
    const valid = await validArgs('t', schema);
    assert.ok(valid.ok, valid.ok ? '' : valid.reason);
    assert.equal(validateArgs('t', schema, valid.value), undefined);
    const invalid = await invalidArgs('t', schema, valid.value);
    if (name === 'empty') {
      assert.ok(!invalid.ok);
      assert.match(invalid.reason, /accepts any object/);
      return;
    }
    assert.ok(invalid.ok, invalid.ok ? '' : invalid.reason);
    assert.notEqual(validateArgs('t', schema, invalid.value), undefined);
    assert.ok(invalid.why);
  });
}

test('schemas that cannot be satisfied trivially are skipped with the reason', async () => {
  const pattern = await validArgs('t', {
    type: 'object',
    properties: { key: { type: 'string', pattern: '^sk-[A-Za-z0-9]{48}$' } },
    required: ['key'],
  });
  assert.ok(!pattern.ok);
  assert.match(pattern.reason, /key: pattern "\^sk-.*" is not trivially satisfiable/);

  const bounds = await validArgs('t', {
    type: 'object',
    properties: { n: { type: 'integer', minimum: 5, maximum: 4 } },
    required: ['n'],
  });
  assert.ok(!bounds.ok);
  assert.match(bounds.reason, /n: no number fits its bounds/);

  const never = await validArgs('t', {
    type: 'object',
    properties: { x: false },
    required: ['x'],
  });
  assert.ok(!never.ok);

  // Generated, but refused by the validator (uniqueItems): reported, not sent.
  const unique = await validArgs('t', {
    type: 'object',
    properties: { l: { type: 'array', items: { const: 1 }, minItems: 2, uniqueItems: true } },
    required: ['l'],
  });
  assert.ok(!unique.ok);
  assert.match(unique.reason, /were refused/);
});

test('a deeply self-referencing schema ends the walk instead of recursing forever', async () => {
  const schema = {
    type: 'object',
    definitions: {
      node: {
        type: 'object',
        properties: { next: { $ref: '#/definitions/node' } },
        required: ['next'],
      },
    },
    properties: { root: { $ref: '#/definitions/node' } },
    required: ['root'],
  };
  const made = await validArgs('t', schema);
  assert.ok(!made.ok);
  assert.match(made.reason, /nested deeper than/);
});
