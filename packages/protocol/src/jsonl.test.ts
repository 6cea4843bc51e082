// The JSONL splitter: LF only, CRLF tolerant, chunk-boundary safe, capped, linear.
import assert from 'node:assert/strict';
import { isUtf8 } from 'node:buffer';
import { test } from 'node:test';
import { LineSplitter, createLineDecoder, type LineDecoderOptions } from './index.js';

interface Collected {
  lines: string[];
  oversize: number[];
  splitter: LineSplitter;
}

function collect(options: Partial<LineDecoderOptions> = {}): Collected {
  const out: Collected = { lines: [], oversize: [], splitter: undefined! };
  out.splitter = new LineSplitter({
    onLine: (line) => out.lines.push(line),
    onOversize: (n) => out.oversize.push(n),
    ...options,
  });
  return out;
}

function feed(chunks: Array<string | Uint8Array>, options: Partial<LineDecoderOptions> = {}) {
  const c = collect(options);
  for (const chunk of chunks) c.splitter.push(chunk);
  c.splitter.end();
  return c;
}

test('many lines in one chunk', () => {
  const lines = Array.from({ length: 1000 }, (_, i) => `{"type":"notify","message":"${i}"}`);
  assert.deepEqual(feed([Buffer.from(lines.join('\n') + '\n')]).lines, lines);
});

test('CRLF line endings lose exactly one CR; a lone CR is not a separator', () => {
  assert.deepEqual(feed(['a\r\nb\r\r\nc\rd\n']).lines, ['a', 'b\r', 'c\rd']);
  // CR and LF in different chunks.
  assert.deepEqual(feed(['abc\r', '\ndef\r', '\n']).lines, ['abc', 'def']);
});

test('U+2028 and U+2029 inside a JSON string do not split the line', () => {
  const line = '{"type":"notify","message":"a\u2028b\u2029c\u0085d"}';
  assert.deepEqual(feed([line + '\n']).lines, [line]);
});

test('a multi-byte line split at every byte position arrives intact', () => {
  const line = '{"type":"notify","message":"grüße 😀 € 日本 \u2028"}';
  const bytes = Buffer.from(line + '\nnext\n');
  for (let cut = 0; cut <= bytes.length; cut++) {
    const got = feed([bytes.subarray(0, cut), bytes.subarray(cut)]).lines;
    assert.deepEqual(got, [line, 'next'], `cut at ${cut}`);
  }
  const oneByteChunks = Array.from(bytes, (b) => Uint8Array.of(b));
  assert.deepEqual(feed(oneByteChunks).lines, [line, 'next']);
});

test('end() delivers a last line without LF, once; later pushes are ignored', () => {
  const c = collect();
  c.splitter.push('a\nlast');
  assert.deepEqual(c.lines, ['a']);
  c.splitter.end();
  c.splitter.end();
  c.splitter.push('more\n');
  assert.deepEqual(c.lines, ['a', 'last']);
  assert.deepEqual(feed(['a\n']).lines, ['a'], 'no phantom line after a final LF');
  assert.deepEqual(feed(['a\nb\r']).lines, ['a', 'b']);
});

test('empty lines are skipped unless asked for', () => {
  assert.deepEqual(feed(['\n\na\n\r\n\nb\n']).lines, ['a', 'b']);
  assert.deepEqual(feed(['\na\n\r\n'], { keepEmptyLines: true }).lines, ['', 'a', '']);
});

test('an oversize line is reported once, dropped, and the following lines still arrive', () => {
  const big = 'x'.repeat(100);
  // Whole line in one chunk (fast path).
  const one = feed([`a\n${big}\nb\n`], { maxLineBytes: 10 });
  assert.deepEqual(one.lines, ['a', 'b']);
  assert.deepEqual(one.oversize, [100]);
  // Line spread over many chunks, with its LF in the same chunk as the next line.
  const chunks = ['a\nxx', ...Array.from({ length: 49 }, () => 'xx'), '\nb\nc'];
  const many = feed(chunks, { maxLineBytes: 10 });
  assert.deepEqual(many.lines, ['a', 'b', 'c']);
  assert.deepEqual(many.oversize, [100]);
  // Exactly at the cap is fine; one byte over is not.
  const edge = feed(['0123456789\n0123456789A\nok\n'], { maxLineBytes: 10 });
  assert.deepEqual(edge.lines, ['0123456789', 'ok']);
  assert.deepEqual(edge.oversize, [11]);
  // An oversize last line without LF is reported at end().
  const tail = feed(['ok\n', big], { maxLineBytes: 10 });
  assert.deepEqual(tail.lines, ['ok']);
  assert.deepEqual(tail.oversize, [100]);
});

