// Reading and validating extension.json, and rewriting one field of it (`zot ext enable/disable`).
import { realpathSync, statSync } from 'node:fs';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { writeFileAtomic } from '../util/atomic-write.js';
import { errorMessage } from '../util/errors.js';
import { readRegularText } from '../util/regular-file.js';
import { parseBoundedJson } from '@zot/protocol/bounds';
import {
  parsePermissions,
  PermissionError,
  type ExtensionPermissions,
} from '../security/scope/permissions.js';
import { checkExtensionName } from './names.js';
import { parseRemoteConfig, type RemoteConfig } from './remote-config.js';

export const MANIFEST_FILE = 'extension.json';
/** Far beyond any real manifest; a bigger one is refused unread. */
export const MAX_MANIFEST_BYTES = 1024 * 1024;

/** `process` is spawned, `remote` connected to; `theme` and `skills` bundles never run. */
export type ManifestKind = 'process' | 'remote' | 'theme' | 'skills';

/** What a failed interceptor means (design D24): let the action through, or block it. */
export type InterceptFailure = 'allow' | 'block';
/** Whether an extension that dies after `ready` is started again (design D25). */
export type RestartPolicy = 'on-failure' | 'never';
/** An SDK that ships with zot and that zot puts on the extension's module path. */
export type ShippedSdk = 'python';
export const INTERCEPT_FAILURE_VALUES: readonly InterceptFailure[] = ['allow', 'block'];
export const RESTART_VALUES: readonly RestartPolicy[] = ['on-failure', 'never'];
/** The longest ready deadline a manifest may ask for. */
export const MAX_READY_TIMEOUT_MS = 120_000;
export const SDK_VALUES: readonly ShippedSdk[] = ['python'];

/** A validated manifest. `skills` and `args` are as written; `dir` is absolute and real. */
export interface Manifest {
  name: string;
  version?: string;
  exec?: string;
  args: string[];
  language?: string;
  description?: string;
  skills: string[];
  enabled: boolean;
  dir: string;
  manifestPath: string;
  kind: ManifestKind;
  /** Default `allow`. */
  interceptFailure: InterceptFailure;
  /** Default `on-failure`. */
  restart: RestartPolicy;
  /** `ready_timeout_ms`: its own ready deadline (absent: zot's default). */
  readyTimeoutMs?: number;
  /** Its `permissions` block: present, it runs scoped (sandboxed); absent, unscoped. */
  permissions?: ExtensionPermissions;
  /**
   * `registration_inputs`: files or directories outside its own directory whose content decides
   * what it registers, each beginning with `$ZOT_HOME/` or `$CWD/` (see remembered.ts).
   */
  registrationInputs: string[];
  /** `"sdk": "python"`: it imports zot_sdk from zot's own copy (shipped-sdk.ts). */
  sdk?: ShippedSdk;
  /** `transport`: a remote extension zot connects to instead of spawning (kind `remote`). */
  remote?: RemoteConfig;
}

/** The prefixes a `registration_inputs` entry begins with. */
export const REGISTRATION_INPUT_ROOTS = ['$ZOT_HOME/', '$CWD/'] as const;

export type ManifestResult =
  | { ok: true; manifest: Manifest; warnings: string[] }
  | { ok: false; error: string; path: string; name?: string };

/** The files whose presence makes an extension without `exec` a theme-only one. */
export const THEME_FILES = ['theme.json', join('themes', 'theme.json')];

/**
 * Reads `<dir>/extension.json`. Unknown fields are ignored; wrong types are errors.
 * Contract: never throws; every error names the manifest file and, where one is at fault, the field.
 */
export function readManifest(dir: string): ManifestResult {
  const lexicalDir = resolve(dir);
  let realDir: string;
  try {
    realDir = realpathSync(lexicalDir);
  } catch (error) {
    const path = join(lexicalDir, MANIFEST_FILE);
    return {
      ok: false,
      path,
      error: `${path}: cannot open the extension directory (${why(error)})`,
    };
  }
  const path = join(realDir, MANIFEST_FILE);
  // Never blocks (a FIFO is refused), bounded, and inside the extension's own directory.
  const read = readRegularText(path, { limit: MAX_MANIFEST_BYTES, within: realDir });
  if (!read.ok) {
    const why = read.missing ? 'not found' : read.error;
    return { ok: false, path, error: `${path}: cannot read the manifest (${why})` };
  }
  // Editors on Windows like to prepend a BOM, which JSON.parse rejects (readRegularText drops it).
  const parsed = parseBoundedJson(read.text);
  if (!parsed.ok) return { ok: false, path, error: `${path}: ${parsed.error}` };
  const raw = parsed.value;
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    return { ok: false, path, error: `${path}: expected a JSON object` };
  }
  const checked = validate(raw as Record<string, unknown>, realDir, path);
  if (typeof checked === 'string') {
    // The name it claims, when valid, so that a broken entry's name clash can still be named.
    const name = (raw as Record<string, unknown>).name;
    const claimed = typeof name === 'string' && !checkExtensionName(name) ? { name } : {};
    return { ok: false, path, error: `${path}: ${checked}`, ...claimed };
  }
  return { ok: true, manifest: checked.manifest, warnings: checked.warnings };
}

