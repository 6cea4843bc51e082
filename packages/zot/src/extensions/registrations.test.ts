// register_tool checks: a schema no call could pass is refused when it is registered, saying
// why, instead of failing every call later; sizes are bounded before anything walks the schema.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RegisterToolFrame } from '@zot/protocol';
import { loadValidator, validateArgs } from '../agent/validate.js';
import { checkTool, loadSchemaCheck, REGISTRATION_LIMITS } from './registrations.js';

await loadSchemaCheck(); // loaded on first need in zot (see loadSchemaCheck)

const tool = (schema: Record<string, unknown>, description = 'd'): RegisterToolFrame => ({
  type: 'register_tool',
  name: 't',
  description,
  schema,
});

const refusal = (schema: Record<string, unknown>) => {
  const result = checkTool(tool(schema));
  return typeof result === 'string' ? result : undefined;
};

test('a $schema naming a meta-schema zot does not check against is refused', async () => {
  for (const dialect of [
    'https://json-schema.org/draft/2020-12/schema',
    'http://json-schema.org/draft-04/schema#',
    'https://example.com/mine',
  ]) {
    assert.match(
      refusal({ $schema: dialect, type: 'object' }) ?? '',
      /"\$schema" is .*: it checks tool schemas as JSON Schema draft-07; remove "\$schema"/,
    );
  }
  await loadValidator();
  for (const dialect of [
    'http://json-schema.org/draft-07/schema#',
    'http://json-schema.org/schema',
  ]) {
    const result = checkTool(tool({ $schema: dialect, type: 'object' }));
    assert.equal(typeof result, 'object', dialect);
    if (typeof result === 'object') assert.equal(validateArgs('t', result.schema, {}), undefined);
  }
});

test('a schema that no arguments object can match is refused, naming the contradiction', () => {
  const cases: Array<[Record<string, unknown>, RegExp]> = [
    [
      { anyOf: [{ type: 'string' }] },
      /\/anyOf: no branch accepts an object \(\/anyOf\/0\/type is "string"\)/,
    ],
    [{ oneOf: [{ type: 'array' }, false] }, /\/oneOf: no branch accepts an object/],
    [{ not: {} }, /\/not refuses every value/],
    [{ not: { type: 'object', description: 'x' } }, /\/not refuses every object/],
    [{ enum: ['a', 1] }, /\/enum lists no object/],
    [{ const: 'x' }, /\/const is not an object/],
    [
      { type: 'object', allOf: [{ type: ['string', 'null'] }] },
      /\/allOf\/0\/type allows "string", "null"/,
    ],
    [
      { type: 'object', required: ['a'], properties: { a: false } },
      /property "a" is required \(\(schema\)\) but \/properties\/a allows no value/,
    ],
    [
      { allOf: [{ required: ['a'] }, { properties: { b: {} }, additionalProperties: false }] },
      /property "a" is required \(\/allOf\/0\) but \/allOf\/1 allows no such property/,
    ],
    [{ required: ['a', 'b'], maxProperties: 1 }, /maxProperties is 1, below the 2 properties/],
    [
      { $ref: '#/definitions/s', definitions: { s: { type: 'string' } } },
      /\/\$ref\/type is "string"/,
    ],
    [
      { type: 'object', properties: { a: { $id: 'urn:x:a' }, b: { $id: 'urn:x:a' } } },
      /\$id: "urn:x:a" names two schemas/,
    ],
  ];
  for (const [schema, expected] of cases) {
    assert.match(refusal(schema) ?? 'accepted', expected, JSON.stringify(schema));
  }
});

test('what Ajv cannot compile is refused at registration, not at every call', async () => {
  // Each of these passed registration once and then failed every call of the tool.
  assert.match(
    refusal({ type: 'object', properties: { a: { id: 'x', type: 'string' } } }) ?? '',
    /\/properties\/a\/id: "id" is draft-04's keyword; draft-07 names it "\$id"/,
  );
  assert.match(
    refusal({ type: 'object', $id: 'urn:x' }) ?? '',
    /\$id: "urn:x" is not a URI zot can resolve \(URN without nid/,
  );
  // Two tools may share an `$id` (a generator's default): each still validates its calls.
  await loadValidator();
  const shared = () => ({
    $id: 'urn:tool:input',
    type: 'object',
    properties: { n: { type: 'number' } },
  });
  for (const name of ['one', 'two']) {
    const result = checkTool({ ...tool(shared()), name });
    assert.equal(typeof result, 'object');
    if (typeof result !== 'object') continue;
    assert.equal(validateArgs(name, result.schema, { n: 1 }), undefined, name);
    assert.match(validateArgs(name, result.schema, { n: 'x' }) ?? '', /must be number/, name);
  }
});

test('schemas some object matches stay accepted', () => {
  const accepted: Array<Record<string, unknown>> = [
    { anyOf: [{ type: 'string' }, { type: 'object' }] },
    { oneOf: [{ required: ['a'] }, { required: ['b'] }] },
    { not: { type: 'string' } },
    { not: { required: ['x'] } },
    { enum: [{ a: 1 }, 'x'] },
    { const: {} },
    { required: ['a'], properties: { a: { not: { type: 'string' } } } },
    { required: ['a'], patternProperties: { '^a$': {} }, additionalProperties: false },
    { allOf: [{ required: ['a'] }, { properties: { a: {} }, additionalProperties: false }] },
    // Recursion descends into the data: fine, and not a contradiction.
    {
      $ref: '#/definitions/node',
      definitions: {
        node: {
          type: 'object',
          properties: { kids: { type: 'array', items: { $ref: '#/definitions/node' } } },
        },
      },
    },
    { required: ['a'], maxProperties: 1 },
  ];
  for (const schema of accepted) {
    assert.equal(refusal({ type: 'object', ...schema }), undefined, JSON.stringify(schema));
  }
});

test('references that multiply a schema past the bound are refused (each value would be checked a million times)', () => {
  const ladder = (steps: number) => {
    const definitions: Record<string, unknown> = { [`d${steps}`]: { type: 'object' } };
    for (let i = 0; i < steps; i++) {
      const next = { $ref: `#/definitions/d${i + 1}` };
      definitions[`d${i}`] = { allOf: [next, next] };
    }
    return { type: 'object', definitions, $ref: '#/definitions/d0' };
  };
  assert.equal(refusal(ladder(10)), undefined);
  assert.match(refusal(ladder(20)) ?? '', /references expand it past 50000 subschemas/);
});

test('sizes are bounded before any check walks the schema', () => {
  const { schemaBytes, descriptionChars } = REGISTRATION_LIMITS;
  const big = { type: 'object', description: 'x'.repeat(schemaBytes) };
  assert.match(refusal(big) ?? '', /the schema is larger than 64 KiB as JSON/);
  const long = checkTool(tool({ type: 'object' }, 'y'.repeat(descriptionChars + 1)));
  assert.match(String(long), /the description is longer than 16384 characters/);
  const fine = checkTool(tool({ type: 'object' }, 'y'.repeat(descriptionChars)));
  assert.equal(typeof fine, 'object');
});
