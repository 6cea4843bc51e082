import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StringDecoder } from 'node:string_decoder';
import { SseParser, type SseEvent } from './sse.js';

/** Bytes as the transport delivers them: decoded by a streaming UTF-8 decoder, then parsed. */
function parseBytes(chunks: Uint8Array[]): SseEvent[] {
  const decoder = new StringDecoder('utf8');
  const parser = new SseParser();
  const out = chunks.flatMap((chunk) => parser.push(decoder.write(Buffer.from(chunk))));
  return [...out, ...parser.push(decoder.end()), ...parser.end()];
}

const SAMPLE =
  ': keep-alive comment\r\n' +
  'event: message_start\r\n' +
  'data: {"a":"héllo ✓ 😀"}\r\n' +
  '\r\n' +
  'data: line one\n' +
  'data:line two\n' +
  'data\n' +
  'id: 7\n' +
  '\n' +
  'event: lonely\n' +
  '\n' +
  'event: cr\r' +
  'data: only CR\r' +
  '\r' +
  'data: [DONE]\n\n';

const EXPECTED: SseEvent[] = [
  { event: 'message_start', data: '{"a":"héllo ✓ 😀"}' },
  { data: 'line one\nline two\n' },
  { event: 'cr', data: 'only CR' },
  { data: '[DONE]' },
];

test('SseParser handles CRLF, CR, LF, comments, multi-line data and events without data', () => {
  const parser = new SseParser();
  assert.deepEqual([...parser.push(SAMPLE), ...parser.end()], EXPECTED);
});

test('SseParser over decoded bytes gives the same events for every two-way byte split (UTF-8 and CRLF split too)', () => {
  const bytes = new TextEncoder().encode(SAMPLE);
  for (let cut = 0; cut <= bytes.length; cut++) {
    const events = parseBytes([bytes.slice(0, cut), bytes.slice(cut)]);
    assert.deepEqual(events, EXPECTED, `split at byte ${cut}`);
  }
});

test('SseParser over decoded bytes handles one byte per chunk and a leading BOM', () => {
  const bytes = new TextEncoder().encode(`\uFEFF${SAMPLE}`);
  const chunks = Array.from(bytes, (b) => Uint8Array.of(b));
  assert.deepEqual(parseBytes(chunks), EXPECTED);
});

test('SseParser over decoded bytes flushes a last event that lacks its blank line', () => {
  const bytes = new TextEncoder().encode('data: a\n\ndata: last');
  assert.deepEqual(parseBytes([bytes]), [{ data: 'a' }, { data: 'last' }]);
});
