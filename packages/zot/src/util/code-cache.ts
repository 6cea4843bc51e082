// V8's compiled code for the bundle's chunks, kept between runs. Node 20 compiles every
// CommonJS file from source on every start (its own compile cache arrives in Node 22), and the
// chunk a `zot -p` run needs takes about 7 ms to compile; with the code V8 made last time it
// takes under 1 (docs/architecture.md, "Start-up"). The cache is an optimisation only: any
// problem with it (unwritable directory, damaged or foreign file, rejected data) means the chunk
// compiles as usual, and nothing is reported.
//
// Keyed by chunk file name, size and mtime, in a directory per V8 version, architecture and
// installation: a rebuilt or edited chunk gets a new key, and V8 itself rejects data made by
// another V8 or with other flags. Written once per key, at exit (so the data holds the functions
// this run compiled), to a temporary file renamed into place; the directory's stale files (of
// chunks that changed or are gone) are removed then.
//
// V8 runs this data as code, and checks little of it (for the source, only its length), so a
// file is used only when zot itself wrote it (util/code-cache-trust.ts: an HMAC under a key in
// $ZOT_HOME, remembered as a seal of the file's identity). Beyond that, the cache directory must
// be the user's and private, every directory above it and the key owned by the user or root and
// writable by no one else (sticky directories such as /tmp excepted), and the cache directory
// must not lie inside the project zot runs in.
//
// The hook into Node's compile step is private to Node: util/node-module-internals.ts checks its
// shape first and explains why Node's public compile cache is not used instead.
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  realpathSync,
  rmSync,
  statSync,
} from 'node:fs';
import Module from 'node:module';
import { basename, dirname, join, resolve } from 'node:path';
import { Script } from 'node:vm';
import { CacheTrust, ownedPrivately, trustedPath } from './code-cache-trust.js';
import { hookCompile, wrapperStart } from './node-module-internals.js';
import { projectRoot } from './repository.js';
import { isWithin } from './regular-file.js';
/** Larger files are not V8 data for our chunks: the largest chunk's is under 1 MiB. */
const MAX_CACHE_BYTES = 16 * 1024 * 1024;

/** The cache file for a chunk, or undefined when the chunk cannot be stat'ed. */
function cacheFile(dir: string, chunk: string): string | undefined {
  try {
    const stat = statSync(chunk);
    return join(dir, `${basename(chunk)}-${stat.size}-${Math.trunc(stat.mtimeMs)}.v8`);
  } catch {
    return undefined;
  }
}

/** Whether the cache directory may be used: missing (it is made private), or private. */
function usableDirectory(dir: string): boolean {
  try {
    const stat = lstatSync(dir);
    return stat.isDirectory() && ownedPrivately(stat);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT';
  }
}

/** FNV-1a: a short, stable name for the installation's directory (not a security measure). */
function fnv1a(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return (hash >>> 0).toString(16).padStart(8, '0');
}

/** A temporary file this old was left by a killed run, not being written by a live one. */
const ABANDONED_TMP_MS = 60_000;

/** A cache file whose chunk is gone or changed, or a temporary file left by a killed run. */
function isStale(name: string, dir: string, chunksDir: string): boolean {
  const key = /^(.+\.js)-\d+-\d+\.v8$/.exec(name);
  if (!key) {
    if (!name.endsWith('.tmp')) return false;
    try {
      return Date.now() - statSync(join(dir, name)).mtimeMs > ABANDONED_TMP_MS;
    } catch {
      return false;
    }
  }
  const chunk = join(chunksDir, key[1]!);
  return !existsSync(chunk) || cacheFile(dir, chunk) !== join(dir, name);
}

