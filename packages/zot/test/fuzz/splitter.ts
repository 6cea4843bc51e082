// The LineSplitter against a reference split of the whole byte stream: whatever the chunking,
// the same lines, oversize reports and invalid-UTF-8 reports come out, in the same order.
import { isUtf8 } from 'node:buffer';
import { LineSplitter } from '@zot/protocol';

export interface SplitterInput {
  stream: Buffer;
  /** Offsets at which the stream is cut into chunks (sorted, inside the stream). */
  cuts: number[];
  maxLineBytes: number;
  keepEmptyLines: boolean;
  reportInvalidUtf8: boolean;
  /** Call end() after the last chunk (delivers a final line without LF). */
  end: boolean;
}

type Event = ['line', string] | ['oversize', number] | ['invalid', number];

/** What the splitter's contract says must come out (jsonl.ts), computed on the whole stream. */
function reference(input: SplitterInput): Event[] {
  const out: Event[] = [];
  const { stream } = input;
  let start = 0;
  for (;;) {
    const nl = stream.indexOf(0x0a, start);
    if (nl === -1 && (!input.end || start >= stream.length)) break;
    const stop = nl === -1 ? stream.length : nl;
    let line = stream.subarray(start, stop);
    start = stop + 1;
    if (line.length > input.maxLineBytes) {
      out.push(['oversize', line.length]);
    } else {
      if (line.length > 0 && line[line.length - 1] === 0x0d) line = line.subarray(0, -1);
      if (line.length === 0 && !input.keepEmptyLines) continue;
      if (input.reportInvalidUtf8 && !isUtf8(line)) out.push(['invalid', line.length]);
      else out.push(['line', line.toString('utf8')]);
    }
    if (nl === -1) break;
  }
  return out;
}

/** Runs the splitter over the chunks. Throws when its output differs from the reference. */
export function checkSplitter(input: SplitterInput): void {
  const got: Event[] = [];
  const splitter = new LineSplitter({
    maxLineBytes: input.maxLineBytes,
    keepEmptyLines: input.keepEmptyLines,
    onLine: (line) => got.push(['line', line]),
    onOversize: (bytes) => got.push(['oversize', bytes]),
    ...(input.reportInvalidUtf8
      ? { onInvalidUtf8: (bytes: number) => got.push(['invalid', bytes]) }
      : {}),
  });
  let from = 0;
  for (const cut of [...input.cuts, input.stream.length]) {
    const chunk = input.stream.subarray(from, cut);
    // Plain Uint8Array chunks too, not only Buffers.
    splitter.push(
      cut % 2 === 0 ? chunk : new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.length),
    );
    from = cut;
  }
  if (input.end) {
    splitter.end();
    splitter.push('{"type":"after end"}\n'); // ignored by contract
  }
  const expected = reference(input);
  const diff = firstDifference(got, expected);
  if (diff !== undefined) throw new Error(`LineSplitter output differs from the reference ${diff}`);
}

function firstDifference(got: Event[], expected: Event[]): string | undefined {
  for (let i = 0; i < Math.max(got.length, expected.length); i++) {
    const a = JSON.stringify(got[i]);
    const b = JSON.stringify(expected[i]);
    if (a !== b) return `at event ${i}: got ${a?.slice(0, 200)}, expected ${b?.slice(0, 200)}`;
  }
  return undefined;
}