function validate(
  raw: Record<string, unknown>,
  dir: string,
  manifestPath: string,
): string | { manifest: Manifest; warnings: string[] } {
  try {
    return validateFields(raw, dir, manifestPath);
  } catch (error) {
    if (error instanceof FieldError) return error.message;
    throw error;
  }
}

/** A problem with one field; thrown only inside `validate`, which turns it into a value. */
class FieldError extends Error {}

function validateFields(
  raw: Record<string, unknown>,
  dir: string,
  manifestPath: string,
): { manifest: Manifest; warnings: string[] } {
  if (raw.name === undefined || raw.name === null) throw new FieldError('"name" is required');
  if (typeof raw.name !== 'string') throw new FieldError('"name" must be a string');
  const nameError = checkExtensionName(raw.name);
  if (nameError) throw new FieldError(`"name": ${nameError}`);

  const version = optionalString(raw, 'version');
  const exec = optionalString(raw, 'exec');
  const args = stringArray(raw, 'args');
  const language = optionalString(raw, 'language');
  const description = optionalString(raw, 'description');
  const skills = stringArray(raw, 'skills');
  let enabled = true;
  if (raw.enabled !== undefined && raw.enabled !== null) {
    if (typeof raw.enabled !== 'boolean') throw new FieldError('"enabled" must be true or false');
    enabled = raw.enabled;
  }
  if (exec === '') throw new FieldError('"exec" must not be empty');
  const interceptFailure = oneOf(raw, 'intercept_failure', INTERCEPT_FAILURE_VALUES, 'allow');
  const restart = oneOf(raw, 'restart', RESTART_VALUES, 'on-failure');
  const readyTimeoutMs = readyTimeout(raw.ready_timeout_ms);
  let permissions: ExtensionPermissions | undefined;
  if (raw.permissions !== undefined && raw.permissions !== null) {
    try {
      permissions = parsePermissions(raw.permissions);
    } catch (error) {
      if (error instanceof PermissionError) throw new FieldError(error.message);
      throw error;
    }
  }
  const registrationInputs = stringArray(raw, 'registration_inputs');
  for (const [index, entry] of registrationInputs.entries()) {
    const rest = REGISTRATION_INPUT_ROOTS.find((root) => entry.startsWith(root));
    const tail = rest === undefined ? undefined : entry.slice(rest.length);
    if (tail === undefined || tail === '' || tail.split(/[\\/]/).includes('..'))
      throw new FieldError(
        `"registration_inputs"[${index}] ${JSON.stringify(entry)} must begin with $ZOT_HOME/ or $CWD/ and not contain ".."`,
      );
  }
  const sdk = oneOf<ShippedSdk | 'none'>(raw, 'sdk', SDK_VALUES, 'none');

  const warnings: string[] = [];
  for (const [index, entry] of skills.entries()) {
    const problem = checkSkillEntry(dir, entry);
    const where = `"skills"[${index}] ${JSON.stringify(entry)}`;
    if (problem === 'outside') {
      throw new FieldError(`${where} points outside the extension directory`);
    }
    if (problem === 'missing') warnings.push(`${manifestPath}: ${where} does not exist`);
  }

  let remote: RemoteConfig | undefined;
  if (raw.transport !== undefined && raw.transport !== null) {
    const parsed = parseRemoteConfig(raw.transport);
    if (typeof parsed === 'string') throw new FieldError(parsed);
    for (const field of ['exec', 'args', 'sdk', 'permissions', 'registration_inputs'])
      if (raw[field] !== undefined && raw[field] !== null)
        throw new FieldError(
          `"${field}" is for extensions zot starts; one with "transport" runs elsewhere`,
        );
    remote = parsed;
  }

  let kind: ManifestKind = remote ? 'remote' : 'process';
  if (exec === undefined && !remote) {
    if (THEME_FILES.some((file) => isFile(join(dir, file)))) kind = 'theme';
    else if (skills.length > 0) kind = 'skills';
    else {
      throw new FieldError(
        '"exec" is required (only theme-only extensions, with theme.json or themes/theme.json, ' +
          'skill-only ones, with a non-empty "skills" array, and remote ones, with "transport", ' +
          'may omit it)',
      );
    }
  }

  const manifest: Manifest = {
    name: raw.name,
    args,
    skills,
    enabled,
    dir,
    manifestPath,
    kind,
    interceptFailure,
    restart,
    registrationInputs,
  };
  if (version !== undefined) manifest.version = version;
  if (exec !== undefined) manifest.exec = exec;
  if (language !== undefined) manifest.language = language;
  if (description !== undefined) manifest.description = description;
  if (readyTimeoutMs !== undefined) manifest.readyTimeoutMs = readyTimeoutMs;
  if (permissions !== undefined) manifest.permissions = permissions;
  if (remote !== undefined) manifest.remote = remote;
  if (sdk !== 'none') {
    if (kind !== 'process')
      throw new FieldError('"sdk" is for extensions that run a program ("exec")');
    manifest.sdk = sdk;
  }
  return { manifest, warnings };
}

