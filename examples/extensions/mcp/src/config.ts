// Reading MCP server configuration in the format people already have: `.mcp.json` in the
// project and `$ZOT_HOME/mcp.json` for the user, both `{"mcpServers": {"name": {...}}}`.
// Everything in these files is untrusted input: sizes and counts are bounded, every field is
// type-checked, and a bad entry is reported and skipped without affecting the others.
import { createHash } from 'node:crypto';
import { closeSync, constants, fstatSync, openSync } from 'node:fs';
import { homedir, platform } from 'node:os';
import { join } from 'node:path';
import { readStart } from '../../../../packages/zot/src/util/regular-file.js';
import { redactUrl } from './redact.js';
import { parseServerPermissions, type ServerPermissions } from './sandbox.js';

export const LIMITS = {
  fileBytes: 1024 * 1024,
  serversPerFile: 100,
  args: 256,
  envEntries: 256,
  stringChars: 8192,
  /** `startup_timeout_ms`: at most 10 minutes. */
  startupTimeoutMs: 600_000,
} as const;

export type Source = 'user' | 'project';

interface Common {
  /** The key in `mcpServers`, as written. */
  readonly name: string;
  readonly source: Source;
  /** `startup_timeout_ms` as written in the entry (absent: the default applies). */
  readonly startupTimeoutMs?: number;
}

export interface StdioServerConfig extends Common {
  readonly kind: 'stdio';
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  /** As the entry gives it (see sandbox.ts for what applies). */
  readonly permissions?: ServerPermissions;
}

export interface HttpServerConfig extends Common {
  readonly kind: 'http';
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
}

export type ServerConfig = StdioServerConfig | HttpServerConfig;

export interface ConfigFile {
  readonly path: string;
  /** The file exists (even when it could not be parsed). */
  readonly found: boolean;
  /** sha256 of the file's bytes, hex; what a project approval is pinned to. */
  readonly sha256?: string;
  readonly servers: readonly ServerConfig[];
  readonly problems: readonly string[];
  /** Top-level `deferThreshold` (honoured in the user file only). */
  readonly deferThreshold?: number;
}

/** Where zot keeps its state, resolved the way zot does (docs/extensions.md). */
export function zotHome(env: NodeJS.ProcessEnv = process.env): string {
  if (env.ZOT_HOME) return env.ZOT_HOME;
  if (env.XDG_STATE_HOME) return join(env.XDG_STATE_HOME, 'zot');
  if (platform() === 'darwin') return join(homedir(), 'Library', 'Application Support', 'zot');
  if (platform() === 'win32') {
    return join(env.LOCALAPPDATA ?? join(homedir(), 'AppData', 'Local'), 'zot');
  }
  return join(homedir(), '.local', 'state', 'zot');
}

export const userConfigPath = (home: string) => join(home, 'mcp.json');
export const projectConfigPath = (cwd: string) => join(cwd, '.mcp.json');

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Pass as the environment to read a file without expanding `${VAR}` (for a review). */
export const AS_WRITTEN: NodeJS.ProcessEnv = Object.freeze({});

/** `${VAR}` and `${VAR:-default}`, as in the files other MCP clients read; unset is empty. */
export function expandVars(text: string, env: NodeJS.ProcessEnv): string {
  if (env === AS_WRITTEN) return text;
  return text.replace(
    /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g,
    (_m, name: string, fallback?: string) => env[name] ?? fallback ?? '',
  );
}

function stringField(value: unknown, what: string): string {
  if (typeof value !== 'string') throw new Error(`${what} must be a string`);
  if (value.length > LIMITS.stringChars)
    throw new Error(`${what} is over ${LIMITS.stringChars} characters`);
  return value;
}

function stringMap(value: unknown, what: string, env: NodeJS.ProcessEnv): Record<string, string> {
  if (value === undefined || value === null) return {};
  if (!isObject(value)) throw new Error(`${what} must be an object of strings`);
  const entries = Object.entries(value);
  if (entries.length > LIMITS.envEntries)
    throw new Error(`${what} has over ${LIMITS.envEntries} entries`);
  return Object.fromEntries(
    entries.map(([key, v]) => [key, expandVars(stringField(v, `${what}.${key}`), env)]),
  );
}

/** `startup_timeout_ms`: a whole number of milliseconds, 1 to 10 minutes. */
function startupTimeout(value: unknown): { startupTimeoutMs?: number } {
  if (value === undefined) return {};
  if (
    typeof value !== 'number' ||
    !Number.isInteger(value) ||
    value < 1 ||
    value > LIMITS.startupTimeoutMs
  ) {
    throw new Error(
      `startup_timeout_ms must be a whole number of milliseconds from 1 to ${LIMITS.startupTimeoutMs}`,
    );
  }
  return { startupTimeoutMs: value };
}

