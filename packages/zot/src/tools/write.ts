// The write tool: create or replace a whole file, atomically, keeping its mode.
import { chmodSync, promises as fsp } from 'node:fs';
import type { Stats } from 'node:fs';
import type { Tool, ToolOutput } from '../agent/tool.js';
import { writeFileAtomic } from '../util/atomic-write.js';
import { errorMessage } from '../util/errors.js';
import {
  errorOutput,
  fsErrorText,
  resolvePath,
  stringArg,
  textOutput,
  type FileToolOptions,
} from './common.js';
import { argsValidator } from './arg-validators.js';

export type WriteToolOptions = FileToolOptions;

export function createWriteTool(options: WriteToolOptions = {}): Tool {
  return {
    name: 'write',
    description:
      'Write a whole file, creating parent directories as needed. Replaces the file if it ' +
      'exists (keeping its permissions). Prefer edit for changes to part of an existing file.',
    argsValidator: argsValidator('write'),
    parameters: {
      type: 'object',
      properties: {
        path: {
          type: 'string',
          description: 'File to write, relative to the working directory or absolute (~ expands)',
        },
        content: { type: 'string', description: 'The complete new content of the file' },
      },
      required: ['path', 'content'],
      additionalProperties: false,
    },
    preview: (args) => stringArg(args, 'path'),
    execute: (args, context) => writeTool(args, context.cwd, options),
  };
}

/**
 * What write and edit change: the file `path` names (a symlink is written through), once the
 * sandbox's guard allows writing it, with the file there now if any; else the error result.
 */
export async function writableFile(
  tool: 'write' | 'edit',
  path: string,
  cwd: string,
  options: FileToolOptions,
): Promise<{ target: string; stats?: Stats; error?: undefined } | { error: ToolOutput }> {
  const target = await writeTarget(resolvePath(cwd, path, options.homeDir));
  const denied = options.guard?.(tool, target, 'write');
  if (denied) return { error: errorOutput(denied) };
  const existing = await existingFile(tool, path, target);
  return existing.error ? { error: existing.error } : { target, stats: existing.stats };
}

/** A symlink is written through (its target changes); a missing file resolves to itself. */
async function writeTarget(abs: string): Promise<string> {
  try {
    return await fsp.realpath(abs);
  } catch {
    return abs;
  }
}

/** The existing file at `target`, undefined when there is none, or an error result. */
async function existingFile(
  tool: string,
  path: string,
  target: string,
): Promise<{ stats?: Stats; error?: ToolOutput }> {
  try {
    const stats = await fsp.stat(target);
    if (stats.isDirectory()) return { error: errorOutput(`${tool}: ${path} is a directory`) };
    if (!stats.isFile()) return { error: errorOutput(`${tool}: ${path} is not a regular file`) };
    return { stats };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    return { error: errorOutput(fsErrorText(tool, path, error)) };
  }
}

/**
 * Writes `data` to `target` via temp file + rename, then restores `mode` exactly (the temp
 * file's mode went through the umask). Contract: throws the fs error; never leaves half a file.
 */
export function replaceFile(target: string, data: string | Uint8Array, mode?: number): void {
  writeFileAtomic(target, data, mode ?? 0o666);
  if (mode !== undefined) chmodSync(target, mode);
}

async function writeTool(
  args: Record<string, unknown>,
  cwd: string,
  options: WriteToolOptions,
): Promise<ToolOutput> {
  const path = stringArg(args, 'path');
  const content = stringArg(args, 'content');
  if (path === '') return errorOutput('write: path is empty');
  const existing = await writableFile('write', path, cwd, options);
  if (existing.error) return existing.error;
  const { target } = existing;
  const toEditor = options.route?.editor?.writeText;
  try {
    if (toEditor) await toEditor(target, content);
    else replaceFile(target, content, existing.stats ? existing.stats.mode & 0o7777 : undefined);
  } catch (error) {
    return errorOutput(
      toEditor
        ? `write: the editor could not write ${path}: ${errorMessage(error)}`
        : fsErrorText('write', path, error),
    );
  }
  const bytes = Buffer.byteLength(content);
  const how = existing.stats ? 'overwrote the existing file' : 'created a new file';
  const details = { kind: 'write', path, bytes, created: !existing.stats } as const;
  return { ...textOutput(`Wrote ${bytes} bytes to ${path} (${how})`), details };
}
