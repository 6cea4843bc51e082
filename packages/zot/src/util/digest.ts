// Fingerprints of text that an audit line must identify without repeating it (redacted originals).
import { createHash } from 'node:crypto';

export interface TextDigest {
  /** Length in UTF-16 code units, as JavaScript counts it. */
  chars: number;
  sha256: string;
}

export function textDigest(text: string): TextDigest {
  return { chars: text.length, sha256: createHash('sha256').update(text).digest('hex') };
}
