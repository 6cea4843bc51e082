// Fingerprints of text that an audit line must identify without repeating it (redacted originals).
import { nodeCrypto } from './builtins.js';

export interface TextDigest {
  /** Length in UTF-16 code units, as JavaScript counts it. */
  chars: number;
  sha256: string;
}

export function textDigest(text: string): TextDigest {
  return {
    chars: text.length,
    sha256: nodeCrypto().createHash('sha256').update(text).digest('hex'),
  };
}
