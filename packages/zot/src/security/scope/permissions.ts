// An extension's `permissions` block (extension.json): what it may read, write, reach and run,
// and which variables it gets. Parsed strictly: every problem names the field and the entry.
// Paths stay as written here (`${project}/docs`, `~/.cache/x`); scope-policy.ts resolves them.
import { normalizeHostEntry, type NetworkSetting } from '../sandbox/settings.js';

export interface ExtensionPermissions {
  fs: { read: string[]; write: string[] };
  /** false: no network; true: the host's; a list: these hosts through zot's proxy. */
  net: NetworkSetting;
  /** Programs beside its own interpreter, by name (looked up on PATH) or path; true: all of PATH. */
  exec: true | string[];
  /** Variables passed through besides the few every scoped extension gets. */
  env: string[];
}

/** The variables a path entry may start with. */
export const PATH_VARIABLES = ['${project}', '${ext}', '${data}'] as const;

const MAX_ENTRIES = 64;
const MAX_ENV = 256;
const MAX_CHARS = 4096;
const KEYS = ['fs', 'net', 'exec', 'env'];
const FS_KEYS = ['read', 'write'];

/** A problem with the block; the message names the field. */
export class PermissionError extends Error {}

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * Why `entry` is not a usable path entry, or undefined. Plain directories and files only:
 * `${project}`, `${ext}`, `${data}` or `~` alone or followed by `/...`, or an absolute path; no
 * globs, no `.` or `..` segments, no other variables.
 */
export function pathEntryProblem(entry: string): string | undefined {
  if (entry === '') return 'is empty';
  if (entry.length > MAX_CHARS) return `is longer than ${MAX_CHARS} characters`;
  if (/[\0-\x1f\x7f]/.test(entry)) return 'holds a control character';
  const variable = PATH_VARIABLES.find((name) => entry === name || entry.startsWith(`${name}/`));
  const rest = variable
    ? entry.slice(variable.length)
    : entry === '~' || entry.startsWith('~/')
      ? entry.slice(1)
      : entry.startsWith('/')
        ? entry
        : undefined;
  if (rest === undefined) {
    return (
      'must start with ${project}, ${ext}, ${data}, ~/ or / (relative paths would depend on ' +
      'where zot runs)'
    );
  }
  if (rest.includes('$')) return 'holds a variable other than ${project}, ${ext} or ${data}';
  if (/[*?[\]{}]/.test(rest))
    return 'is a glob; name a directory (everything below it is included) or a file instead';
  const segments = rest.split('/').filter((segment, index, all) => {
    // a trailing slash is fine; an empty segment in the middle is not
    return !(segment === '' && (index === 0 || index === all.length - 1));
  });
  if (segments.some((segment) => segment === '..' || segment === '.'))
    return 'has a "." or ".." segment; write the path it means';
  if (segments.some((segment) => segment === '')) return 'has an empty segment ("//")';
  return undefined;
}

function stringList(value: unknown, field: string, max: number): string[] {
  if (!Array.isArray(value)) throw new PermissionError(`"${field}" must be an array of strings`);
  if (value.length > max) throw new PermissionError(`"${field}" has more than ${max} entries`);
  return value.map((item, index) => {
    if (typeof item !== 'string')
      throw new PermissionError(`"${field}"[${index}] must be a string`);
    return item;
  });
}

function pathList(value: unknown, field: string): string[] {
  if (value === undefined || value === null) return [];
  const list = stringList(value, field, MAX_ENTRIES);
  list.forEach((entry, index) => {
    const problem = pathEntryProblem(entry);
    if (problem)
      throw new PermissionError(`"${field}"[${index}] ${JSON.stringify(entry)} ${problem}`);
  });
  return dedupe(list.map(trimSlash));
}

const trimSlash = (entry: string) =>
  entry.length > 1 && entry.endsWith('/') ? entry.replace(/\/+$/, '') || '/' : entry;
const dedupe = (list: string[]) => [...new Set(list)];

function network(value: unknown): NetworkSetting {
  if (value === undefined || value === null) return false;
  if (typeof value === 'boolean') return value;
  if (!Array.isArray(value))
    throw new PermissionError(
      '"permissions.net" must be false, true or a list of hosts ("host", "host:port", "*.host")',
    );
  const hosts = stringList(value, 'permissions.net', MAX_ENTRIES).map((entry, index) => {
    const host = normalizeHostEntry(entry);
    if (host === undefined)
      throw new PermissionError(
        `"permissions.net"[${index}] ${JSON.stringify(entry)} is not a host, host:port or *.host`,
      );
    return host;
  });
  return hosts.length === 0 ? false : dedupe(hosts);
}

/** A program name as PATH lookup takes it: one word, no separators. */
const PROGRAM_NAME = /^[A-Za-z0-9_+][A-Za-z0-9._+-]{0,254}$/;

function programs(value: unknown): true | string[] {
  if (value === undefined || value === null || value === false) return [];
  if (value === true) return true;
  if (!Array.isArray(value))
    throw new PermissionError(
      '"permissions.exec" must be true, false or a list of programs (names on PATH or paths)',
    );
  const list = stringList(value, 'permissions.exec', MAX_ENTRIES);
  list.forEach((entry, index) => {
    if (PROGRAM_NAME.test(entry)) return;
    const problem = pathEntryProblem(entry);
    if (problem)
      throw new PermissionError(
        `"permissions.exec"[${index}] ${JSON.stringify(entry)} is neither a program name nor a path: it ${problem}`,
      );
  });
  return dedupe(list.map(trimSlash));
}

const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

