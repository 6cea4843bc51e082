// ACP prompt content as zot's prompt, and zot's outcomes as ACP stop reasons.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { promptOf, stopReasonOf } from './content.js';
import { fenced, toolKind } from './tool-calls.js';

test('text, links, embedded text and images become one prompt; what zot cannot take is named', () => {
  const prompt = promptOf([
    { type: 'text', text: 'look at' },
    { type: 'resource_link', name: 'a b.ts', uri: 'file:///work/a%20b.ts' },
    { type: 'resource', resource: { uri: 'file:///work/c.ts', text: 'const c = 1;' } },
    { type: 'image', mimeType: 'image/png', data: 'iVBOR' },
    {
      type: 'resource',
      resource: { uri: 'file:///work/d.png', blob: 'AAAA', mimeType: 'image/png' },
    },
    { type: 'image', mimeType: 'image/tiff', data: 'xx' },
    { type: 'audio', mimeType: 'audio/wav', data: 'xx' },
    { type: 'resource', resource: { uri: 'file:///work/e.bin', blob: 'AAAA' } },
  ]);
  assert.equal(
    prompt.text,
    'look at\n@/work/a b.ts\n<context uri="file:///work/c.ts">\nconst c = 1;\n</context>',
  );
  assert.deepEqual(
    prompt.images.map((i) => [i.mime_type, i.data]),
    [
      ['image/png', 'iVBOR'],
      ['image/png', 'AAAA'],
    ],
  );
  assert.equal(prompt.skipped.length, 3);
  assert.match(prompt.skipped.join('\n'), /image\/tiff[\s\S]*audio[\s\S]*e\.bin/);
});

test('stop reasons: refusal, max tokens, max steps, cancel; other failures are errors', () => {
  const base = { finalText: '' };
  assert.equal(stopReasonOf({ ...base, stop: 'end_turn' }), 'end_turn');
  assert.equal(stopReasonOf({ ...base, stop: 'end_turn', refusal: true }), 'refusal');
  assert.equal(stopReasonOf({ ...base, stop: 'length' }), 'max_tokens');
  assert.equal(stopReasonOf({ ...base, stop: 'aborted' }), 'cancelled');
  assert.equal(
    stopReasonOf({ ...base, stop: 'error', errorKind: 'max_steps' }),
    'max_turn_requests',
  );
  assert.equal(stopReasonOf({ ...base, stop: 'error', errorKind: 'network' }), undefined);
});

test('tool kinds and fenced output that backticks inside cannot close', () => {
  assert.deepEqual(['read', 'write', 'edit', 'bash', 'web_fetch', 'mcp__x__y'].map(toolKind), [
    'read',
    'edit',
    'edit',
    'execute',
    'fetch',
    'other',
  ]);
  assert.equal(fenced('a ```` b\n'), '`````\na ```` b\n`````');
});
