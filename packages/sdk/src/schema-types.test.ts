// FromSchema at compile time: these assignments type-check only if inference is right.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ArgsOf, FromSchema } from './index.js';

type Equal<A, B> =
  (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const check = <T extends true>(value: T) => value;

test('FromSchema infers objects, required keys, scalars, arrays, enums and const', () => {
  const schema = {
    type: 'object',
    properties: {
      s: { type: 'string' },
      n: { type: 'number' },
      i: { type: 'integer' },
      b: { type: 'boolean' },
      list: { type: 'array', items: { type: 'string' } },
      any: { type: 'array' },
      e: { enum: ['a', 'b'] },
      c: { const: 7 },
      nested: { type: 'object', properties: { x: { type: 'number' } }, required: ['x'] },
      free: { type: 'object' },
      nullable: { type: ['string', 'null'] },
    },
    required: ['s', 'list'],
  } as const;
  type Args = FromSchema<typeof schema>;
  check<
    Equal<
      Args,
      {
        s: string;
        list: string[];
        n?: number;
        i?: number;
        b?: boolean;
        any?: unknown[];
        e?: 'a' | 'b';
        c?: 7;
        nested?: { x: number };
        free?: Record<string, unknown>;
        nullable?: string | null;
      }
    >
  >(true);
  check<Equal<ArgsOf<{ type: 'object' }>, Record<string, unknown>>>(true);
  check<Equal<ArgsOf<Record<string, unknown>>, Record<string, unknown>>>(true);
  check<Equal<FromSchema<{ description: 'x' }>, unknown>>(true);
  assert.ok(true);
});
