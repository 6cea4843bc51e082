// Helpers shared by the built-in tools: path resolution, results, readable fs errors.
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import type { ToolOutput } from '../agent/tool.js';
import type { EditorFiles, EditorTerminal } from '../contract/front-end.js';
import { errorMessage } from '../util/errors.js';

/**
 * Resolves a path argument: `~` and `~/x` expand to `home`; relative paths resolve against `cwd`.
 * Contract: always returns an absolute path.
 */
export function resolvePath(cwd: string, path: string, home: string = homedir()): string {
  if (path === '~') return home;
  if (path.startsWith('~/')) return join(home, path.slice(2));
  return isAbsolute(path) ? resolve(path) : resolve(cwd, path);
}

/**
 * The sandbox's check for the file tools: why `operation` on `path` (absolute) is refused, or
 * undefined when it is allowed. It resolves symlinks itself.
 */
export type FileGuard = (
  tool: string,
  path: string,
  operation: 'read' | 'write',
) => string | undefined;

/** What read, write and edit are built with. */
export interface FileToolOptions {
  /** Where `~` points (default the user's home directory). */
  homeDir?: string;
  /** The sandbox's boundaries (writable and hidden paths); none when the sandbox is off. */
  guard?: FileGuard;
  /** Files are read from and written to the editor's buffers when one is connected. */
  route?: FileRoute;
}

export function textOutput(text: string): ToolOutput {
  return { content: [{ type: 'text', text }], isError: false };
}

export function errorOutput(text: string): ToolOutput {
  return { content: [{ type: 'text', text }], isError: true };
}

/** Reads a string argument; the agent validated the shape, this only narrows the type. */
export function stringArg(args: Record<string, unknown>, key: string): string {
  const value = args[key];
  return typeof value === 'string' ? value : '';
}

/** Turns a Node fs error into `<tool>: <what went wrong>: <path>` the model can act on. */
export function fsErrorText(tool: string, path: string, error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case 'ENOENT':
      return `${tool}: no such file: ${path}`;
    case 'EACCES':
    case 'EPERM':
      return `${tool}: permission denied: ${path}`;
    case 'EISDIR':
      return `${tool}: ${path} is a directory`;
    case 'ENOTDIR':
      return `${tool}: a parent of ${path} is not a directory`;
    case 'EEXIST':
      return `${tool}: a parent of ${path} exists and is not a directory`;
    case 'EROFS':
      return `${tool}: read-only file system: ${path}`;
    case 'ENOSPC':
      return `${tool}: no space left on device writing ${path}`;
    case 'ELOOP':
      return `${tool}: too many levels of symbolic links: ${path}`;
    default:
      return `${tool}: cannot access ${path}: ${errorMessage(error)}`;
  }
}

/** Lets a tool run a step and turn an expected fs failure into an error result. */
export async function tryFs<T>(
  tool: string,
  path: string,
  step: () => Promise<T> | T,
): Promise<{ ok: true; value: T } | { ok: false; output: ToolOutput }> {
  try {
    return { ok: true, value: await step() };
  } catch (error) {
    return { ok: false, output: errorOutput(fsErrorText(tool, path, error)) };
  }
}

/**
 * Where the file tools read and write text: the disk, or an editor's buffers once a front end
 * connects one (`zot acp` with a client that offers `fs/*`). One per run, shared by the tools.
 */
export class FileRoute {
  editor: EditorFiles | undefined;
  /** The editor's terminals for bash (`zot acp --client-terminal`, only with the sandbox off). */
  terminal: EditorTerminal | undefined;
}
