// Installing extensions into $ZOT_HOME/extensions (a copied directory or a shallow git clone)
// and removing them. Everything is staged in a hidden directory beside the destination, so a
// failure at any step rolls back by deleting that one directory (discovery skips hidden names).
import {
  chmodSync,
  constants,
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
} from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { errorMessage, launchFailureText } from '../util/errors.js';
import { realPathOr } from '../util/real-path.js';
import { launchProcess } from '../security/launcher.js';
import { redactUrl, redactUrlsIn } from '../util/redact.js';
import { resolveExec } from './exec-resolve.js';
import { isInside, readManifest, type Manifest } from './manifest.js';
import { checkExtensionName } from './names.js';
import { lexists, nativeRel, walkTree, type TreeEntry, type TreeLimits } from './tree.js';

export type InstallSource =
  | { kind: 'path'; dir: string }
  | { kind: 'git'; url: string }
  | { kind: 'error'; error: string };

const GIT_SCHEMES = new Set(['https', 'http', 'ssh', 'git', 'file', 'git+ssh', 'ssh+git']);

/**
 * Decides whether `source` is a local directory or a git URL. A source beginning with `-` is
 * refused outright (it could act as an option of git), as are git's `transport::address` forms
 * (`ext::` runs commands) and schemes other than those above.
 * Contract: never throws.
 */
export function classifySource(source: string, cwd: string): InstallSource {
  if (source === '') return { kind: 'error', error: 'the source is empty' };
  if (source.startsWith('-')) {
    return {
      kind: 'error',
      error: `refusing source ${JSON.stringify(redactUrl(source))}: it begins with "-"`,
    };
  }
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(source)) {
    return {
      kind: 'error',
      error: `refusing source ${JSON.stringify(redactUrl(source))}: control characters`,
    };
  }
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(source)?.[1]?.toLowerCase();
  if (scheme !== undefined) {
    if (GIT_SCHEMES.has(scheme)) return { kind: 'git', url: source };
    return {
      kind: 'error',
      error: `unsupported URL scheme "${scheme}://" (use https, ssh, git or file URLs, or a local path)`,
    };
  }
  const local = resolve(cwd, source);
  if (existsSync(local)) return { kind: 'path', dir: local };
  if (/^[A-Za-z][A-Za-z0-9+.-]*::/.test(source)) {
    return {
      kind: 'error',
      error: `refusing git transport syntax in ${JSON.stringify(redactUrl(source))}`,
    };
  }
  // scp-like `user@host:path`
  if (/^[^\s/@:]+@[^\s/:]+:/.test(source)) return { kind: 'git', url: source };
  return {
    kind: 'error',
    error: `${local} does not exist (and ${redactUrl(source)} is not a git URL)`,
  };
}

export interface InstallRequest {
  source: string;
  cwd: string;
  /** `$ZOT_HOME/extensions`. */
  extensionsDir: string;
  force: boolean;
  env?: NodeJS.ProcessEnv;
  limits?: TreeLimits;
}

export type InstallResult =
  | {
      ok: true;
      manifest: Manifest;
      dir: string;
      replaced: boolean;
      from: 'path' | 'git';
      warnings: string[];
    }
  | { ok: false; error: string };

/** A failure inside install; converted into `{ ok: false }` at the end of `installExtension`. */
class InstallError extends Error {
  /** Set when the staging directory holds the user's old copy and must not be deleted. */
  keepStaging = false;
}

/**
 * Copies or clones `source` into `<extensionsDir>/<manifest name>`.
 * Contract: never rejects; on failure the staging directory is the only thing deleted (never
 * `$ZOT_HOME` or the extensions directory, which other processes may be writing to meanwhile;
 * a source refused before staging creates neither) and an existing installation is untouched
 * or restored.
 */
export async function installExtension(request: InstallRequest): Promise<InstallResult> {
  const source = classifySource(request.source, request.cwd);
  if (source.kind === 'error') return { ok: false, error: source.error };
  const extensionsDir = resolve(request.extensionsDir);
  let staging: string | undefined;
  try {
    if (source.kind === 'path') checkPathSource(source.dir, extensionsDir, request);
    try {
      mkdirSync(extensionsDir, { recursive: true });
      staging = mkdtempSync(join(extensionsDir, '.install-'));
    } catch (error) {
      throw new InstallError(
        `cannot create a staging directory in ${extensionsDir}: ${errorMessage(error)}`,
      );
    }
    const target = join(staging, 'new');
    if (source.kind === 'path') copyTree(source.dir, target, request.limits);
    else await cloneInto(source.url, target, request.env ?? process.env);
    const what = source.kind === 'path' ? source.dir : redactUrl(source.url);
    const { manifest, warnings } = validateStaged(target, what, request.env, request.limits);
    const dest = join(extensionsDir, manifest.name);
    const replaced = swapIn(target, dest, join(staging, 'old'), request.force);
    const installed = readManifest(dest);
    return {
      ok: true,
      manifest: installed.ok ? installed.manifest : manifest,
      dir: dest,
      replaced,
      from: source.kind,
      warnings,
    };
  } catch (error) {
    if (error instanceof InstallError && error.keepStaging) staging = undefined;
    return { ok: false, error: errorMessage(error) };
  } finally {
    // Only the staging directory is ours alone: a directory that mkdir created may since have
    // received auth.json or another install (issue: a failed first install deleted $ZOT_HOME).
    if (staging) rmSync(staging, { recursive: true, force: true });
  }
}

