// What every scoped sandbox holds besides its permissions: the system's programs and libraries,
// the part of /etc programs need, and the few variables every sandboxed program gets.
import { readdirSync, type Dirent } from 'node:fs';
import { join } from 'node:path';

/** The system's programs and libraries: read-only in every scope (or recreated as links). */
export const SYSTEM_ROOTS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'];

/**
 * What of /etc programs need to start, resolve names and check certificates; the rest of /etc
 * (host keys, shadow, private certificates) stays out.
 */
export const ETC_ENTRIES = [
  'alternatives',
  'ca-certificates',
  'ca-certificates.conf',
  'crypto-policies',
  'gai.conf',
  'group',
  'host.conf',
  'hosts',
  'ld.so.cache',
  'ld.so.conf',
  'ld.so.conf.d',
  'locale.alias',
  'localtime',
  'mime.types',
  'nsswitch.conf',
  'os-release',
  'passwd',
  'pki',
  'protocols',
  'resolv.conf',
  'services',
  'ssl',
  'timezone',
];
/** Inside a mounted /etc entry, but still private. */
export const ETC_HIDDEN = ['/etc/ssl/private', '/etc/pki/tls/private'];

/** The variables every scoped extension gets (and LC_*, ZOT_EXT_*). */
export const BASE_ENV = [
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'LANG',
  'LANGUAGE',
  'TZ',
  'TERM',
  'COLORTERM',
  'NO_COLOR',
  'TMPDIR',
  'PYTHONDONTWRITEBYTECODE',
  'PYTHONUNBUFFERED',
  'PYTHONIOENCODING',
  'PYTHONUTF8',
];

/** Below the data directory: where Python keeps the bytecode of what a scoped program imports. */
export const PYCACHE_DIR = '.pycache';

/**
 * A scoped extension's environment: only the names `allowed` keeps, and Python's bytecode
 * cache in its data directory. Inside the sandbox its own directory, zot's Python SDK and the
 * interpreter's are read-only, so Python could not write `__pycache__` beside them and would
 * compile those modules again at every start; PYTHONPYCACHEPREFIX sends the bytecode to the one
 * place it may write. Not when PYTHONDONTWRITEBYTECODE is set (nothing would ever be written
 * there, and the interpreter's own `__pycache__` would no longer be read), nor over a prefix the
 * permissions pass through.
 */
export function scopedEnvironment(
  env: NodeJS.ProcessEnv,
  allowed: readonly string[],
  dataDir: string,
): NodeJS.ProcessEnv {
  const names = new Set([...BASE_ENV, ...allowed]);
  const out: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    if (names.has(name) || name.startsWith('LC_') || name.startsWith('ZOT_EXT_')) out[name] = value;
  }
  if (!out.PYTHONDONTWRITEBYTECODE && !out.PYTHONPYCACHEPREFIX)
    out.PYTHONPYCACHEPREFIX = join(dataDir, PYCACHE_DIR);
  return out;
}

/** The /etc entries a scope holds, with what each is (one directory read, no lstat each). */
export function etcEntries(): Array<{ name: string; kind: 'dir' | 'file' | 'link' }> {
  let entries: Dirent[];
  try {
    entries = readdirSync('/etc', { withFileTypes: true });
  } catch {
    return [];
  }
  // Debian's python3.x directories hold the interpreter's sitecustomize.
  return entries
    .filter((entry) => ETC_ENTRIES.includes(entry.name) || /^python3(\.\d+)?$/.test(entry.name))
    .map((entry) => ({
      name: entry.name,
      kind: entry.isSymbolicLink() ? 'link' : entry.isDirectory() ? 'dir' : 'file',
    }));
}
