// Random tool schemas for register_tool: valid and broken JSON Schema keywords, bad `pattern`s,
// dangling and cyclic `$ref`s, random nesting, and text-built nesting at and past the depth bound.
import { record, type Tree } from './json-text.js';
import type { Rng } from './prng.js';
import { PROTO_KEYS, key, value, wrongType, type Limits } from './values.js';

const TYPES = ['object', 'string', 'number', 'integer', 'boolean', 'array', 'null', 'any', ''];
/** Patterns JavaScript rejects, accepts only without the `u` flag, or runs slowly on. */
const PATTERNS = [
  '^[a-z]+$',
  '(',
  '[',
  ')',
  '\\',
  '*a',
  'a{2,1}',
  '(?<n>a)\\k<m>',
  '\\p{Foo}',
  '\\c',
  '[z-a]',
  '(?<=a',
  '\\u{110000}',
  '(a+)+$',
  '(a|a)*$',
  '\0',
  '',
  '.'.repeat(1000),
];
const REFS = [
  '#',
  '#/definitions/a',
  '#/definitions/b',
  '#/$defs/none',
  '#/properties/x',
  '#/properties/__proto__',
  'other.json#/a',
  'http://example.com/schema',
  'urn:x',
  '#/definitions/a/properties/self',
  '%',
  '#/../..',
  '',
];
const FORMATS = ['date-time', 'email', 'no-such-format', 'regex', '', '__proto__'];

/** A random schema up to `depth` schema levels: mostly plausible, often subtly broken. */
export function schema(rng: Rng, limits: Limits, depth: number): Tree {
  const entries: Array<[string, Tree]> = [];
  const add = (name: string, make: () => Tree) => entries.push([name, make()]);
  if (rng.chance(0.7))
    add('type', () => (rng.chance(0.9) ? rng.pick(TYPES) : [rng.pick(TYPES), 'null']));
  const sub = () => (depth > 0 ? schema(rng, limits, depth - 1) : rng.chance(0.5) ? {} : true);
  const subs = () => Array.from({ length: rng.range(0, 3) }, sub);
  const named = () => {
    const props: Array<[string, Tree]> = [];
    for (let i = rng.size(5); i > 0; i--) props.push([key(rng, ['a', 'b', 'x', 'self']), sub()]);
    return record(props);
  };
  for (let i = rng.range(0, 5); i > 0; i--) {
    rng.weighted<void>([
      [4, () => add('properties', named)],
      [2, () => add('items', () => (rng.chance(0.8) ? sub() : subs()))],
      [2, () => add('required', () => (rng.chance(0.7) ? ['a', 'x'] : value(rng, limits, 2)))],
      [2, () => add('additionalProperties', () => (rng.chance(0.5) ? rng.chance(0.5) : sub()))],
      [3, () => add('pattern', () => rng.pick(PATTERNS))],
      [1, () => add('patternProperties', () => record([[rng.pick(PATTERNS), sub()]]))],
      [3, () => add('$ref', () => rng.pick(REFS))],
      [
        2,
        () =>
          add(rng.pick(['definitions', '$defs']), () =>
            record([
              ['a', sub()],
              ['b', record([['$ref', '#/definitions/a']])],
            ]),
          ),
      ],
      [
        1,
        () => add('$id', () => rng.pick(['', '#a', 'http://x/y', 'not a uri', 'urn:x', 'urn:a:b'])),
      ],
      [
        1,
        () =>
          add('$schema', () =>
            rng.pick([
              'http://json-schema.org/draft-07/schema#',
              'https://json-schema.org/draft/2020-12/schema',
              'http://json-schema.org/schema',
              'urn:x',
              '',
            ]),
          ),
      ],
      [1, () => add(rng.pick(['minProperties', 'maxProperties']), () => rng.range(0, 3))],
      [2, () => add(rng.pick(['allOf', 'anyOf', 'oneOf']), subs)],
      [1, () => add('not', sub)],
      [1, () => add('if', sub)],
      [1, () => add('then', sub)],
      [1, () => add('enum', () => (rng.chance(0.7) ? [1, 'a', null] : value(rng, limits, 2)))],
      [1, () => add('const', () => value(rng, limits, 2))],
      [1, () => add('format', () => rng.pick(FORMATS))],
      [
        1,
        () =>
          add(rng.pick(['minimum', 'maxLength', 'minItems', 'multipleOf']), () =>
            wrongType(rng, limits, 1),
          ),
      ],
      [1, () => add('default', () => value(rng, limits, 2))],
      [1, () => add(rng.pick(PROTO_KEYS), () => value(rng, limits, 2))],
      [1, () => add(key(rng), () => value(rng, limits, 2))],
    ]);
  }
  return record(entries);
}

/**
 * A register_tool line whose total JSON depth is exactly `jsonDepth` (at least 3): a chain of
 * schema levels, `properties` (two JSON levels each) or `items` (one), built as text.
 */
export function deepToolLine(rng: Rng, jsonDepth: number): string {
  const open: string[] = [];
  let closing = 0;
  // The frame is one level and the innermost schema {"type":"string"} another. The outermost
  // schema describes an object, so checkTool gets as far as the meta-schema check.
  let remaining = jsonDepth - 2;
  while (remaining > 0) {
    if (remaining >= 2 && (open.length === 0 || rng.chance(0.6))) {
      open.push('{"type":"object","properties":{"a":');
      closing += 2;
      remaining -= 2;
    } else {
      open.push('{"type":"array","items":');
      closing += 1;
      remaining -= 1;
    }
  }
  const body = `${open.join('')}{"type":"string"}${'}'.repeat(closing)}`;
  return `{"type":"register_tool","name":"deep","schema":${body}}`;
}
