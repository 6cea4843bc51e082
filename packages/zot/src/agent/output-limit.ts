// One size limit for every tool result the model sees. Built-in tools cut their own output
// (head for read, tail for bash) well inside it; this is the backstop that also holds
// extension tools to the same bound, with the same "full output saved to ..." note.
import { lstatSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { resolveToolOutputDir } from '../config/paths.js';
import { ensureOwnedPrivateDir } from '../util/private-fs.js';
import { formatBytes, truncateHead } from '../util/truncate.js';
import type { ToolContent, ToolOutput } from './tool.js';
import { nodeCrypto } from '../util/builtins.js';

export interface OutputLimits {
  maxLines: number;
  maxBytes: number;
  /** Largest image (base64 characters) passed on; larger ones are replaced by a note. */
  maxImageChars: number;
  /** Where full texts of cut results are saved (files 0600 in a 0700 directory of the user's). */
  dir: string;
}

/** Saved outputs older than this are removed when a run first saves one (a week). */
const KEEP_SAVED_MS = 7 * 24 * 60 * 60 * 1000;
const pruned = new Set<string>();

/**
 * Readies `dir` for saved tool outputs: a private directory of this user's (see
 * ensureOwnedPrivateDir), from which the first call of a run removes outputs older than a week
 * (outside XDG_RUNTIME_DIR nothing else would). Contract: throws like ensureOwnedPrivateDir.
 */
export function prepareOutputDir(dir: string): void {
  ensureOwnedPrivateDir(dir);
  if (pruned.has(dir)) return;
  pruned.add(dir);
  const cutoff = Date.now() - KEEP_SAVED_MS;
  try {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      const stat = lstatSync(path);
      if (stat.isFile() && stat.mtimeMs < cutoff) rmSync(path, { force: true });
    }
  } catch {
    // what cannot be removed now is removed by a later run
  }
}

/** The built-in tools' limits: 2000 lines or 50 KB of text, images up to 10 MB of base64. */
export function defaultOutputLimits(): OutputLimits {
  return {
    maxLines: 2000,
    maxBytes: 50 * 1024,
    maxImageChars: 10 * 1024 * 1024,
    dir: resolveToolOutputDir(),
  };
}

function save(dir: string, text: string): { path?: string; error?: string } {
  try {
    prepareOutputDir(dir);
    const path = join(dir, `${nodeCrypto().randomUUID()}.txt`);
    writeFileSync(path, text, { mode: 0o600, flag: 'wx' }); // never through a planted name
    return { path };
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
}

/**
 * Returns `output` unchanged when it is within the limits; otherwise its text blocks are joined,
 * cut to their head within the limits with a note saying how much is shown and where the full
 * text went, and oversized images are replaced by a note. Contract: never throws.
 */
export function limitOutput(output: ToolOutput, limits: OutputLimits): ToolOutput {
  let textBytes = 0;
  let textLines = 0;
  let bigImage = false;
  for (const block of output.content) {
    if (block.type === 'text') {
      textBytes += Buffer.byteLength(block.text, 'utf8');
      textLines += block.text.split('\n').length;
    } else if (block.data.length > limits.maxImageChars) bigImage = true;
  }
  if (textBytes <= limits.maxBytes && textLines <= limits.maxLines && !bigImage) return output;

  const content: ToolContent[] = [];
  const texts = output.content.filter((block) => block.type === 'text').map((b) => b.text);
  const full = texts.join('\n');
  const cut = truncateHead(full, limits);
  if (cut.truncated || cut.partialLine) {
    const saved = save(limits.dir, full);
    const where = saved.path
      ? `full output saved to ${saved.path}`
      : `full output could not be saved: ${saved.error}`;
    const shown = cut.partialLine
      ? `the first ${formatBytes(limits.maxBytes)} of the first line`
      : `first ${cut.shownLines} of ${cut.totalLines} lines`;
    content.push({
      type: 'text',
      text: `${cut.text}\n\n[output truncated: showing ${shown} (${formatBytes(Buffer.byteLength(full, 'utf8'))} in all); ${where}]`,
    });
  } else if (texts.length > 0) {
    content.push({ type: 'text', text: full });
  }
  for (const block of output.content) {
    if (block.type !== 'image') continue;
    if (block.data.length <= limits.maxImageChars) content.push(block);
    else
      content.push({
        type: 'text',
        text: `[image dropped: ${formatBytes(block.data.length)} of base64, over the ${formatBytes(limits.maxImageChars)} limit]`,
      });
  }
  return { ...output, content };
}
