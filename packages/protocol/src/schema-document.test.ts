// The JSON Schema document generated from these definitions (that the committed copy is current
// is `gen-schema --check`, run by `npm test`).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Value } from '@sinclair/typebox/value';
import { FROM_EXTENSION } from './frame-samples.fixture.js';
import { FRAME_TYPES_FROM_EXTENSION, FRAME_TYPES_FROM_HOST } from './index.js';
import { EXTENSION_PROTOCOL_SCHEMA_DOCUMENT, FRAME_SCHEMAS_FROM_EXTENSION } from './schemas.js';

test('the document has one oneOf entry per frame type and a $def per frame', () => {
  const doc = EXTENSION_PROTOCOL_SCHEMA_DOCUMENT as {
    $schema: string;
    $defs: Record<string, { oneOf?: Array<{ $ref: string }> }>;
  };
  assert.equal(doc.$schema, 'https://json-schema.org/draft/2020-12/schema');
  const fromExtension = doc.$defs['FrameFromExtension']?.oneOf ?? [];
  const fromHost = doc.$defs['FrameFromHost']?.oneOf ?? [];
  assert.equal(fromExtension.length, FRAME_TYPES_FROM_EXTENSION.length);
  assert.equal(fromHost.length, FRAME_TYPES_FROM_HOST.length);
  for (const { $ref } of [...fromExtension, ...fromHost]) {
    const name = $ref.replace('#/$defs/', '');
    assert.ok(doc.$defs[name], `missing $defs/${name}`);
  }
});

test('the document is a detached plain copy: changing it changes no live frame schema', () => {
  type Def = { required?: string[]; properties?: Record<string, unknown> };
  const defs = (EXTENSION_PROTOCOL_SCHEMA_DOCUMENT as { $defs: Record<string, Def> }).$defs;
  const schema = FRAME_SCHEMAS_FROM_EXTENSION.hello;
  const def = defs[schema.title as string]!;
  assert.deepEqual(Object.getOwnPropertySymbols(def), [], 'no TypeBox symbols (Kind) in the JSON');
  const hello = FROM_EXTENSION.find((frame) => frame.type === 'hello');
  const before = JSON.stringify(schema);
  const [required, name] = [def.required, def.properties?.['name']];
  def.required = ['not_a_field'];
  def.properties!['name'] = { type: 'number' };
  try {
    assert.equal(JSON.stringify(schema), before, 'the TypeBox schema is unchanged');
    assert.equal(Value.Check(schema, hello), true, 'and still accepts a valid hello');
  } finally {
    if (required) def.required = required;
    else delete def.required;
    def.properties!['name'] = name;
  }
});
