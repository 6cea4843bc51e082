// Each server's tool list from its last listing, so that its tools are registered at once at the
// next start instead of after the server has started (which can take seconds: `npx` alone takes
// about 4). An entry is keyed by a hash of everything that decides which program runs and how:
// transport, command, arguments, environment (names and values: only the hash is kept), URL,
// headers, and the directory a stdio server runs in; a changed entry in a configuration file is a
// different key, so its old list is never used. A fresh listing replaces the entry.
//
// The entries live in `$ZOT_HOME/mcp-cache/`, which a project cannot ship or write (never in the
// extension's own directory, which is the project's for a project copy). A cached list is
// untrusted input all the same: it is bounded here and then goes through the checks a fresh
// listing goes through (tools.ts, and zot's own on registration).
import { createHash, randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  renameSync,
  statSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import type { ServerConfig } from './config.js';
import { TOOL_LIMITS, type McpToolInfo } from './tools.js';

export const CACHE_LIMITS = {
  /** One server's entry; a bigger listing is not cached (it is listed afresh at every start). */
  entryBytes: 4 * 1024 * 1024,
  /** Entries kept; past this the least recently used go. */
  entries: 200,
} as const;

const VERSION = 1;
const ENTRY_NAME = /^[0-9a-f]{64}\.json$/;
/** A temporary file older than this was left by a write that never finished. */
const STALE_TEMP_MS = 60_000;

export const cacheDir = (home: string) => join(home, 'mcp-cache');

/** The key of a server's entry: sha256 of its configuration as it runs (`${VAR}` expanded). */
export function cacheKey(config: ServerConfig, cwd: string): string {
  const sorted = (map: Readonly<Record<string, string>>) =>
    Object.entries(map).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const identity =
    config.kind === 'http'
      ? ['http', config.url, sorted(config.headers)]
      : ['stdio', config.command, config.args, sorted(config.env), cwd];
  return createHash('sha256')
    .update(JSON.stringify([VERSION, config.source, ...identity]))
    .digest('hex');
}

const ownedByUs = (uid: number) => process.getuid === undefined || uid === process.getuid();

/** Why the directory must not be used (another owner, writable by others), or undefined. */
function unsafeDir(dir: string): string | undefined {
  const stat = lstatSync(dir);
  if (!stat.isDirectory()) return `${dir} is not a directory`;
  if (!ownedByUs(stat.uid)) return `${dir} belongs to another user`;
  if (process.platform !== 'win32' && (stat.mode & 0o022) !== 0)
    return `${dir} is writable by other users`;
  return undefined;
}

/** An object, its own fields only; anything else is not a tool. */
const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The tools of an entry as a listing would give them, or why the entry is unusable. */
function toolsOf(doc: unknown, key: string): McpToolInfo[] | string {
  if (!isObject(doc) || doc.version !== VERSION || doc.key !== key) return 'not an entry of ours';
  const tools = doc.tools;
  if (!Array.isArray(tools) || tools.length > TOOL_LIMITS.toolsPerServer)
    return 'its tool list is not a list of at most 500';
  const out: McpToolInfo[] = [];
  for (const tool of tools) {
    if (!isObject(tool) || typeof tool.name !== 'string') return 'a tool without a name';
    if (tool.description !== undefined && typeof tool.description !== 'string')
      return `tool ${JSON.stringify(tool.name.slice(0, 80))}: a description that is not text`;
    out.push({
      name: tool.name,
      ...(tool.description !== undefined ? { description: tool.description } : {}),
      ...(tool.inputSchema !== undefined ? { inputSchema: tool.inputSchema } : {}),
      ...(isObject(tool.execution)
        ? { execution: { taskSupport: tool.execution.taskSupport } }
        : {}),
    });
  }
  return out;
}

/** The cached tools, or (for the log) why an entry that exists cannot be used. */
export interface CacheRead {
  readonly tools?: McpToolInfo[];
  readonly problem?: string;
}

/**
 * The tools cached under `key`; a missing entry is no problem, an unusable one is (for the log).
 * Contract: never throws.
 */
export function readCachedTools(home: string, key: string): CacheRead {
  const dir = cacheDir(home);
  const path = join(dir, `${key}.json`);
  let fd: number | undefined;
  try {
    const unsafe = unsafeDir(dir);
    if (unsafe) return { problem: `tool cache not used: ${unsafe}` };
    fd = openSync(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
    const stat = fstatSync(fd);
    if (!stat.isFile() || !ownedByUs(stat.uid)) return { problem: `${path}: not a file of ours` };
    if (stat.size > CACHE_LIMITS.entryBytes)
      return { problem: `${path}: over ${CACHE_LIMITS.entryBytes} bytes` };
    const bytes = Buffer.alloc(stat.size);
    let read = 0;
    while (read < bytes.length) {
      const n = readSync(fd, bytes, read, bytes.length - read, read);
      if (n === 0) break;
      read += n;
    }
    const tools = toolsOf(JSON.parse(bytes.subarray(0, read).toString('utf8')), key);
    if (typeof tools === 'string') return { problem: `${path}: ${tools}; not used` };
    return { tools };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return {};
    return { problem: `${path}: ${(error as Error).message}; not used` };
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** The JSON an entry holds for `tools` (what a listing gave, nothing else). */
function entryText(key: string, server: string, tools: readonly McpToolInfo[]): string {
  return JSON.stringify({
    version: VERSION,
    key,
    server,
    tools: tools.slice(0, TOOL_LIMITS.toolsPerServer).map((tool) => ({
      name: tool.name,
      description: tool.description,
      inputSchema: tool.inputSchema,
      ...(isObject(tool.execution)
        ? { execution: { taskSupport: tool.execution.taskSupport } }
        : {}),
    })),
  });
}

/**
 * Replaces the entry under `key` with `tools`, atomically (a reader sees the old entry or the new
 * one, never a part), and drops the least recently used entries past the bound. When `cached`
 * (what the entry held at start) is the same list, the entry is only marked as used. Returns a
 * problem for the log, or undefined. Contract: never throws.
 */
export function writeCachedTools(
  home: string,
  key: string,
  server: string,
  tools: readonly McpToolInfo[],
  cached?: readonly McpToolInfo[],
): string | undefined {
  const dir = cacheDir(home);
  const path = join(dir, `${key}.json`);
  // Tool lists come from JSON (a server's message or an entry), so they always serialise.
  const text = entryText(key, server, tools);
  if (cached !== undefined && text === entryText(key, server, cached)) {
    try {
      const now = new Date();
      utimesSync(path, now, now);
      return undefined;
    } catch {
      // gone since it was read: written again below
    }
  }
  if (Buffer.byteLength(text) > CACHE_LIMITS.entryBytes)
    return `server "${server}": its tool list is over ${CACHE_LIMITS.entryBytes} bytes; not cached`;
  const temp = join(dir, `.${key}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const unsafe = unsafeDir(dir);
    if (unsafe) return `tool cache not written: ${unsafe}`;
    writeFileSync(temp, text, { mode: 0o600, flag: 'wx' });
    renameSync(temp, path);
  } catch (error) {
    try {
      unlinkSync(temp);
    } catch {
      // never created
    }
    return `${path}: ${(error as Error).message}; not cached`;
  }
  evict(dir);
  return undefined;
}

/** Keeps the newest CACHE_LIMITS.entries entries; removes temporary files of dead writes. */
function evict(dir: string): void {
  try {
    const names = readdirSync(dir);
    const now = Date.now();
    const entries: Array<{ path: string; mtime: number }> = [];
    for (const name of names) {
      const path = join(dir, name);
      const stat = statSync(path, { throwIfNoEntry: false });
      if (!stat) continue;
      if (ENTRY_NAME.test(name)) entries.push({ path, mtime: stat.mtimeMs });
      else if (name.endsWith('.tmp') && now - stat.mtimeMs > STALE_TEMP_MS) unlinkSync(path);
    }
    if (entries.length <= CACHE_LIMITS.entries) return;
    entries.sort((a, b) => b.mtime - a.mtime);
    for (const { path } of entries.slice(CACHE_LIMITS.entries)) unlinkSync(path);
  } catch {
    // another run evicting at the same time: the bound holds again after the next write
  }
}
