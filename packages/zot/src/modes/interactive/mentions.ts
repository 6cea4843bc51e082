// `@path` mentions in a prompt: each names a file under the working directory whose contents go
// with the prompt (text in a fenced block after it, images as image blocks). What cannot be
// attached (missing, a directory, too big, outside the project) stays plain text, with a note.
import { realpathSync, statSync } from 'node:fs';
import { extname, relative, resolve, sep } from 'node:path';
import type { ImageBlock } from '../../contract/content.js';
import { readRegularFile } from '../../util/regular-file.js';

/** A text file bigger than this is not attached whole; the model can read it with its tools. */
export const MAX_MENTION_BYTES = 256 * 1024;
export const MAX_IMAGE_BYTES = 10 * 1024 * 1024;
const IMAGE_TYPES: Record<string, string> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
};

export interface Attached {
  text: string;
  images: ImageBlock[];
  /** Why a mention was not attached, one line each. */
  notes: string[];
}

const inside = (root: string, path: string) => {
  const rel = relative(root, path);
  return rel !== '' && !rel.startsWith('..') && !rel.startsWith(sep);
};

/**
 * Contract: never throws; reads only regular files inside `cwd` (after symlinks) that `denied`
 * (the sandbox's hidden paths) does not refuse.
 */
export function attachMentions(
  prompt: string,
  cwd: string,
  denied?: (path: string) => string | undefined,
): Attached {
  const images: ImageBlock[] = [];
  const blocks: string[] = [];
  const notes: string[] = [];
  const seen = new Set<string>();
  let root: string;
  try {
    root = realpathSync(cwd);
  } catch {
    return { text: prompt, images, notes };
  }
  for (const match of prompt.matchAll(/(?:^|\s)@((?:\\ |[^\s])+)/g)) {
    const name = match[1]!.replace(/\\ /g, ' ').replace(/[.,;:!?)]+$/, '');
    if (seen.has(name)) continue;
    seen.add(name);
    let path: string;
    try {
      path = realpathSync(resolve(cwd, name));
    } catch {
      continue; // not a file: an @handle, an email address ... left as text
    }
    if (!inside(root, path)) {
      notes.push(`@${name} is outside the project; not attached`);
      continue;
    }
    const refusal = denied?.(path);
    if (refusal) {
      notes.push(`@${name} not attached: ${refusal}`);
      continue;
    }
    try {
      const stat = statSync(path);
      if (!stat.isFile()) continue;
      const mime = IMAGE_TYPES[extname(path).toLowerCase()];
      if (mime) {
        if (stat.size > MAX_IMAGE_BYTES) {
          notes.push(`@${name} is over 10 MiB; not attached`);
          continue;
        }
        const read = readRegularFile(path, { limit: MAX_IMAGE_BYTES, within: root });
        if (!read.ok) notes.push(`@${name} not attached: ${read.error}`);
        else images.push({ type: 'image', mime_type: mime, data: read.bytes.toString('base64') });
        continue;
      }
      if (stat.size > MAX_MENTION_BYTES) {
        notes.push(`@${name} is over 256 KiB; not attached (the model can read it)`);
        continue;
      }
      // Read without blocking: the file checked above may have been swapped for a FIFO since.
      const read = readRegularFile(path, { limit: MAX_MENTION_BYTES, within: root });
      if (!read.ok) {
        notes.push(`@${name} not attached: ${read.error}`);
        continue;
      }
      const content = read.bytes.toString('utf8');
      const fence = content.includes('```') ? '````' : '```';
      blocks.push(`${name}:\n${fence}\n${content.replace(/\n$/, '')}\n${fence}`);
    } catch (error) {
      notes.push(
        `@${name} could not be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
      );
    }
  }
  const text = blocks.length > 0 ? `${prompt}\n\n${blocks.join('\n\n')}` : prompt;
  return { text, images, notes };
}
