// Fingerprints of text that an audit line must identify without repeating it (redacted originals).
import { nodeCrypto } from './builtins.js';

export interface TextDigest {
  /** Length in UTF-16 code units, as JavaScript counts it. */
  chars: number;
  sha256: string;
}

/** The hex SHA-256 of a text's UTF-8 bytes, or of bytes (node:crypto: any size). */
export function sha256Of(data: string | Buffer): string {
  return nodeCrypto().createHash('sha256').update(data).digest('hex');
}

export function textDigest(text: string): TextDigest {
  return { chars: text.length, sha256: sha256Of(text) };
}
