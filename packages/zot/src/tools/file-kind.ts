// Classifies a file from its first bytes: image (by magic number), binary, or text.

export type FileKind =
  | { kind: 'image'; mimeType: string; label: string }
  | { kind: 'binary' }
  | { kind: 'text' };

/** How many leading bytes `sniffFile` needs. */
export const SNIFF_BYTES = 8192;

function startsWith(head: Uint8Array, bytes: number[], at = 0): boolean {
  return bytes.every((byte, i) => head[at + i] === byte);
}

const ascii = (text: string): number[] => [...text].map((c) => c.charCodeAt(0));

/** The image MIME type the providers accept, judged by magic bytes (never by extension). */
export function imageType(head: Uint8Array): { mimeType: string; label: string } | undefined {
  if (startsWith(head, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) {
    return { mimeType: 'image/png', label: 'PNG' };
  }
  if (startsWith(head, [0xff, 0xd8, 0xff])) return { mimeType: 'image/jpeg', label: 'JPEG' };
  if (startsWith(head, ascii('GIF87a')) || startsWith(head, ascii('GIF89a'))) {
    return { mimeType: 'image/gif', label: 'GIF' };
  }
  if (startsWith(head, ascii('RIFF')) && startsWith(head, ascii('WEBP'), 8)) {
    return { mimeType: 'image/webp', label: 'WebP' };
  }
  return undefined;
}

/**
 * Text unless the head has a NUL byte or more than 10% of it is invalid UTF-8 or
 * control characters (a few stray Latin-1 bytes still count as text).
 */
export function sniffFile(head: Uint8Array): FileKind {
  const image = imageType(head);
  if (image) return { kind: 'image', ...image };
  if (head.includes(0)) return { kind: 'binary' };
  // stream: true holds back a character cut by the end of the sample instead of flagging it.
  const text = new TextDecoder('utf-8', { fatal: false }).decode(head, { stream: true });
  if (text.length === 0) return { kind: 'text' };
  let suspicious = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    const control = code < 0x20 && code !== 0x09 && code !== 0x0a && code !== 0x0d && code !== 0x1b;
    if (code === 0xfffd || control || code === 0x7f) suspicious++;
  }
  return suspicious > text.length * 0.1 ? { kind: 'binary' } : { kind: 'text' };
}
