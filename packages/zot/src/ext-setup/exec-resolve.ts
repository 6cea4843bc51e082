// Turning a manifest's `exec` into the absolute program to spawn (design D4, issue 5).
import { accessSync, constants, realpathSync, statSync } from 'node:fs';
import { dirname, extname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { errorMessage } from '../util/errors.js';
import { isInside, type Manifest } from './manifest.js';
import { isTopGit } from './trust-hash.js';

export type ExecResolution =
  | { ok: true; command: string; args: string[] }
  | { ok: false; error: string };

/** The manifest fields resolution needs; a whole `Manifest` fits. */
export type ExecManifest = Pick<Manifest, 'exec' | 'args' | 'dir' | 'manifestPath'>;

/**
 * A path-like `exec` (with `/` or `\`, or absolute) must be an executable file inside the
 * extension directory and outside its `.git`, symlinks followed; a bare word is looked up on
 * `env.PATH`.
 * Contract: never throws; `command` is absolute; every error names the manifest and "exec".
 */
export function resolveExec(
  manifest: ExecManifest,
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): ExecResolution {
  const { exec, manifestPath } = manifest;
  const args = [...manifest.args];
  const field = `${manifestPath}: "exec"`;
  if (exec === undefined || exec === '') {
    return {
      ok: false,
      error: `${field} is missing; theme-only and skill-only extensions are not spawned`,
    };
  }
  if (/[\\/]/.test(exec) || isAbsolute(exec)) {
    const resolved = resolvePathExec(manifest.dir, exec, field);
    return resolved.ok ? { ok: true, command: resolved.command, args } : resolved;
  }
  const found = searchPath(exec, env, platform);
  if (found) return { ok: true, command: found, args };
  return {
    ok: false,
    error:
      `${field} ${JSON.stringify(exec)} was not found on PATH; install it, or point "exec" ` +
      `at a program inside the extension directory (e.g. "./run.sh")`,
  };
}

function resolvePathExec(
  dir: string,
  exec: string,
  field: string,
): { ok: true; command: string } | { ok: false; error: string } {
  const quoted = JSON.stringify(exec);
  const outside = {
    ok: false as const,
    error: `${field} ${quoted} resolves outside the extension directory ${dir}; refused`,
  };
  let root: string;
  try {
    root = realpathSync(dir);
  } catch (error) {
    return {
      ok: false,
      error: `${field}: cannot open the extension directory ${dir} (${errorMessage(error)})`,
    };
  }
  // Checked before touching the file, so `../x` is refused as escaping whether or not it exists.
  const target = resolve(root, exec);
  if (!isInside(root, target)) return outside;
  let real: string;
  try {
    real = realpathSync(target);
  } catch {
    return { ok: false, error: `${field} ${quoted} not found: ${target} does not exist` };
  }
  if (!isInside(root, real)) return outside;
  if (inGit(root, target) || inGit(root, real)) {
    return {
      ok: false,
      error:
        `${field} ${quoted} resolves into ${join(root, '.git')}, which the trust hash leaves ` +
        `out (git rewrites it); refused: move the program out of .git`,
    };
  }
  try {
    if (!statSync(real).isFile())
      return { ok: false, error: `${field} ${quoted}: ${target} is not a file` };
    accessSync(real, constants.X_OK);
  } catch {
    return {
      ok: false,
      error: `${field} ${quoted}: ${target} is not executable; ${fixHint(exec, target)}`,
    };
  }
  return { ok: true, command: target };
}

/**
 * For project extensions, whose trust pins only what lies inside their directory (and the
 * paths `hashExtension` covers): every argument that names a path must stay inside, symlinks
 * followed, so that `node ../../x.js` cannot run code the review never showed. An argument
 * names a path when it is absolute, contains a separator or is `..`, or is a `file:` URL; the
 * value of `--opt=value` and what follows a short option (`-r../x`) are checked the same way.
 * Inline code (`-e '...'`) is shown by the review but not analysed.
 * Contract: never throws; returns an error naming the manifest, the argument and its index.
 */
export function argumentOutside(
  manifest: Pick<Manifest, 'args' | 'dir' | 'manifestPath'>,
): string | undefined {
  let root: string;
  try {
    root = realpathSync(manifest.dir);
  } catch (error) {
    return `${manifest.manifestPath}: cannot open the extension directory ${manifest.dir} (${errorMessage(error)})`;
  }
  for (const [index, arg] of manifest.args.entries()) {
    const candidates = [arg];
    const option = /^--?[^=]+=(.*)$/s.exec(arg);
    if (option) candidates.push(option[1]!);
    if (/^-[^-]./s.test(arg)) candidates.push(arg.slice(2));
    for (const candidate of candidates) {
      const path = pathOf(candidate);
      if (path === undefined) continue;
      if (pathInside(root, path)) {
        if (!pathInGit(root, path)) continue;
        return (
          `${manifest.manifestPath}: "args"[${index}] ${JSON.stringify(arg)} names a path inside ` +
          `${join(root, '.git')}, which the trust hash leaves out (git rewrites it); refused: ` +
          `move the file out of .git`
        );
      }
      return (
        `${manifest.manifestPath}: "args"[${index}] ${JSON.stringify(arg)} names a path outside ` +
        `the extension directory ${manifest.dir}; a project extension may only use files inside ` +
        `it (their content is what trust pins); refused`
      );
    }
  }
  return undefined;
}

/** The path an argument names, if it looks like one (a bare word is not taken as a path). */
function pathOf(candidate: string): string | undefined {
  if (/^file:/i.test(candidate)) {
    try {
      return fileURLToPath(candidate);
    } catch {
      return '/'; // an unusable file URL: treated as outside
    }
  }
  if (isAbsolute(candidate) || /[\\/]/.test(candidate) || candidate === '..') return candidate;
  return undefined;
}

/** Inside the extension's own top-level `.git` (`path` absolute, inside `root`). */
function inGit(root: string, path: string): boolean {
  const first = relative(root, path).split(sep)[0];
  return first !== undefined && isTopGit(first);
}

/** `path` (relative to `root`, inside it) or the real path of its nearest ancestor is in `.git`. */
function pathInGit(root: string, path: string): boolean {
  let target = resolve(root, path);
  if (inGit(root, target)) return true;
  for (;;) {
    try {
      return inGit(root, realpathSync(target));
    } catch {
      if (dirname(target) === target) return false;
      target = dirname(target);
    }
  }
}

/** Lexically inside `root`, and so is the real path of its nearest existing ancestor. */
function pathInside(root: string, path: string): boolean {
  let target = resolve(root, path);
  if (!isInside(root, target)) return false;
  for (;;) {
    try {
      return isInside(root, realpathSync(target));
    } catch {
      target = dirname(target); // missing: what matters is where its directory leads
    }
  }
}

const INTERPRETERS: Record<string, string> = {
  '.py': 'python3',
  '.js': 'node',
  '.mjs': 'node',
  '.cjs': 'node',
  '.sh': 'sh',
  '.rb': 'ruby',
};

function fixHint(exec: string, target: string): string {
  const interpreter = INTERPRETERS[extname(exec).toLowerCase()] ?? 'python3';
  const script = exec.replace(/^\.[\\/]/, '');
  return (
    `run \`chmod +x ${target}\`, or start it through an interpreter: ` +
    `"exec": "${interpreter}", "args": [${JSON.stringify(script)}]`
  );
}

/**
 * Finds `word` on PATH like a shell would, but only in absolute PATH entries: an empty or
 * relative entry would resolve against the extension directory and let its files hijack `node`.
 */
function searchPath(
  word: string,
  env: NodeJS.ProcessEnv,
  platform: NodeJS.Platform,
): string | undefined {
  const windows = platform === 'win32';
  const pathValue = windows ? envCaseInsensitive(env, 'PATH') : env.PATH;
  if (!pathValue) return undefined;
  const names = [word];
  if (windows) {
    const extensions = (envCaseInsensitive(env, 'PATHEXT') ?? '.COM;.EXE;.BAT;.CMD')
      .split(';')
      .filter((ext) => ext !== '');
    const hasKnownExt = extensions.some((ext) => word.toLowerCase().endsWith(ext.toLowerCase()));
    if (!hasKnownExt) names.splice(0, 1, ...extensions.map((ext) => word + ext));
  }
  for (const entry of pathValue.split(windows ? ';' : ':')) {
    if (!isAbsolute(entry)) continue;
    for (const name of names) {
      const candidate = join(entry, name);
      if (isExecutableFile(candidate, windows)) return candidate;
    }
  }
  return undefined;
}

function envCaseInsensitive(env: NodeJS.ProcessEnv, key: string): string | undefined {
  const match = Object.keys(env).find((name) => name.toUpperCase() === key);
  return match === undefined ? undefined : env[match];
}

function isExecutableFile(path: string, windows: boolean): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    // Windows has no execute bit; PATHEXT already decided what counts as a program.
    if (!windows) accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
