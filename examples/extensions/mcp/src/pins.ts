// Project-local server programs. Approving a project's `.mcp.json` approves the programs it
// starts, and when those live in the project (`python3 tools/srv.py`, `./bin/server`), their
// bytes are as much the project's code as the file's: an edit of `tools/srv.py` after the
// approval must ask again. So every file a project server's command, arguments or environment
// values name inside the project is hashed into the approval, like extension code.
import { createHash } from 'node:crypto';
import { closeSync, lstatSync, openSync, readSync, realpathSync, statSync } from 'node:fs';
import { dirname, extname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ServerConfig } from './config.js';

export const PIN_LIMITS = {
  /** Files pinned for one project. */
  files: 1000,
  /** Bytes of one pinned file, and of all of them together. */
  fileBytes: 64 * 1024 * 1024,
  totalBytes: 256 * 1024 * 1024,
} as const;

export interface PinnedFile {
  /** As it is named, relative to the project root with `/`. */
  readonly path: string;
  /** `missing`: named like a program but not there now (creating it later asks again). */
  readonly state: 'file' | 'missing';
  readonly sha256?: string;
  readonly bytes?: number;
  /** Where a symlink leads, when it does. */
  readonly real?: string;
}

export interface ProjectPins {
  /** Sorted by path. */
  readonly files: readonly PinnedFile[];
  /** Files that cannot be pinned; while there is one, the project cannot be approved. */
  readonly problems: readonly string[];
}

/** Extensions that make a missing name look like a program the server would run. */
const PROGRAM_EXTENSIONS = new Set(
  '.py .pyw .js .mjs .cjs .ts .mts .cts .sh .bash .zsh .rb .pl .php .lua .jar .exe .bat .cmd .ps1 .r .jl .dart .go .swift .kts'.split(
    ' ',
  ),
);

/**
 * The project the pins belong to: the repository holding `cwd` (the nearest `.git`
 * directory; a `.git` file, a worktree or submodule, marks a root but the search goes on), or
 * `cwd` itself outside any repository. Contract: never throws.
 */
export function projectRoot(cwd: string): string {
  let found: string | undefined;
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    const dotGit = join(dir, '.git');
    try {
      lstatSync(dotGit);
      found = dir;
      if (statSync(dotGit).isDirectory()) return dir;
    } catch {
      // no .git here
    }
    if (dirname(dir) === dir) return found ?? resolve(cwd);
  }
}

/** Every word a stdio server is started with that may name a file, as written after expansion. */
function words(config: ServerConfig): string[] {
  if (config.kind !== 'stdio') return [];
  const out: string[] = [];
  const add = (word: string) => {
    if (word === '') return;
    out.push(word);
    const option = /^--?[^=]+=(.+)$/s.exec(word);
    if (option) out.push(option[1]!);
  };
  add(config.command);
  config.args.forEach(add);
  // `NODE_OPTIONS: "--require ./x.js"`, `PYTHONPATH: "lib"`: values can name files too.
  for (const value of Object.values(config.env))
    for (const word of value.split(/[\s:;]+/)) add(word);
  return out;
}

/** The absolute path a word names, when it could name a file at all. */
function pathOf(word: string, cwd: string): string | undefined {
  if (/^file:/i.test(word)) {
    try {
      return fileURLToPath(word);
    } catch {
      return undefined;
    }
  }
  // URLs, npm package specifiers and options are not paths.
  if (/^[a-z][a-z0-9+.-]*:/i.test(word) || word.startsWith('-')) return undefined;
  return resolve(cwd, word);
}

function looksLikeProgram(word: string): boolean {
  return /^\.\.?[\\/]/.test(word) || PROGRAM_EXTENSIONS.has(extname(word).toLowerCase());
}

const inside = (root: string, path: string) => {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
};

/**
 * The files the project's stdio servers name inside the project root, with their content hashes.
 * Directories are not pinned (servers are often given a directory to work on); a file a word
 * names is pinned wherever a symlink leads it, so its content is what was reviewed.
 * Contract: never throws; bounded by PIN_LIMITS (over them: a problem, and no approval).
 */
export function projectPins(servers: readonly ServerConfig[], cwd: string): ProjectPins {
  const root = projectRoot(cwd);
  const found = new Map<string, PinnedFile>();
  const problems: string[] = [];
  let total = 0;
  for (const server of servers) {
    for (const word of words(server)) {
      const path = pathOf(word, cwd);
      if (path === undefined || !inside(root, path)) continue;
      const key = relative(root, path).split(sep).join('/') || '.';
      if (found.has(key)) continue;
      if (found.size >= PIN_LIMITS.files) {
        problems.push(`more than ${PIN_LIMITS.files} project files named; not all can be pinned`);
        return { files: sorted(found), problems };
      }
      let stat;
      try {
        stat = statSync(path);
      } catch {
        if (looksLikeProgram(word)) found.set(key, { path: key, state: 'missing' });
        continue;
      }
      if (!stat.isFile()) continue;
      if (stat.size > PIN_LIMITS.fileBytes || total + stat.size > PIN_LIMITS.totalBytes) {
        problems.push(
          `${key} (named by server "${server.name}") is too large to pin (${stat.size} bytes); ` +
            `a project file a server runs must be under ${PIN_LIMITS.fileBytes / 1024 / 1024} MiB`,
        );
        continue;
      }
      const hashed = hashFile(path);
      if (typeof hashed !== 'string') {
        problems.push(`${key} (named by server "${server.name}"): ${hashed.error}`);
        continue;
      }
      total += stat.size;
      const real = realOr(path);
      found.set(key, {
        path: key,
        state: 'file',
        sha256: hashed,
        bytes: stat.size,
        ...(real !== path ? { real } : {}),
      });
    }
  }
  return { files: sorted(found), problems };
}

function sorted(found: Map<string, PinnedFile>): PinnedFile[] {
  return [...found.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

function hashFile(path: string): string | { error: string } {
  const hash = createHash('sha256');
  const buffer = Buffer.allocUnsafe(1024 * 1024);
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    for (;;) {
      const read = readSync(fd, buffer, 0, buffer.length, null);
      if (read === 0) break;
      hash.update(buffer.subarray(0, read));
    }
    return hash.digest('hex');
  } catch (error) {
    return { error: `cannot read it (${(error as Error).message})` };
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function realOr(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/**
 * What an approval pins: the `.mcp.json` bytes' sha256, and with project files named, a digest of
 * it and every pinned file. Without such files it is the file's own sha256, so approvals given
 * before programs were pinned stay valid where nothing more is run from the project.
 */
export function approvalHash(configSha256: string, pins: ProjectPins): string {
  if (pins.files.length === 0) return configSha256;
  const digest = createHash('sha256').update(`zot-mcp-approval-v1\n${configSha256}\n`);
  for (const file of pins.files)
    digest.update(`${file.state} ${JSON.stringify(file.path)} ${file.sha256 ?? ''}\n`);
  return digest.digest('hex');
}
