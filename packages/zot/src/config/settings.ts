// config.json: the last provider and model the user chose, the thinking level, the TUI's theme
// and whether it shows thinking, and which secret
// environment variables child processes may still see (`env_passthrough`).
import { PROVIDER_NAMES, type ProviderName } from './auth.js';
import { readJsonObject, updateJsonObject } from './json-file.js';

export interface Settings {
  provider?: ProviderName;
  model?: string;
  /** The TUI's theme, by name (`/theme`). */
  theme?: string;
  /** The thinking level of model calls when --reasoning is not given (shift+tab, /settings). */
  reasoning?: 'off' | 'low' | 'medium' | 'high';
  /** Whether the TUI shows the model's reasoning (ctrl+t, /settings); default true. */
  show_thinking?: boolean;
}

const REASONING_LEVELS: ReadonlyArray<Settings['reasoning']> = ['off', 'low', 'medium', 'high'];

/** Contract: never throws; an unreadable file yields empty settings and a warning. */
export function loadSettings(path: string): { settings: Settings; warning?: string } {
  const read = readJsonObject<Settings>(path);
  if (!read.ok) return { settings: {}, warning: `${read.error}; ignoring it` };
  const raw = read.value ?? {};
  const settings: Settings = {};
  if (
    typeof raw.provider === 'string' &&
    (PROVIDER_NAMES as readonly string[]).includes(raw.provider)
  ) {
    settings.provider = raw.provider;
  }
  if (typeof raw.model === 'string') settings.model = raw.model;
  if (typeof raw.theme === 'string') settings.theme = raw.theme;
  if (REASONING_LEVELS.includes(raw.reasoning)) settings.reasoning = raw.reasoning;
  if (typeof raw.show_thinking === 'boolean') settings.show_thinking = raw.show_thinking;
  return { settings };
}

/**
 * Merges `settings` into config.json (under its lock, so a concurrent save of another field is
 * kept); skips the (fsync'd) write when nothing changes. An unreadable file is replaced.
 */
export function saveSettings(path: string, settings: Settings): void {
  const merged = (read: ReturnType<typeof readJsonObject<Record<string, unknown>>>) => {
    const previous = read.ok ? (read.value ?? {}) : {};
    const next = { ...previous, ...settings };
    if (read.ok && read.value && JSON.stringify(next) === JSON.stringify(previous))
      return undefined;
    return next;
  };
  // Most runs repeat the saved choice: a plain read settles that without taking the lock (a
  // lock file written and removed on every `zot -p --provider ...`).
  if (merged(readJsonObject<Record<string, unknown>>(path)) === undefined) return;
  updateJsonObject<Record<string, unknown>>(path, 0o644, merged);
}

/**
 * Sets `sandbox.mode` in config.json, keeping the rest of the file and of its `sandbox` block.
 * Contract: throws an Error naming the file when it cannot be written.
 */
export function saveSandboxMode(path: string, mode: 'off' | 'on' | 'required'): void {
  updateJsonObject<Record<string, unknown>>(path, 0o644, (read) => {
    const previous = read.ok ? (read.value ?? {}) : {};
    const block = previous.sandbox;
    const sandbox =
      block !== null && typeof block === 'object' && !Array.isArray(block)
        ? { ...block, mode }
        : { mode };
    return { ...previous, sandbox };
  });
}

/** An environment variable's name, as POSIX shells accept it. */
const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * `env_passthrough` of config.json: the secret variables (provider keys, ZOTCORE_RPC_TOKEN) that
 * bash commands and extensions may see all the same. Contract: never throws; a value that is not
 * a list of variable names is a warning naming the file, and passes nothing.
 */
export function loadEnvPassthrough(path: string): { names: string[]; warning?: string } {
  const read = readJsonObject<Record<string, unknown>>(path);
  if (!read.ok) return { names: [] }; // loadSettings reports the file itself
  const value = read.value?.env_passthrough;
  if (value === undefined) return { names: [] };
  if (!Array.isArray(value) || !value.every((name) => typeof name === 'string')) {
    return {
      names: [],
      warning: `${path}: "env_passthrough" must be a list of variable names; ignoring it`,
    };
  }
  const bad = value.filter((name) => !VARIABLE_NAME.test(name));
  const names = value.filter((name) => VARIABLE_NAME.test(name));
  return bad.length === 0
    ? { names }
    : {
        names,
        warning: `${path}: "env_passthrough" has entries that are not variable names (${bad
          .map((name) => JSON.stringify(name))
          .join(', ')}); ignoring them`,
      };
}
