import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseSse, SseParser, type SseEvent } from './sse.js';

function streamOf(chunks: Uint8Array[], keepOpen = false): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      if (!keepOpen) controller.close();
    },
  });
}

async function parseBytes(chunks: Uint8Array[]): Promise<SseEvent[]> {
  const out: SseEvent[] = [];
  for await (const event of parseSse(streamOf(chunks))) out.push(event);
  return out;
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

test('parseSse gives the same events for every two-way byte split (UTF-8 and CRLF split too)', async () => {
  const bytes = new TextEncoder().encode(SAMPLE);
  for (let cut = 0; cut <= bytes.length; cut++) {
    const events = await parseBytes([bytes.slice(0, cut), bytes.slice(cut)]);
    assert.deepEqual(events, EXPECTED, `split at byte ${cut}`);
  }
});

test('parseSse handles one byte per chunk and a leading BOM', async () => {
  const bytes = new TextEncoder().encode(`\uFEFF${SAMPLE}`);
  const chunks = Array.from(bytes, (b) => Uint8Array.of(b));
  assert.deepEqual(await parseBytes(chunks), EXPECTED);
});

test('parseSse flushes a last event that lacks its blank line', async () => {
  const bytes = new TextEncoder().encode('data: a\n\ndata: last');
  assert.deepEqual(await parseBytes([bytes]), [{ data: 'a' }, { data: 'last' }]);
});

test('parseSse rejects promptly with AbortError when aborted while the body stays open', async () => {
  const controller = new AbortController();
  const body = streamOf([new TextEncoder().encode('data: first\n\n')], true);
  const seen: string[] = [];
  // The body never ends: only the abort can finish this test (no stopwatch needed).
  await assert.rejects(
    (async () => {
      for await (const event of parseSse(body, controller.signal)) {
        seen.push(event.data);
        setTimeout(() => controller.abort(), 20);
      }
    })(),
    { name: 'AbortError' },
  );
  assert.deepEqual(seen, ['first']);
});