test('an oversize line is counted, not buffered', () => {
  const c = collect({ maxLineBytes: 1024 });
  const chunk = Buffer.alloc(64 * 1024, 0x61);
  for (let i = 0; i < 16; i++) {
    c.splitter.push(chunk);
    assert.equal(c.splitter.bufferedBytes, 0);
  }
  c.splitter.push('\n{"type":"ready"}\n');
  assert.deepEqual(c.oversize, [16 * 64 * 1024]);
  assert.deepEqual(c.lines, ['{"type":"ready"}']);
});

test('a 10 MB line in 64 KB chunks is joined once (linear, no re-concatenation)', () => {
  const total = 10 * 1024 * 1024;
  const payload = Buffer.alloc(total, 0x62);
  const c = collect();
  const realConcat = Buffer.concat;
  let copiedBytes = 0;
  let concatCalls = 0;
  Buffer.concat = (list: readonly Uint8Array[], length?: number) => {
    concatCalls++;
    copiedBytes += length ?? list.reduce((n, b) => n + b.length, 0);
    return realConcat(list, length);
  };
  try {
    for (let i = 0; i < total; i += 64 * 1024) {
      c.splitter.push(payload.subarray(i, i + 64 * 1024));
      assert.equal(c.splitter.bufferedBytes, Math.min(i + 64 * 1024, total));
    }
    c.splitter.push('\n');
  } finally {
    Buffer.concat = realConcat;
  }
  assert.equal(concatCalls, 1);
  assert.equal(copiedBytes, total);
  assert.equal(c.lines.length, 1);
  assert.equal(c.lines[0]!.length, total);
  assert.equal(c.splitter.bufferedBytes, 0);
});

test('invalid UTF-8 is reported when asked, else decoded with replacement characters', () => {
  const bad = Buffer.from([0x7b, 0xff, 0xfe, 0x7d, 0x0a, 0x6f, 0x6b, 0x0a]);
  const invalid: Array<[number, string]> = [];
  const strict = feed([bad], {
    onInvalidUtf8: (n, bytes) => invalid.push([n, Buffer.from(bytes).toString('hex')]),
  });
  assert.deepEqual(strict.lines, ['ok']);
  assert.deepEqual(invalid, [[4, '7bfffe7d']]);
  assert.deepEqual(feed([bad]).lines, ['{\ufffd\ufffd}', 'ok']);
});

test('string and Uint8Array chunks work; createLineDecoder is the factory form', () => {
  const lines: string[] = [];
  const decoder = createLineDecoder({ onLine: (l) => lines.push(l) });
  decoder.push('€ a');
  decoder.push(new Uint8Array(Buffer.from('b\nc\n')));
  decoder.end();
  assert.deepEqual(lines, ['€ ab', 'c']);
});

/** The splitter's contract spelt out the slow way: the whole input, split on LF, line by line. */
function referenceSplit(input: Buffer, max: number, keepEmpty: boolean): string[] {
  const events: string[] = [];
  let from = 0;
  while (from < input.length) {
    let to = input.indexOf(0x0a, from);
    if (to === -1) to = input.length;
    let end = to;
    if (end - from > max) events.push(`oversize ${end - from}`);
    else {
      if (end > from && input[end - 1] === 0x0d) end--;
      const bytes = input.subarray(from, end);
      if (end > from || keepEmpty)
        events.push(
          isUtf8(bytes) ? `line ${bytes.toString('utf8')}` : `invalid ${bytes.toString('hex')}`,
        );
    }
    from = to + 1;
  }
  return events;
}

test('random input in random chunks gives the same lines as splitting it whole', () => {
  // A small seeded generator: failures are reproducible.
  let seed = 7;
  const next = (n: number) => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) % n;
  const pieces = ['a', '{"type":"notify"}', '\n', '\r', '\r\n', 'é', '😀', '\u2028', '\xff', 'ok'];
  for (let round = 0; round < 400; round++) {
    const parts: Buffer[] = [];
    for (let i = next(40); i > 0; i--) {
      const piece = pieces[next(pieces.length)]!;
      // '\xff' stands for a byte that is never valid UTF-8.
      parts.push(piece === '\xff' ? Buffer.of(0xff) : Buffer.from(piece));
    }
    const input = Buffer.concat(parts);
    const max = [4, 16, 1024][next(3)]!;
    const keepEmpty = next(2) === 0;
    const events: string[] = [];
    const splitter = new LineSplitter({
      maxLineBytes: max,
      keepEmptyLines: keepEmpty,
      onLine: (line) => events.push(`line ${line}`),
      onOversize: (n) => events.push(`oversize ${n}`),
      onInvalidUtf8: (_n, bytes) => events.push(`invalid ${Buffer.from(bytes).toString('hex')}`),
    });
    for (let at = 0; at < input.length; ) {
      const size = 1 + next(next(2) === 0 ? 12 : 400);
      splitter.push(input.subarray(at, at + size));
      at += size;
    }
    splitter.end();
    const expected = referenceSplit(input, max, keepEmpty);
    assert.deepEqual(events, expected, `round ${round}: ${input.toString('hex')}`);
  }
});
