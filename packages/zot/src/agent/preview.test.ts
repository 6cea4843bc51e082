import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PREVIEW_JSON_CHARS, previewCall } from './preview.js';
import type { Tool } from './tool.js';

const tool = (preview?: Tool['preview']): Tool => ({
  name: 't',
  description: '',
  parameters: { type: 'object' },
  execute: async () => ({ content: [] }),
  ...(preview ? { preview } : {}),
});

test("previewCall: the tool's own preview, on one line", () => {
  assert.equal(
    previewCall(
      tool((args) => String(args.path)),
      { path: 'a.ts' },
    ),
    'a.ts',
  );
  assert.equal(
    previewCall(
      tool(() => 'cd x\n  make\r\nok'),
      {},
    ),
    'cd x ↵ make ↵ ok',
  );
});

test('previewCall: unknown tools, tools without a preview, throwing or non-string previews give compact JSON', () => {
  const args = { command: 'ls', n: 1 };
  const json = '{"command":"ls","n":1}';
  assert.equal(previewCall(undefined, args), json);
  assert.equal(previewCall(tool(), args), json);
  assert.equal(
    previewCall(
      tool(() => {
        throw new Error('boom');
      }),
      args,
    ),
    json,
  );
  assert.equal(previewCall(tool((() => 42) as unknown as Tool['preview']), args), json);
});

test('previewCall: long JSON is cut, and values JSON cannot show do not throw', () => {
  const long = previewCall(undefined, { content: 'x'.repeat(500) });
  assert.equal(long.length, PREVIEW_JSON_CHARS);
  assert.ok(long.startsWith('{"content":"xxx') && long.endsWith('…'));
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  assert.equal(previewCall(undefined, cyclic), '{…}');
  assert.equal(previewCall(undefined, { n: 1n }), '{…}');
});
