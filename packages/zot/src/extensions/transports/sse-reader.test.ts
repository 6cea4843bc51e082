// The event stream's reader reads a chunk that is one whole event without its line splitter:
// what it hands on must be what the splitter path hands on for the same bytes, whatever the
// shape (CR, a data line without a space, two events, invalid UTF-8, a comment, a name).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SseReader } from './sse-reader.js';

/** Everything the reader reports, in order, for `chunks` pushed one after another. */
function read(chunks: Buffer[]): string[] {
  const seen: string[] = [];
  const reader = new SseReader({
    onEvent: (id, items) => seen.push(`event ${id} ${JSON.stringify(items)}`),
    onEnd: () => seen.push('end'),
    onGarbage: (what) => seen.push(`garbage ${what}`),
    onOverflow: (bytes) => seen.push(`overflow ${bytes}`),
  });
  for (const chunk of chunks) reader.push(chunk);
  return seen;
}

/** The same bytes one at a time: no chunk is ever a whole event, so the splitter reads all. */
const byteByByte = (chunks: Buffer[]) =>
  read(chunks.flatMap((chunk) => [...chunk].map((byte) => Buffer.of(byte))));

const shapes: Record<string, Buffer[]> = {
  'whole events, one a chunk': [
    Buffer.from('id: 1\ndata: {"type":"hello"}\n\n'),
    Buffer.from('id: 2\ndata: {"type":"notify","message":"é ✓"}\n\n'),
  ],
  'CR line ends': [Buffer.from('id: 3\r\ndata: {"type":"ready"}\r\n\r\n')],
  'data without a space': [Buffer.from('id: 4\ndata:{"type":"ready"}\n\n')],
  'two events in one chunk': [Buffer.from('id: 5\ndata: {"a":1}\n\nid: 6\ndata: {"b":2}\n\n')],
  'two data lines': [Buffer.from('id: 7\ndata: {"a":1}\ndata: {"b":2}\n\n')],
  'invalid UTF-8': [
    Buffer.concat([Buffer.from('id: 8\ndata: {'), Buffer.of(0xff), Buffer.from('}\n\n')]),
  ],
  'an id that is not a number': [Buffer.from('id: x9\ndata: {"a":1}\n\n')],
  'a named event, a comment, the end': [
    Buffer.from('event: other\nid: 10\ndata: {"a":1}\n\n'),
    Buffer.from(': keepalive\n\n'),
    Buffer.from('event: end\n\n'),
  ],
  'an event split over chunks, then a whole one': [
    Buffer.from('id: 11\ndata: {"a"'),
    Buffer.from(':1}\n\n'),
    Buffer.from('id: 12\ndata: {"b":2}\n\n'),
  ],
  'ids of 15 and 16 digits, with a sign, a space or none': [
    Buffer.from('id: 123456789012345\ndata: {"a":1}\n\n'),
    Buffer.from('id: 1234567890123456\ndata: {"a":2}\n\n'),
    Buffer.from('id: +16\ndata: {"a":3}\n\n'),
    Buffer.from('id:  17\ndata: {"a":4}\n\n'),
    Buffer.from('id: 18 \ndata: {"a":5}\n\n'),
    Buffer.from('id: \ndata: {"a":6}\n\n'),
  ],
  'an empty data line, and data without its colon': [
    Buffer.from('id: 19\ndata: \n\n'),
    Buffer.from('id: 20\ndata {"a":1}\n\n'),
  ],
  'a chunk ending inside a line before a whole-looking one': [
    Buffer.from('id: 13\n'),
    Buffer.from('id: 14\ndata: {"c":3}\n\n'),
  ],
};

for (const [shape, chunks] of Object.entries(shapes)) {
  test(`one whole event a chunk reads as the splitter reads it: ${shape}`, () => {
    assert.deepEqual(read(chunks), byteByByte(chunks));
  });
}

test('whole events are handed on with their ids and frames', () => {
  assert.deepEqual(read(shapes['whole events, one a chunk']!), [
    'event 1 [{"kind":"line","text":"{\\"type\\":\\"hello\\"}"}]',
    'event 2 [{"kind":"line","text":"{\\"type\\":\\"notify\\",\\"message\\":\\"é ✓\\"}"}]',
  ]);
});
