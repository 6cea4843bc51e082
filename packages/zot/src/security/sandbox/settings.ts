// The `sandbox` block of $ZOT_HOME/config.json and of a project's .zot/settings.json: parsing
// (bounded, every bad entry named) and the merge in which a project can only tighten.
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';

export type SandboxMode = 'off' | 'on' | 'required';
export const SANDBOX_MODES: readonly SandboxMode[] = ['off', 'on', 'required'];

/**
 * Whether extensions without a `permissions` block (unscoped: full rights) may run: `optional`
 * lets them (project ones refused only when the mode is `required`), `required` refuses them all.
 */
export type ExtensionsSetting = 'optional' | 'required';
export const EXTENSIONS_SETTINGS: readonly ExtensionsSetting[] = ['optional', 'required'];

/** false: no network at all; true: the host's network; a list: these hosts through zot's proxy. */
export type NetworkSetting = boolean | string[];

export interface SandboxSettings {
  mode: SandboxMode;
  network: NetworkSetting;
  /** Absolute paths, hidden inside the sandbox (and from the file tools). */
  denyRead: string[];
  /** Absolute paths, writable inside the sandbox besides the project. */
  allowWrite: string[];
  extensions: ExtensionsSetting;
}

/** What one file said; absent fields were not given. */
export type SandboxSettingsPart = Partial<SandboxSettings>;

export const DEFAULT_SANDBOX: SandboxSettings = {
  mode: 'off',
  network: false,
  denyRead: [],
  allowWrite: [],
  extensions: 'optional',
};

const MAX_ENTRIES = 256;
const MAX_ENTRY_CHARS = 4096;

const rank = (mode: SandboxMode) => SANDBOX_MODES.indexOf(mode);

/** The stricter of two modes (off < on < required). */
export function stricterMode(a: SandboxMode, b: SandboxMode): SandboxMode {
  return rank(a) >= rank(b) ? a : b;
}

export function isSandboxMode(value: unknown): value is SandboxMode {
  return typeof value === 'string' && (SANDBOX_MODES as readonly string[]).includes(value);
}

/**
 * `host`, `*.host` or either with `:port`; IPv6 literals in brackets. Returns the entry
 * lower-cased, or undefined when it is not one.
 */
export function normalizeHostEntry(entry: string): string | undefined {
  // A trailing dot (a fully qualified name) is dropped.
  const text = entry
    .trim()
    .toLowerCase()
    .replace(/\.(?=(:\d+)?$)/, '');
  const match =
    /^(\[[0-9a-f:.]+\]|(?:\*\.)?[a-z0-9_](?:[a-z0-9_.-]{0,251}[a-z0-9_])?)(?::(\d{1,5}))?$/.exec(
      text,
    );
  if (!match) return undefined;
  const host = match[1]!;
  if (host.includes('..')) return undefined;
  if (match[2] !== undefined) {
    const port = Number(match[2]);
    if (port < 1 || port > 65535) return undefined;
    return `${host}:${port}`;
  }
  return host;
}

/** Expands `~` and resolves a relative path against `base` (the project for a project file). */
export function expandSettingPath(path: string, base: string, home = homedir()): string {
  if (path === '~') return home;
  if (path.startsWith('~/')) return join(home, path.slice(2));
  return isAbsolute(path) ? resolve(path) : resolve(base, path);
}

function pathList(
  value: unknown,
  key: string,
  where: string,
  base: string,
  home: string,
  warnings: string[],
): string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) {
    warnings.push(`${where}: sandbox.${key} must be a list of paths; ignoring it`);
    return undefined;
  }
  const out: string[] = [];
  for (const item of value.slice(0, MAX_ENTRIES)) {
    if (typeof item !== 'string' || item === '' || item.length > MAX_ENTRY_CHARS) {
      warnings.push(
        `${where}: sandbox.${key} has an entry that is not a path; ignoring that entry`,
      );
      continue;
    }
    if (/[\0\n\r]/.test(item)) {
      warnings.push(`${where}: sandbox.${key} has a path with a control character; ignoring it`);
      continue;
    }
    out.push(expandSettingPath(item, base, home));
  }
  if (value.length > MAX_ENTRIES)
    warnings.push(
      `${where}: sandbox.${key} has more than ${MAX_ENTRIES} entries; the rest are ignored`,
    );
  return out;
}

function networkSetting(
  value: unknown,
  where: string,
  warnings: string[],
): NetworkSetting | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'boolean') return value;
  if (!Array.isArray(value)) {
    warnings.push(
      `${where}: sandbox.network must be false, true or a list of hosts ("host" or "host:port"); using false`,
    );
    return false;
  }
  const hosts: string[] = [];
  for (const item of value.slice(0, MAX_ENTRIES)) {
    const host = typeof item === 'string' ? normalizeHostEntry(item) : undefined;
    if (host === undefined) {
      warnings.push(
        `${where}: sandbox.network entry ${JSON.stringify(item).slice(0, 80)} is not a host or host:port; ignoring it`,
      );
      continue;
    }
    if (!hosts.includes(host)) hosts.push(host);
  }
  if (value.length > MAX_ENTRIES)
    warnings.push(
      `${where}: sandbox.network has more than ${MAX_ENTRIES} entries; the rest are ignored`,
    );
  return hosts;
}

