import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { checkSchema } from './schema-check.js';
import { loadValidator, validateArgs } from './validate.js';

const obj = (extra: Record<string, unknown>) => ({ type: 'object', ...extra });

// Schemas the registration check accepts must also compile for argument validation, and the
// ones it rejects must be ones that validation could not have used: the two layers agree.
const GOOD: Array<Record<string, unknown>> = [
  obj({ properties: { s: { type: 'string', pattern: '^[a-z]+\\/x$' } } }),
  obj({ patternProperties: { '^x-': { type: 'number' } } }),
  obj({ properties: { s: { pattern: '^(a|aa)+$' } } }),
  obj({ definitions: { n: { type: 'number' } }, properties: { a: { $ref: '#/definitions/n' } } }),
  obj({ $defs: { 'a/b': { type: 'number' } }, properties: { a: { $ref: '#/$defs/a~1b' } } }),
  obj({ properties: { self: { $ref: '#' } } }),
  obj({ definitions: { n: { $id: '#num', type: 'number' } }, properties: { a: { $ref: '#num' } } }),
  obj({
    items: [{ pattern: '\\d+' }],
    properties: { p: { type: 'string' }, q: { anyOf: [{ $ref: '#/properties/p' }] } },
  }),
];

const BAD: Array<[Record<string, unknown>, RegExp]> = [
  [obj({ properties: { s: { type: 'string', pattern: '(a' } } }), /pattern/],
  [obj({ properties: { s: { pattern: '(a)\\1' } } }), /not supported/],
  [obj({ properties: { s: { pattern: '(?<=a)b' } } }), /not supported/],
  [obj({ patternProperties: { '(x': { type: 'number' } } }), /patternProperties/],
  [obj({ properties: { a: { $ref: '#/definitions/missing' } } }), /cannot resolve/],
  [obj({ properties: { a: { $ref: 'https://example.com/s.json' } } }), /cannot resolve/],
  [obj({ allOf: [{ properties: { a: { $ref: '#nowhere' } } }] }), /cannot resolve/],
];

// Schemas whose validation would recurse on the same value until the stack runs out.
const ENDLESS: Array<Record<string, unknown>> = [
  obj({ not: { $ref: '' } }),
  obj({ $ref: '#' }),
  obj({
    definitions: {
      a: { allOf: [{ $ref: '#/definitions/b' }] },
      b: { anyOf: [{ $ref: '#/definitions/a' }] },
    },
    properties: { x: { $ref: '#/definitions/a' } },
  }),
  obj({ definitions: { n: { $id: '#n', if: { $ref: '#n' } } } }),
];

test('schemas accepted at registration compile for validation', async () => {
  await loadValidator();
  for (const schema of GOOD) {
    assert.equal(checkSchema(schema), undefined, JSON.stringify(schema));
    const result = validateArgs('t', schema, {});
    assert.equal(
      result?.includes('invalid schema') ?? false,
      false,
      `${JSON.stringify(schema)}: ${result}`,
    );
  }
});

test('bad patterns and unresolvable references are rejected at registration, naming where', async () => {
  await loadValidator();
  for (const [schema, why] of BAD) {
    const problem = checkSchema(schema);
    assert.match(problem ?? '', why, JSON.stringify(schema));
    assert.match(validateArgs('t', schema, {}) ?? '', /invalid schema/, JSON.stringify(schema));
  }
  assert.match(checkSchema(BAD[0]![0]) ?? '', /^\/properties\/s\/pattern: /);
});

test('references that loop on the same value are rejected; loops through the data are fine', async () => {
  await loadValidator();
  for (const schema of ENDLESS)
    assert.match(
      checkSchema(schema) ?? '',
      /references itself without descending/,
      JSON.stringify(schema),
    );
  const tree = obj({ properties: { children: { type: 'array', items: { $ref: '#' } } } });
  assert.equal(checkSchema(tree), undefined);
  assert.equal(validateArgs('t', tree, { children: [{ children: [] }] }), undefined);
  // Even if such a schema reached validation, the error would be a result, not a crash.
  assert.match(validateArgs('t', ENDLESS[0]!, {}) ?? '', /cannot be evaluated/);
});

test('prototype-named keys in a schema or in arguments are data: compared, never called', async () => {
  await loadValidator();
  // Ajv's own deep equality called an entry's own toString/valueOf; ours reads them as keys.
  const twoObjects = obj({ enum: [{ toString: [1] }, { toString: [2] }] });
  assert.equal(checkSchema(twoObjects), undefined);
  const same = obj({
    enum: [
      { valueOf: [1], a: 1 },
      { a: 1, valueOf: [1] },
    ],
  });
  assert.match(checkSchema(same) ?? '', /\/enum must NOT have duplicate items/);
  const unique = obj({ properties: { l: { type: 'array', uniqueItems: true } } });
  assert.equal(validateArgs('t', unique, { l: [{ valueOf: 1 }, { valueOf: 2 }] }), undefined);
  assert.match(
    validateArgs('t', unique, JSON.parse('{"l":[{"__proto__":1},{"toJSON":2},{"__proto__":1}]}')) ??
      '',
    /must NOT have duplicate items/,
  );
});

test('a catastrophic pattern is evaluated in linear time (no ReDoS)', async () => {
  await loadValidator();
  const schema = obj({
    properties: { s: { type: 'string', pattern: '^(a|aa)+$' } },
    patternProperties: { '^k(a|aa)+$': { type: 'string' } },
  });
  // On a backtracking engine this call does not return for hours.
  const hostile = 'a'.repeat(60) + '!';
  assert.match(validateArgs('t', schema, { s: hostile }) ?? '', /must match pattern/);
  assert.equal(validateArgs('t', schema, { s: 'aaaa', [`k${hostile}`]: 1 }), undefined);
  assert.match(validateArgs('t', schema, { [`k${'a'.repeat(61)}`]: 1 }) ?? '', /must be string/);
});

test('distinct patterns in one validator stay distinct', async () => {
  await loadValidator();
  // Ajv caches compiled patterns by their string form; a shared form would mix them up.
  const first = obj({ patternProperties: { '^x(y|yy)+$': { type: 'number' } } });
  const second = obj({ patternProperties: { '^xy': { type: 'boolean' } } });
  assert.match(validateArgs('a', first, { xyy: 's' }) ?? '', /must be number/);
  assert.match(validateArgs('b', second, { xyz: 's' }) ?? '', /must be boolean/);
});
