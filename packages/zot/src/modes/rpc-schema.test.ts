// Every RPC request has a typed response: its data is described all the way down, never left
// as "any JSON" (except inside the values of a record, such as a tool call's arguments).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Kind, Type, type TSchema } from '@sinclair/typebox';
import { RPC_REQUESTS, RPC_RESPONSES } from './rpc-schema.js';
import { rpcSchemaDocument } from './rpc-schema-document.js';

/** Paths below `schema` where any value at all is allowed. */
function untyped(schema: TSchema, path: string, inRecord = false): string[] {
  const kind = (schema as { [Kind]?: string })[Kind];
  if (kind === 'Unknown' || kind === 'Any') return inRecord ? [] : [path];
  const found: string[] = [];
  const properties = (schema.properties ?? {}) as Record<string, TSchema>;
  for (const [key, value] of Object.entries(properties))
    found.push(...untyped(value, `${path}.${key}`));
  for (const [i, member] of ((schema.anyOf ?? []) as TSchema[]).entries())
    found.push(...untyped(member, `${path}|${i}`));
  for (const [i, member] of ((schema.allOf ?? []) as TSchema[]).entries())
    found.push(...untyped(member, `${path}&${i}`));
  if (schema.items) found.push(...untyped(schema.items as TSchema, `${path}[]`));
  const patterns = (schema.patternProperties ?? {}) as Record<string, TSchema>;
  for (const value of Object.values(patterns)) found.push(...untyped(value, `${path}{}`, true));
  if (kind === 'Object' && schema.additionalProperties === true) found.push(`${path}{...}`);
  return found;
}

test('every request type has exactly one response definition', () => {
  assert.deepEqual(Object.keys(RPC_RESPONSES), Object.keys(RPC_REQUESTS));
  const defs = rpcSchemaDocument().$defs as Record<string, unknown>;
  for (const type of Object.keys(RPC_REQUESTS)) {
    assert.ok(defs[`${type}_request`], `${type}_request`);
    assert.ok(defs[`${type}_response`], `${type}_response`);
  }
});

test('no response data is Unknown, at the top or anywhere below', () => {
  for (const [type, data] of Object.entries(RPC_RESPONSES)) {
    if (data === null) continue;
    assert.notEqual((data as { [Kind]?: string })[Kind], 'Unknown', type);
    assert.deepEqual(untyped(data, type), [], `${type}: untyped data`);
  }
});

test('the check finds untyped data where it is planted', () => {
  const planted = Type.Object({
    ok: Type.String(),
    list: Type.Array(Type.Object({ value: Type.Unknown() })),
    either: Type.Union([Type.Number(), Type.Any()]),
    args: Type.Record(Type.String(), Type.Unknown()),
  });
  assert.deepEqual(untyped(planted, 'p'), ['p.list[].value', 'p.either|1']);
  assert.deepEqual(untyped(Type.Unknown(), 'top'), ['top']);
});

test('the published document has no response whose data is {} (any JSON)', () => {
  const defs = rpcSchemaDocument().$defs as Record<string, { properties?: { data?: object } }>;
  for (const type of Object.keys(RPC_REQUESTS)) {
    const data = defs[`${type}_response`]!.properties?.data;
    if (data !== undefined) assert.notDeepEqual(data, {}, type);
  }
});