/**
 * Parses one file's `sandbox` value. Relative paths resolve against `base` (the project root
 * for a project file). Contract: never throws; every ignored part is named in `warnings`.
 */
export function parseSandboxSettings(
  raw: unknown,
  where: string,
  base: string,
  home = homedir(),
): { settings: SandboxSettingsPart; warnings: string[] } {
  const warnings: string[] = [];
  if (raw === undefined) return { settings: {}, warnings };
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    warnings.push(`${where}: "sandbox" must be an object; ignoring it`);
    return { settings: {}, warnings };
  }
  const object = raw as Record<string, unknown>;
  const settings: SandboxSettingsPart = {};
  if (object.mode !== undefined) {
    if (isSandboxMode(object.mode)) settings.mode = object.mode;
    else
      warnings.push(
        `${where}: sandbox.mode must be one of ${SANDBOX_MODES.join(', ')}; got ${JSON.stringify(object.mode)}`,
      );
  }
  if (object.extensions !== undefined) {
    if (EXTENSIONS_SETTINGS.includes(object.extensions as ExtensionsSetting))
      settings.extensions = object.extensions as ExtensionsSetting;
    else
      warnings.push(
        `${where}: sandbox.extensions must be "optional" or "required"; got ${JSON.stringify(object.extensions)}`,
      );
  }
  const network = networkSetting(object.network, where, warnings);
  if (network !== undefined) settings.network = network;
  const denyRead = pathList(object.deny_read, 'deny_read', where, base, home, warnings);
  if (denyRead) settings.denyRead = denyRead;
  const allowWrite = pathList(object.allow_write, 'allow_write', where, base, home, warnings);
  if (allowWrite) settings.allowWrite = allowWrite;
  for (const key of Object.keys(object)) {
    if (!['mode', 'network', 'deny_read', 'allow_write', 'extensions'].includes(key))
      warnings.push(`${where}: unknown setting sandbox.${key.slice(0, 60)}; ignoring it`);
  }
  return { settings, warnings };
}

/** The user's own settings over the defaults. */
export function userSandbox(part: SandboxSettingsPart): SandboxSettings {
  return {
    mode: part.mode ?? DEFAULT_SANDBOX.mode,
    network: part.network ?? DEFAULT_SANDBOX.network,
    denyRead: part.denyRead ?? [],
    allowWrite: part.allowWrite ?? [],
    extensions: part.extensions ?? DEFAULT_SANDBOX.extensions,
  };
}

/** Hosts both lists allow: an entry stays when the other list has it or a wider one. */
function narrowerNetwork(a: NetworkSetting, b: NetworkSetting): NetworkSetting {
  if (a === false || b === false) return false;
  if (a === true) return b;
  if (b === true) return a;
  return a.filter((entry) => b.includes(entry) || b.includes(entry.replace(/:\d+$/, '')));
}

/**
 * A project's settings applied to the user's: a stricter mode, a narrower network, more
 * deny_read; never more allow_write (those entries are named in a warning and ignored).
 * Contract: the result is never less strict than `user` in any field.
 */
export function tightenSandbox(
  user: SandboxSettings,
  project: SandboxSettingsPart,
  where: string,
): { settings: SandboxSettings; warnings: string[] } {
  const warnings: string[] = [];
  if (project.allowWrite && project.allowWrite.length > 0) {
    warnings.push(
      `${where}: sandbox.allow_write is ignored in a project's settings (a project can only ` +
        `tighten the sandbox; add the paths to your own config.json): ${project.allowWrite.join(', ')}`,
    );
  }
  const network =
    project.network === undefined ? user.network : narrowerNetwork(user.network, project.network);
  return {
    settings: {
      mode: project.mode ? stricterMode(user.mode, project.mode) : user.mode,
      network,
      denyRead: [
        ...user.denyRead,
        ...(project.denyRead ?? []).filter((p) => !user.denyRead.includes(p)),
      ],
      allowWrite: user.allowWrite,
      extensions: project.extensions === 'required' ? 'required' : user.extensions,
    },
    warnings,
  };
}

/** The network setting for people: "off", "on", or the hosts. */
export function describeNetwork(network: NetworkSetting): string {
  if (network === false) return 'off';
  if (network === true) return 'on';
  return network.length === 0
    ? 'off (empty host list)'
    : `only ${network.join(', ')} (through zot's proxy)`;
}
