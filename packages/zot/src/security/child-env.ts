// The environment of every process zot starts (bash commands, extensions, `zot ext test`, git):
// zot's own, without the secrets zot itself uses. security/launcher.ts applies it to every
// spawn: the run's filter (with env_passthrough) where the caller's policy has one, the names
// and values of the secrets alone otherwise. A provider key or the RPC token in a child's
// environment is one `env` (or one malicious dependency) away from anyone the child talks to, and
// neither bash nor an extension needs them; `env_passthrough` in config.json names the ones a
// user does want passed on. Scrubbed with and without a sandbox.
import { AuthStore, PROVIDER_ENV_KEYS } from '../config/auth.js';
import type { ZotPaths } from '../config/paths.js';
import { readJsonObject } from '../config/json-file.js';
import { loadEnvPassthrough } from '../config/settings.js';

/** The variables zot reads a secret from: every provider's key variables and the RPC token. */
export const SECRET_VARIABLES: readonly string[] = [
  ...new Set([...Object.values(PROVIDER_ENV_KEYS).flat(), 'ZOTCORE_RPC_TOKEN']),
];

/** Shorter values are no keys, and dropping every variable that equals one would be a guess. */
const MIN_SECRET_LENGTH = 8;

export interface ChildEnvironmentOptions {
  /** zot's environment (default process.env). */
  env?: NodeJS.ProcessEnv;
  /** Names a child may see although they are secrets (config.json's `env_passthrough`). */
  passthrough?: readonly string[];
  /**
   * Secret values zot holds apart from the environment (auth.json keys, --api-key): a variable
   * of any name holding one of them is dropped too.
   */
  secrets?: readonly string[];
  /** More variables to drop by name (and their values under any name), e.g. remote tokens. */
  names?: readonly string[];
}

/**
 * The environment for a child process: `env` without SECRET_VARIABLES and without any variable
 * whose value is one of those secrets or of `secrets`, except the names in `passthrough`.
 * Contract: pure; never throws; returns a new object.
 */
export function childEnvironment(options: ChildEnvironmentOptions = {}): NodeJS.ProcessEnv {
  const env = options.env ?? process.env;
  // Windows names are case-insensitive: compare them in one case there.
  const key =
    process.platform === 'win32' ? (name: string) => name.toUpperCase() : (name: string) => name;
  const secretNames = new Set([...SECRET_VARIABLES, ...(options.names ?? [])].map(key));
  const passed = new Set((options.passthrough ?? []).map(key));
  const secretValues = new Set<string>();
  for (const value of [
    ...(options.secrets ?? []),
    ...Object.entries(env)
      .filter(([name]) => secretNames.has(key(name)))
      .map(([, value]) => value),
  ]) {
    if (value !== undefined && value.length >= MIN_SECRET_LENGTH) secretValues.add(value);
  }
  const child: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    const secret = secretNames.has(key(name)) || secretValues.has(value);
    if (secret && !passed.has(key(name))) continue;
    child[name] = value;
  }
  return child;
}

/** The environment filter of one run, for ProcessPolicy.scrubEnv, and what was wrong with it. */
export interface ChildEnvironment {
  scrub(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv;
  warnings: string[];
  /**
   * Remote extensions' token variables learnt once the manifests are read (their `token_env`),
   * before any extension starts: dropped, by name and by value, from every child started after.
   */
  addTokenNames(names: readonly string[]): void;
}

/**
 * Variables no token can be in: a manifest naming one by mistake must not strip every child of
 * it (nor of every variable that happens to hold the same value).
 */
const NEVER_TOKENS = new Set([
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'SHELL',
  'TERM',
  'LANG',
  'PWD',
  'TMPDIR',
]);
const TOKEN_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

function tokenName(name: unknown): name is string {
  return typeof name === 'string' && TOKEN_NAME.test(name) && !NEVER_TOKENS.has(name.toUpperCase());
}

/** The token variables config.json's `remote_extensions` entries name. Contract: never throws. */
export function configuredTokenNames(configPath: string): string[] {
  const read = readJsonObject<Record<string, unknown>>(configPath);
  const block = read.ok ? read.value?.remote_extensions : undefined;
  if (block === null || typeof block !== 'object' || Array.isArray(block)) return [];
  return Object.values(block as Record<string, unknown>).flatMap((entry) => {
    const name = (entry as { token_env?: unknown } | null)?.token_env;
    return tokenName(name) ? [name] : [];
  });
}

/**
 * The environment filter of one run: config.json's `env_passthrough` and the keys in auth.json
 * (and `apiKey`, a --api-key value), read once.
 * Contract: never throws; a problem with either file is a warning, and the names alone are
 * still scrubbed.
 */
export function runChildEnvironment(
  paths: Pick<ZotPaths, 'config' | 'auth'>,
  options: { apiKey?: string; tokenNames?: readonly string[] } = {},
): ChildEnvironment {
  const warnings: string[] = [];
  const passthrough = loadEnvPassthrough(paths.config);
  if (passthrough.warning) warnings.push(passthrough.warning);
  const secrets = options.apiKey ? [options.apiKey] : [];
  try {
    secrets.push(...new AuthStore(paths.auth).list().map((entry) => entry.key));
  } catch {
    // an unreadable auth.json is reported where a key is needed; its keys are not in env anyway
  }
  // Remote tokens: the run's (ZOT_EXT_TOKEN, --ext-token-env), config.json's, and the
  // manifests' once the host has read them (addTokenNames).
  const tokenNames = new Set([
    ...(options.tokenNames ?? []),
    ...configuredTokenNames(paths.config),
  ]);
  return {
    scrub: (env) =>
      childEnvironment({
        env,
        passthrough: passthrough.names,
        secrets,
        names: [...tokenNames],
      }),
    warnings,
    addTokenNames: (names) => {
      for (const name of names) if (tokenName(name)) tokenNames.add(name);
    },
  };
}