/** Writes what this run compiled for the chunks that had no usable data; drops stale files. */
function writeCaches(
  dir: string,
  chunksDir: string,
  trust: CacheTrust,
  pending: Map<string, Script>,
): void {
  try {
    if (pending.size > 0) {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      if (!usableDirectory(dir)) return;
      for (const [file, script] of pending) trust.write(file, script.createCachedData());
      for (const name of readdirSync(dir)) {
        if (isStale(name, dir, chunksDir)) rmSync(join(dir, name), { force: true });
      }
      trust.prune((name) => existsSync(join(dir, name)));
    }
  } catch {
    // an optimisation only: the next run compiles from source again
  } finally {
    trust.save();
  }
}

/** What the cache did in this process, by chunk file name (for tests and diagnostics). */
export interface CodeCacheStats {
  /** Chunks compiled from kept data. */
  readonly fromCache: string[];
  /** Chunks compiled from source, whose data is written at exit. */
  readonly compiled: string[];
}

export interface CodeCacheDirectories {
  /** Where the V8 data goes (a directory per V8 version and installation is made in it). */
  cacheDir: string;
  /** The private directory of the key (under $ZOT_HOME, never inside `cacheDir`). */
  keyDir: string;
  /** The working directory: a cache directory inside its project is not used. */
  cwd?: string;
}

/** Whether the cache directory may be used at all: see the file's opening comment. */
function usableLocation(dirs: CodeCacheDirectories, dir: string): boolean {
  if (isWithin(resolve(dirs.cacheDir), resolve(dirs.keyDir))) return false;
  if (!trustedPath(dir) || !trustedPath(dirs.keyDir)) return false;
  const project = projectRoot(dirs.cwd ?? process.cwd());
  let real = resolve(dirs.cacheDir);
  try {
    real = realpathSync(real);
  } catch {
    // not made yet: its lexical path is where it will be
  }
  let root = project;
  try {
    root = realpathSync(project);
  } catch {
    // the working directory is gone: compare lexically
  }
  return !isWithin(root, real);
}

/**
 * Compiles the CommonJS files directly in `chunksDir` with V8 data kept in `dirs.cacheDir`.
 * Contract: never throws; a file it cannot help is compiled by Node as usual.
 */
export function useCodeCache(
  chunksDir: string,
  dirs: CodeCacheDirectories,
  warn?: (line: string) => void,
): CodeCacheStats {
  const stats: CodeCacheStats = { fromCache: [], compiled: [] };
  const dir = join(dirs.cacheDir, `v8-${process.versions.v8}-${process.arch}-${fnv1a(chunksDir)}`);
  if (!usableDirectory(dir) || !usableLocation(dirs, dir)) return stats;
  // No key yet (a first run): nothing kept can be trusted, and this run's data is signed at exit.
  const trust = new CacheTrust(dirs.keyDir, dir);
  const pending = new Map<string, Script>();
  const prefix = wrapperStart();
  const hooked = hookCompile((compile, module, content, filename, ...rest) => {
    // newer Nodes pass a format: only plain CommonJS is compiled here
    const commonJs = rest[0] === undefined || rest[0] === 'commonjs';
    const ours = commonJs && dirname(filename) === chunksDir && !content.startsWith('#!');
    const file = ours ? cacheFile(dir, filename) : undefined;
    if (file === undefined) return compile(module, content, filename, ...rest);
    const cachedData = trust.read(file, MAX_CACHE_BYTES);
    // Node's own function wrapper; the offset keeps first-line columns in stack traces right
    const script = new Script(Module.wrap(content), {
      filename,
      cachedData,
      columnOffset: -prefix.length,
    });
    if (cachedData === undefined || script.cachedDataRejected === true) {
      pending.set(file, script);
      stats.compiled.push(basename(filename));
    } else {
      stats.fromCache.push(basename(filename));
    }
    const run = script.runInThisContext() as (...args: unknown[]) => unknown;
    const require = Module.createRequire(filename);
    return run.call(module.exports, module.exports, require, module, filename, dirname(filename));
  }, warn);
  if (!hooked) return stats;
  process.once('exit', () => writeCaches(dir, chunksDir, trust, pending));
  return stats;
}