function variables(value: unknown): string[] {
  if (value === undefined || value === null) return [];
  const list = stringList(value, 'permissions.env', MAX_ENV);
  list.forEach((entry, index) => {
    if (!VARIABLE_NAME.test(entry))
      throw new PermissionError(
        `"permissions.env"[${index}] ${JSON.stringify(entry)} is not a variable name (letters, digits, _)`,
      );
  });
  return dedupe(list);
}

/**
 * The block as written in extension.json. Contract: throws PermissionError (naming the field)
 * for anything it does not understand: an unknown key is an error, not ignored, because a
 * misspelt permission would otherwise silently grant less (or, read by another tool, more).
 */
export function parsePermissions(raw: unknown): ExtensionPermissions {
  if (!isObject(raw))
    throw new PermissionError('"permissions" must be an object (see docs/extensions.md)');
  for (const key of Object.keys(raw)) {
    if (!KEYS.includes(key))
      throw new PermissionError(
        `"permissions.${key.slice(0, 60)}" is not a permission (known: ${KEYS.join(', ')})`,
      );
  }
  let fs = { read: [] as string[], write: [] as string[] };
  if (raw.fs !== undefined && raw.fs !== null) {
    if (!isObject(raw.fs))
      throw new PermissionError('"permissions.fs" must be an object with "read" and "write" lists');
    for (const key of Object.keys(raw.fs)) {
      if (!FS_KEYS.includes(key))
        throw new PermissionError(
          `"permissions.fs.${key.slice(0, 60)}" is not a permission (known: read, write)`,
        );
    }
    fs = {
      read: pathList(raw.fs.read, 'permissions.fs.read'),
      write: pathList(raw.fs.write, 'permissions.fs.write'),
    };
  }
  return { fs, net: network(raw.net), exec: programs(raw.exec), env: variables(raw.env) };
}

/** The block in a fixed form, for comparing what was trusted with what is asked now. */
export function canonicalPermissions(permissions: ExtensionPermissions | undefined): string {
  if (!permissions) return 'unscoped';
  const sorted = (list: string[]) => [...list].sort();
  return JSON.stringify({
    fs: { read: sorted(permissions.fs.read), write: sorted(permissions.fs.write) },
    net: Array.isArray(permissions.net) ? sorted(permissions.net) : permissions.net,
    exec: permissions.exec === true ? true : sorted(permissions.exec),
    env: sorted(permissions.env),
  });
}

/** Reads a canonical form back; undefined for `unscoped` or anything unreadable. */
export function permissionsFromCanonical(text: string): ExtensionPermissions | undefined {
  if (text === 'unscoped') return undefined;
  try {
    return parsePermissions(JSON.parse(text));
  } catch {
    return undefined;
  }
}

/** One line per permission, for reviews, `zot ext list` and doctor. */
export function describePermissions(permissions: ExtensionPermissions | undefined): string[] {
  if (!permissions)
    return [
      'unscoped: no "permissions" block, so it runs with your full rights (files, network, programs, environment)',
    ];
  const list = (items: string[]) => (items.length > 0 ? items.join(', ') : 'nothing more');
  const net =
    permissions.net === false
      ? 'none'
      : permissions.net === true
        ? 'any host (the network is shared)'
        : `only ${permissions.net.join(', ')} (through zot's proxy)`;
  return [
    `read:    its own directory, ${list(permissions.fs.read)}`,
    `write:   its data directory, ${list(permissions.fs.write)}`,
    `network: ${net}`,
    `runs:    its interpreter${permissions.exec === true ? ', anything on PATH' : permissions.exec.length > 0 ? `, ${permissions.exec.join(', ')}` : ''}`,
    `env:     ${permissions.env.length > 0 ? permissions.env.join(', ') : 'no variables beyond the basic ones'}`,
  ];
}

/** The permissions in two short lines, for a narrow dialog. */
export function summarizePermissions(permissions: ExtensionPermissions): string[] {
  const list = (items: string[], none: string) => (items.length > 0 ? items.join(', ') : none);
  const net =
    permissions.net === false
      ? 'none'
      : permissions.net === true
        ? 'any host'
        : permissions.net.join(', ');
  const exec =
    permissions.exec === true ? 'anything on PATH' : list(permissions.exec, 'its interpreter only');
  return [
    `read ${list(permissions.fs.read, 'its own files only')}; write ${list(permissions.fs.write, 'its data only')}`,
    `network ${net}; runs ${exec}; env ${list(permissions.env, 'basic only')}`,
  ];
}

/** One word for a table column. */
export const scopeLabel = (permissions: ExtensionPermissions | undefined): string =>
  permissions ? 'scoped' : 'unscoped';

/**
 * What `now` grants that `before` did not, one line each (empty: nothing wider). `before`
 * undefined means unscoped: nothing can be wider than that, so nothing is listed.
 */
export function widenedPermissions(
  before: ExtensionPermissions | undefined,
  now: ExtensionPermissions | undefined,
): string[] {
  if (!before) return [];
  if (!now) return ['the "permissions" block was removed: it would run with your full rights'];
  const prior = before;
  const lines: string[] = [];
  const added = (label: string, old: string[], next: string[]) => {
    const more = next.filter((item) => !old.includes(item));
    if (more.length > 0) lines.push(`${label}: ${more.join(', ')}`);
  };
  added('read', prior.fs.read, now.fs.read);
  added('write', prior.fs.write, now.fs.write);
  if (now.net === true && prior.net !== true) lines.push('network: any host');
  else if (Array.isArray(now.net))
    added('network', prior.net === false ? [] : prior.net === true ? now.net : prior.net, now.net);
  if (now.exec === true && prior.exec !== true) lines.push('runs: anything on PATH');
  else if (Array.isArray(now.exec))
    added('runs', prior.exec === true ? now.exec : prior.exec, now.exec);
  added('env', prior.env, now.env);
  return lines;
}
