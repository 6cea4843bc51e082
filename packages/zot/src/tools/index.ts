// The built-in tools: read, write, edit, bash.
import type { Tool } from '../agent/tool.js';
import type { FileGuard, FileRoute } from './common.js';
import { createBashTool, type BashToolOptions } from './bash.js';
import { createEditTool, type EditToolOptions } from './edit.js';
import { createReadTool, type ReadToolOptions } from './read.js';
import { createWriteTool, type WriteToolOptions } from './write.js';

export { createBashTool, createEditTool, createReadTool, createWriteTool };
export type { BashToolOptions, EditToolOptions, ReadToolOptions, WriteToolOptions };
export { FileRoute, resolvePath, type FileGuard } from './common.js';

export type BuiltinToolName = 'read' | 'write' | 'edit' | 'bash';
const NAMES: readonly BuiltinToolName[] = ['read', 'write', 'edit', 'bash'];
/** Typed as plain strings so callers can check user input with `includes`. */
export const BUILTIN_TOOL_NAMES: readonly string[] = NAMES;

/** Names extensions cannot take: the file and shell tools and `skill` (the spec's built-ins). */
export const RESERVED_TOOL_NAMES: readonly string[] = [...NAMES, 'skill'];

export function isBuiltinToolName(name: string): name is BuiltinToolName {
  return BUILTIN_TOOL_NAMES.includes(name);
}

export interface BuiltinToolsOptions {
  read?: ReadToolOptions;
  write?: WriteToolOptions;
  edit?: EditToolOptions;
  bash?: BashToolOptions;
  /** Where `~` points for the file tools (default the user's home directory). */
  homeDir?: string;
  /** The sandbox's boundaries for read, write and edit (the bash tool takes the controller). */
  guard?: FileGuard;
  /** Where read, write and edit take and put text: the disk, or a connected editor. */
  route?: FileRoute;
  /** Only these tools, in this order (default all of BUILTIN_TOOL_NAMES). */
  only?: readonly BuiltinToolName[];
}

/** Contract: returns fresh tool objects, one per name, in the order asked for. */
export function builtinTools(options: BuiltinToolsOptions = {}): Tool[] {
  const home = {
    ...(options.homeDir === undefined ? {} : { homeDir: options.homeDir }),
    ...(options.guard ? { guard: options.guard } : {}),
    ...(options.route ? { route: options.route } : {}),
  };
  const factories: Record<BuiltinToolName, () => Tool> = {
    read: () => createReadTool({ ...home, ...options.read }),
    write: () => createWriteTool({ ...home, ...options.write }),
    edit: () => createEditTool({ ...home, ...options.edit }),
    bash: () => createBashTool(options.bash),
  };
  return (options.only ?? NAMES).map((name) => factories[name]());
}