function checkPathSource(dir: string, extensionsDir: string, request: InstallRequest): void {
  let real: string;
  try {
    real = realpathSync(dir);
    if (!statSync(real).isDirectory()) throw new InstallError(`${dir} is not a directory`);
  } catch (error) {
    if (error instanceof InstallError) throw error;
    throw new InstallError(`cannot open ${dir}: ${errorMessage(error)}`);
  }
  const manifest = readManifest(real);
  if (!manifest.ok) throw new InstallError(`${manifest.error}; nothing was installed`);
  const realExtensions = realPathOr(extensionsDir);
  if (isInside(real, realExtensions)) {
    throw new InstallError(
      `${dir} contains the extensions directory ${extensionsDir}; refusing to copy it into itself`,
    );
  }
  if (isInside(realExtensions, real)) {
    throw new InstallError(`${dir} is already inside ${extensionsDir}; nothing to install`);
  }
  // Checked in full before anything is created, so a refused tree leaves nothing behind; the
  // staged copy is checked again, as the source may change while it is copied.
  validateStaged(real, dir, request.env, request.limits);
}

/** Recursive copy keeping permission bits and symlinks (already checked to stay inside). */
function copyTree(from: string, to: string, limits?: TreeLimits): void {
  const walked = walkTree(from, limits ? { limits } : {});
  if (!walked.ok) throw new InstallError(`${walked.error}; nothing was installed`);
  try {
    mkdirSync(to, { mode: 0o700 });
    const dirs: Array<{ path: string; mode: number }> = [
      { path: to, mode: statSync(walked.root).mode & 0o777 },
    ];
    for (const entry of walked.entries) copyEntry(entry, join(to, nativeRel(entry.rel)), dirs);
    // Directory modes last (deepest first), so that a read-only directory can still be filled.
    for (const dir of dirs.reverse()) chmodSync(dir.path, dir.mode);
  } catch (error) {
    throw new InstallError(`copying ${from} failed: ${errorMessage(error)}; nothing was installed`);
  }
}

function copyEntry(entry: TreeEntry, dest: string, dirs: Array<{ path: string; mode: number }>) {
  switch (entry.kind) {
    case 'dir':
      mkdirSync(dest, { mode: 0o700 });
      dirs.push({ path: dest, mode: entry.mode });
      return;
    case 'symlink':
      symlinkSync(entry.target!, dest);
      return;
    case 'file':
      copyFileSync(entry.abs, dest, constants.COPYFILE_EXCL);
      chmodSync(dest, entry.mode);
      return;
  }
}

/** `git clone --depth 1 -- URL DEST`: the `--` keeps any URL from acting as an option. */
function cloneInto(url: string, dest: string, env: NodeJS.ProcessEnv): Promise<void> {
  const args = ['-c', 'protocol.ext.allow=never', 'clone', '--depth', '1', '--', url, dest];
  return new Promise((resolvePromise, reject) => {
    let stderr = '';
    const child = launchProcess({
      argv: ['git', ...args],
      cwd: process.cwd(),
      env: { ...env, GIT_TERMINAL_PROMPT: '0' },
      stdio: ['ignore', 'ignore', 'pipe'],
      detached: false,
      policy: {},
    }).child;
    child.stderr!.on('data', (chunk: Buffer) => {
      if (stderr.length < 64 * 1024) stderr += chunk.toString('utf8');
    });
    child.on('error', (error) => {
      const neededFor = 'it is needed to install from a URL';
      reject(new InstallError(launchFailureText(error, 'git', neededFor)));
    });
    child.on('close', (code, signal) => {
      if (code === 0) return resolvePromise();
      const how = signal ? `was killed by ${signal}` : `exited with status ${code}`;
      const output = stderr
        .split('\n')
        .filter((line) => line.trim() !== '' && !line.startsWith('Cloning into'))
        .join('\n');
      // git quotes the URL, credentials and all, in its messages.
      const detail = output ? `:\n${redactUrlsIn(output)}` : '';
      reject(
        new InstallError(`git clone of ${redactUrl(url)} ${how}; nothing was installed${detail}`),
      );
    });
  });
}