/** One `mcpServers` entry; throws an Error naming the field when it is unusable. */
export function parseServer(
  name: string,
  raw: unknown,
  source: Source,
  env: NodeJS.ProcessEnv,
): ServerConfig | undefined {
  if (!isObject(raw)) throw new Error('must be an object');
  if (raw.disabled === true) return undefined;
  const common = { name, source, ...startupTimeout(raw.startup_timeout_ms) };
  const type = raw.type ?? (raw.url !== undefined && raw.command === undefined ? 'http' : 'stdio');
  if (type === 'http' || type === 'streamable-http' || type === 'streamableHttp') {
    if (raw.permissions !== undefined)
      throw new Error(
        '"permissions" applies to stdio servers: an HTTP server is a connection the bridge ' +
          'makes itself, and no sandbox holds what runs behind it',
      );
    const url = expandVars(stringField(raw.url, 'url'), env);
    if (env === AS_WRITTEN && url.includes('${')) {
      return { kind: 'http', ...common, url, headers: stringMap(raw.headers, 'headers', env) };
    }
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new Error(`url ${JSON.stringify(redactUrl(url))} is not a URL`);
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      throw new Error(`url must be http: or https: (got ${parsed.protocol})`);
    }
    return { kind: 'http', ...common, url, headers: stringMap(raw.headers, 'headers', env) };
  }
  if (type === 'sse') throw new Error('the SSE transport is not supported; use "type": "http"');
  if (type !== 'stdio') throw new Error(`unknown type ${JSON.stringify(type)}`);
  const command = expandVars(stringField(raw.command, 'command'), env);
  if (command.trim() === '') throw new Error('command is empty');
  const rawArgs = raw.args ?? [];
  if (!Array.isArray(rawArgs)) throw new Error('args must be an array of strings');
  if (rawArgs.length > LIMITS.args) throw new Error(`args has over ${LIMITS.args} entries`);
  const args = rawArgs.map((arg, i) => expandVars(stringField(arg, `args[${i}]`), env));
  const permissions = parseServerPermissions(raw.permissions, source);
  return {
    kind: 'stdio',
    ...common,
    command,
    args,
    env: stringMap(raw.env, 'env', env),
    ...(permissions !== undefined ? { permissions } : {}),
  };
}

/**
 * The file's bytes, or a problem naming it: regular files only, opened without blocking (a FIFO
 * named .mcp.json would otherwise hang the bridge in open()), at most LIMITS.fileBytes.
 * Contract: throws the open error (ENOENT for a missing file).
 */
function readBounded(path: string): Buffer | string {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) return `${path}: not a regular file; ignored`;
    if (stat.size > LIMITS.fileBytes) return `${path}: over ${LIMITS.fileBytes} bytes; ignored`;
    return readStart(fd, stat.size);
  } finally {
    closeSync(fd);
  }
}

/** Reads one configuration file. Contract: never throws; problems name the file and server. */
export function readConfigFile(
  path: string,
  source: Source,
  env: NodeJS.ProcessEnv = process.env,
): ConfigFile {
  let bytes: Buffer;
  try {
    const read = readBounded(path);
    if (typeof read === 'string') return { path, found: true, servers: [], problems: [read] };
    bytes = read;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR')
      return { path, found: false, servers: [], problems: [] };
    return { path, found: true, servers: [], problems: [`${path}: ${(error as Error).message}`] };
  }
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  let doc: unknown;
  try {
    doc = JSON.parse(bytes.toString('utf8'));
  } catch (error) {
    return {
      path,
      found: true,
      sha256,
      servers: [],
      problems: [`${path}: not JSON (${(error as Error).message})`],
    };
  }
  if (!isObject(doc)) {
    return { path, found: true, sha256, servers: [], problems: [`${path}: not a JSON object`] };
  }
  return { path, found: true, sha256, ...parseTable(path, doc, source, env) };
}

/** Where the editor's servers come from, for messages. */
export const EDITOR_SOURCE = 'the editor (ACP session/new)';

/**
 * The MCP servers an editor handed `zot acp` (ZOT_MCP_EDITOR_SERVERS: an `mcpServers` table).
 * They are the user's own choice, read as the user's file is. Contract: never throws.
 */
export function readEditorServers(env: NodeJS.ProcessEnv = process.env): ConfigFile {
  const text = env.ZOT_MCP_EDITOR_SERVERS;
  const path = EDITOR_SOURCE;
  if (!text) return { path, found: false, servers: [], problems: [] };
  let table: unknown;
  try {
    table = JSON.parse(text);
  } catch (error) {
    return {
      path,
      found: true,
      servers: [],
      problems: [`${path}: not JSON (${(error as Error).message})`],
    };
  }
  const { servers, problems } = parseTable(path, { mcpServers: table }, 'user', env);
  return { path, found: true, servers, problems };
}

/** The servers of a parsed configuration document. */
function parseTable(
  path: string,
  doc: Record<string, unknown>,
  source: Source,
  env: NodeJS.ProcessEnv,
): Pick<ConfigFile, 'servers' | 'problems' | 'deferThreshold'> {
  const problems: string[] = [];
  const servers: ServerConfig[] = [];
  const table = doc.mcpServers ?? {};
  if (!isObject(table)) problems.push(`${path}: "mcpServers" must be an object`);
  const entries = isObject(table) ? Object.entries(table) : [];
  if (entries.length > LIMITS.serversPerFile) {
    problems.push(
      `${path}: ${entries.length} servers; only the first ${LIMITS.serversPerFile} are read`,
    );
  }
  for (const [name, raw] of entries.slice(0, LIMITS.serversPerFile)) {
    try {
      const server = parseServer(name, raw, source, env);
      if (server) servers.push(server);
    } catch (error) {
      problems.push(
        `${path}: server ${JSON.stringify(name)}: ${(error as Error).message}; skipped`,
      );
    }
  }
  const threshold = doc.deferThreshold;
  const deferThreshold =
    typeof threshold === 'number' && Number.isInteger(threshold) && threshold >= 0
      ? threshold
      : undefined;
  if (threshold !== undefined && deferThreshold === undefined) {
    problems.push(`${path}: "deferThreshold" must be a whole number >= 0; ignored`);
  }
  return { servers, problems, ...(deferThreshold !== undefined ? { deferThreshold } : {}) };
}
