// The paths a permissions block names, and the programs a sandbox must hold: `${project}`,
// `${ext}`, `${data}` and `~` expanded, `#!` lines read, names looked up on PATH.
import { closeSync, lstatSync, openSync, readSync, statSync, type Stats } from 'node:fs';
import { basename, delimiter, isAbsolute, join, resolve } from 'node:path';

/** A permission that can never be granted (the message names it). */
export class ScopeError extends Error {}

/** What `${project}`, `${ext}`, `${data}` and `~` stand for. */
export interface ScopePlaces {
  project: string;
  extDir?: string;
  dataDir: string;
  home: string;
}

/** What is at `path` (the link itself, not where it leads), or undefined. */
export function lstatKind(path: string): 'dir' | 'file' | 'link' | undefined {
  try {
    // Most paths a scope looks for are missing: no exception built for them.
    const stat = lstatSync(path, { throwIfNoEntry: false });
    if (!stat) return undefined;
    return stat.isSymbolicLink() ? 'link' : stat.isDirectory() ? 'dir' : 'file';
  } catch {
    return undefined; // ENOTDIR, EACCES, ELOOP
  }
}

function statOrNothing(path: string): Stats | undefined {
  try {
    return statSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

/** `${project}`, `${ext}`, `${data}` and `~` replaced; the entry is one pathEntryProblem accepts. */
export function expandPathEntry(entry: string, places: ScopePlaces): string {
  const swap = (prefix: string, value: string) =>
    entry === prefix ? value : join(value, entry.slice(prefix.length + 1));
  if (entry === '${project}' || entry.startsWith('${project}/'))
    return swap('${project}', places.project);
  if (entry === '${ext}' || entry.startsWith('${ext}/')) {
    if (places.extDir === undefined)
      throw new ScopeError(
        `${entry}: \${ext} names an extension's directory, and there is none here`,
      );
    return swap('${ext}', places.extDir);
  }
  if (entry === '${data}' || entry.startsWith('${data}/')) return swap('${data}', places.dataDir);
  if (entry === '~' || entry.startsWith('~/')) return swap('~', places.home);
  return resolve(entry);
}

/**
 * The first line of `path` when it is a `#!` script: the interpreter and its first word
 * (`/usr/bin/env python3` gives `/usr/bin/env` and `python3`). Contract: never throws.
 */
export function shebangOf(path: string): string[] | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const buffer = Buffer.alloc(256);
    const read = readSync(fd, buffer, 0, buffer.length, 0);
    const text = buffer.subarray(0, read).toString('latin1');
    if (!text.startsWith('#!')) return undefined;
    const words = text.slice(2).split('\n')[0]!.trim().split(/\s+/).filter(Boolean);
    // `env -S prog args` and `env prog`: the program is the first word that is not an option
    if (words.length > 0 && basename(words[0]!) === 'env') {
      const program = words.slice(1).find((word) => !word.startsWith('-'));
      return program ? [words[0]!, program] : [words[0]!];
    }
    return words.slice(0, 1);
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** `name` on PATH (absolute entries only, as exec resolution does). */
export function onPath(name: string, path: string | undefined): string | undefined {
  for (const dir of (path ?? '').split(delimiter)) {
    if (!isAbsolute(dir)) continue;
    const candidate = join(dir, name);
    const kind = lstatKind(candidate);
    // A link must lead somewhere (stat follows it; a dangling one: keep looking).
    if (kind === 'file' || (kind === 'link' && statOrNothing(candidate))) return candidate;
  }
  return undefined;
}