function readyTimeout(value: unknown): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (
    typeof value !== 'number' ||
    !Number.isInteger(value) ||
    value < 1 ||
    value > MAX_READY_TIMEOUT_MS
  )
    throw new FieldError(
      `"ready_timeout_ms" must be a whole number of milliseconds from 1 to ${MAX_READY_TIMEOUT_MS}`,
    );
  return value;
}

// `null` counts as absent: Go encoders write `null` for an unset slice or pointer, and such
// manifests (from the original project's tooling) must keep loading.
function optionalString(raw: Record<string, unknown>, field: string): string | undefined {
  const value = raw[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new FieldError(`"${field}" must be a string`);
  return value;
}

function oneOf<T extends string>(
  raw: Record<string, unknown>,
  field: string,
  values: readonly T[],
  fallback: T,
): T {
  const value = raw[field];
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'string' || !values.includes(value as T))
    throw new FieldError(`"${field}" must be ${values.map((v) => `"${v}"`).join(' or ')}`);
  return value as T;
}

function stringArray(raw: Record<string, unknown>, field: string): string[] {
  const value: unknown = raw[field];
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) {
    throw new FieldError(`"${field}" must be an array of strings`);
  }
  return [...(value as string[])];
}

// Skill entries are read into the model's context, so like `exec` they must stay inside the
// extension's own directory, symlinks included.
function checkSkillEntry(dir: string, entry: string): 'ok' | 'missing' | 'outside' {
  const target = resolve(dir, entry);
  if (entry === '' || !isInside(dir, target)) return 'outside';
  let real: string;
  try {
    real = realpathSync(target);
  } catch {
    return 'missing';
  }
  return isInside(dir, real) ? 'ok' : 'outside';
}

/** True when `path` is `root` or lies below it (both absolute; no filesystem access). */
export function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

function why(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return 'not found';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'ENOTDIR') return 'not a directory';
  if (code === 'EISDIR') return 'is a directory';
  return errorMessage(error);
}

/**
 * Sets one top-level field of a manifest, keeping every other field and the order they are in
 * (a new field goes last). Written atomically as 2-space JSON plus a newline, keeping the mode.
 * Contract: throws an Error naming the file when it cannot be read, parsed or written.
 */
export function writeManifestField(manifestPath: string, field: string, value: unknown): void {
  let mode: number;
  const read = readRegularText(manifestPath, { limit: MAX_MANIFEST_BYTES });
  if (!read.ok) {
    const why = read.missing ? 'not found' : read.error;
    throw new Error(`${manifestPath}: cannot read the manifest (${why})`);
  }
  try {
    mode = statSync(manifestPath).mode & 0o777;
  } catch (error) {
    throw new Error(`${manifestPath}: cannot read the manifest (${why(error)})`);
  }
  const parsed = parseBoundedJson(read.text);
  if (!parsed.ok) throw new Error(`${manifestPath}: ${parsed.error}`);
  const raw = parsed.value;
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new Error(`${manifestPath}: expected a JSON object`);
  }
  // Assigning to an existing key keeps its position in a JS object; a new key is appended.
  // (Integer-like keys would be reordered, but no manifest field looks like one.)
  (raw as Record<string, unknown>)[field] = value;
  try {
    writeFileAtomic(manifestPath, JSON.stringify(raw, null, 2) + '\n', mode);
  } catch (error) {
    throw new Error(`${manifestPath}: cannot write the manifest (${why(error)})`);
  }
}