/** The staged copy must hold a valid manifest and no escaping symlinks or exec. */
function validateStaged(
  dir: string,
  what: string,
  env: NodeJS.ProcessEnv | undefined,
  limits: TreeLimits | undefined,
): { manifest: Manifest; warnings: string[] } {
  const walked = walkTree(dir, limits ? { limits } : {});
  if (!walked.ok) throw new InstallError(`${what}: ${walked.error}; nothing was installed`);
  const read = readManifest(dir);
  if (!read.ok) {
    const missing = !existsSync(join(dir, 'extension.json'));
    throw new InstallError(
      missing
        ? `${what} has no extension.json at its root; nothing was installed`
        : `${read.error.split(dir).join(what)}; nothing was installed`,
    );
  }
  const { manifest } = read;
  const nameError = checkExtensionName(manifest.name);
  if (nameError) throw new InstallError(`${what}: ${nameError}; nothing was installed`);
  const warnings = [...read.warnings];
  if (manifest.exec !== undefined) {
    const exec = manifest.exec;
    if (/[\\/]/.test(exec) || isAbsolute(exec)) {
      const target = resolve(dir, exec);
      let real = target;
      try {
        real = realpathSync(target);
      } catch {
        // Missing: reported below as a warning (a program may need building first).
      }
      if (!isInside(dir, target) || !isInside(realpathSync(dir), real)) {
        throw new InstallError(
          `${what}: extension.json "exec" ${JSON.stringify(exec)} points outside the extension directory; nothing was installed`,
        );
      }
    }
    const resolved = resolveExec(manifest, env);
    if (!resolved.ok) warnings.push(resolved.error);
  }
  // Messages about the staged copy should name what the user gave, not the staging directory.
  const named = (text: string) => text.split(manifest.dir).join(what).split(dir).join(what);
  return { manifest, warnings: warnings.map(named) };
}

/**
 * Moves the staged `target` to `dest`. An existing `dest` is refused without `force`; with it,
 * the old one is moved aside first and restored if the move in fails.
 * Contract: returns whether an old installation was replaced; throws InstallError otherwise.
 */
function swapIn(target: string, dest: string, aside: string, force: boolean): boolean {
  const exists = lexists(dest);
  if (exists && !force) {
    throw new InstallError(
      `${dest} already exists; pass --force to replace it (or zot ext remove it first)`,
    );
  }
  if (exists) {
    try {
      renameSync(dest, aside);
    } catch (error) {
      throw new InstallError(`cannot move the old ${dest} aside: ${errorMessage(error)}`);
    }
  }
  try {
    renameSync(target, dest);
  } catch (error) {
    const failure = new InstallError(
      `cannot move the new extension into ${dest}: ${errorMessage(error)}`,
    );
    if (exists) {
      try {
        renameSync(aside, dest);
      } catch (restoreError) {
        failure.message += `; restoring the old copy failed too (${errorMessage(restoreError)}): it is kept at ${aside}`;
        failure.keepStaging = true;
      }
    }
    throw failure;
  }
  return exists;
}

export type RemoveResult = { ok: true; dir: string } | { ok: false; error: string };

/**
 * Finds `<extensionsDir>/<name>` when it may be removed: a real directory directly inside the
 * extensions directory (a symlink is refused, so nothing outside can ever be deleted).
 * Contract: never throws; an invalid name is refused before it touches the filesystem.
 */
export function locateInstalled(extensionsDir: string, name: string): RemoveResult {
  const nameError = checkExtensionName(name);
  if (nameError) return { ok: false, error: nameError };
  const dir = join(resolve(extensionsDir), name);
  let stat;
  try {
    stat = lstatSync(dir);
  } catch {
    return { ok: false, error: `no extension named ${name} is installed (${dir} does not exist)` };
  }
  if (stat.isSymbolicLink()) {
    return {
      ok: false,
      error: `${dir} is a symlink, not an installed copy; zot ext remove deletes only real directories inside ${extensionsDir} (remove the link yourself with rm)`,
    };
  }
  if (!stat.isDirectory()) return { ok: false, error: `${dir} is not a directory; refused` };
  try {
    if (realpathSync(dir) !== join(realpathSync(extensionsDir), name)) {
      return { ok: false, error: `${dir} does not resolve inside ${extensionsDir}; refused` };
    }
  } catch (error) {
    return { ok: false, error: `cannot resolve ${dir}: ${errorMessage(error)}` };
  }
  return { ok: true, dir };
}

/** Deletes what `locateInstalled` finds. Contract: never throws. */
export function removeExtension(extensionsDir: string, name: string): RemoveResult {
  const located = locateInstalled(extensionsDir, name);
  if (!located.ok) return located;
  try {
    // rmSync unlinks symlinks inside the tree rather than following them.
    rmSync(located.dir, { recursive: true });
  } catch (error) {
    return { ok: false, error: `cannot delete ${located.dir}: ${errorMessage(error)}` };
  }
  return located;
}
