// What went wrong on an extension's stdout after hello, for the `frames` check: counts, and
// the first few offending lines as examples. Bounded whatever the extension writes.

/** Most examples kept per kind of problem. */
const MAX_SAMPLES = 5;
/** Characters kept of each example line. */
const SAMPLE_CHARS = 4096;

export interface Sampled<T> {
  count: number;
  samples: T[];
}

function note<T>(into: Sampled<T>, sample: T): void {
  into.count++;
  if (into.samples.length < MAX_SAMPLES) into.samples.push(sample);
}

export class FrameStats {
  /** Lines after hello. */
  total = 0;
  /** Not JSON, not UTF-8, not an object, or a known frame with a field of the wrong type. */
  readonly invalid: Sampled<{ line: string; error: string }> = { count: 0, samples: [] };
  /** Frames of a type the host does not know (ignored and logged by zot). */
  readonly unknownTypes: Sampled<string> = { count: 0, samples: [] };
  /** Byte sizes of lines over the frame limit. */
  readonly oversize: Sampled<number> = { count: 0, samples: [] };
  /** Replies to no pending request: late, repeated, or with a wrong id. */
  readonly unsolicited: Sampled<string> = { count: 0, samples: [] };

  invalidLine(line: string, error: string): void {
    note(this.invalid, { line: line.slice(0, SAMPLE_CHARS), error });
  }
  unknownType(line: string): void {
    note(this.unknownTypes, line.slice(0, SAMPLE_CHARS));
  }
  oversizeLine(bytes: number): void {
    note(this.oversize, bytes);
  }
  unsolicitedReply(line: string): void {
    note(this.unsolicited, line.slice(0, SAMPLE_CHARS));
  }
}
