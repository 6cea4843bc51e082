// Where a remote extension's bearer token comes from, first found wins:
//   1. the variable its manifest's `token_env` (or --ext-token-env) names;
//   2. config.json `"remote_extensions": {"<name or URL>": {"token_env": "VAR"}}`: that variable;
//   3. auth.json `"extensions": {"<URL or name>": {"token": "..."}}`;
//   4. for --ext-url without --ext-token-env, ZOT_EXT_TOKEN when it is set.
// Entries keyed by name are not read for a project's manifest (only those keyed by its URL).
// A token is a secret: it is returned to the transport only; what is shown is where it came from.
// zot's own secrets (a provider key, the RPC token) are never sent: a variable of theirs named as
// a token variable, or a token equal to one of their values, is refused.
import { AuthStore } from '../config/auth.js';
import { readJsonObject } from '../config/json-file.js';
import { SECRET_VARIABLES } from '../security/child-env.js';
import {
  displayUrl,
  remoteRefusal,
  secretVariableProblem,
  type RemoteConfig,
} from './remote-config.js';

export interface TokenPlaces {
  env: NodeJS.ProcessEnv;
  /** auth.json and config.json; absent: only the environment is read. */
  authPath?: string | undefined;
  configPath?: string | undefined;
  /**
   * Whether entries keyed by the extension's name apply (false for a project's manifest: a
   * project could name its extension after one of yours and point it at its own server; an
   * entry keyed by the exact URL still applies, its token goes where it was meant to).
   */
  byName?: boolean;
}

export type ResolvedToken =
  | { token?: string; from?: string; problem?: undefined }
  | { problem: string; token?: undefined; from?: undefined };

/**
 * The token for remote extension `name` (see the order above), where it came from, or why none
 * may be used. Contract: never throws; the token appears in no message.
 */
export function resolveRemoteToken(
  name: string,
  config: RemoteConfig,
  places: TokenPlaces,
): ResolvedToken {
  const { env } = places;
  const keys = places.byName === false ? [config.url] : [name, config.url];
  let found: { token: string; from: string } | undefined;
  if (config.tokenEnv && !config.tokenOptional) {
    const token = env[config.tokenEnv];
    if (token) found = { token, from: config.tokenEnv };
  }
  if (!found && places.configPath) {
    const entry = entryFor(places.configPath, 'remote_extensions', keys);
    if (entry !== undefined) {
      const variable = entry.token_env;
      const where = `config.json "remote_extensions" for ${entry.key}`;
      if (typeof variable !== 'string' || !/^[A-Za-z_][A-Za-z0-9_]{0,127}$/.test(variable))
        return { problem: `${where}: "token_env" must be the name of an environment variable` };
      const secret = secretVariableProblem(variable);
      if (secret) return { problem: `${where}: ${secret}` };
      if (!env[variable])
        return { problem: `${where} names ${variable}, which is not set; export it` };
      found = { token: env[variable]!, from: `${variable} (config.json)` };
    }
  }
  if (!found && places.authPath) {
    const entry = entryFor(places.authPath, 'extensions', keys);
    if (entry !== undefined) {
      if (typeof entry.token !== 'string' || entry.token === '')
        return {
          problem: `auth.json "extensions" for ${entry.key}: "token" must be a non-empty string`,
        };
      found = { token: entry.token, from: `auth.json` };
    }
  }
  if (!found && config.tokenEnv && config.tokenOptional && env[config.tokenEnv])
    found = { token: env[config.tokenEnv]!, from: config.tokenEnv };
  if (!found) return {};
  const clash = secretNamed(found.token, places);
  if (clash)
    return {
      problem: `the token from ${found.from} is the same as zot's ${clash}; zot never sends its own keys to an extension's server: give the extension a token of its own`,
    };
  return found;
}

/**
 * What connecting to remote extension `name` takes, as the host decides it: the loopback rule
 * (`insecure`: --insecure-ext-transport), then the token; or why zot will not connect. The host,
 * `zot ext test --url` and `zot ext list`'s probe all go through here. Contract: never throws;
 * the token appears in no message.
 */
export function prepareRemoteLink(
  name: string,
  config: RemoteConfig,
  places: TokenPlaces & { insecure: boolean },
): { config: RemoteConfig; token?: string | undefined } | { problem: string } {
  const refused = remoteRefusal(config, { insecure: places.insecure, env: places.env });
  if (refused) return { problem: refused };
  const resolved = resolveRemoteToken(name, config, places);
  if (resolved.problem !== undefined) return { problem: resolved.problem };
  return {
    config: resolved.from ? { ...config, tokenFrom: resolved.from } : config,
    token: resolved.token,
  };
}

/**
 * The entry under `section` of the JSON file at `path` for the first of `keys` it has (the URL
 * matched without its query).
 */
function entryFor(
  path: string,
  section: string,
  keys: readonly string[],
): (Record<string, unknown> & { key: string }) | undefined {
  const read = readJsonObject<Record<string, unknown>>(path);
  if (!read.ok) return undefined;
  const block = read.value?.[section];
  if (block === null || typeof block !== 'object' || Array.isArray(block)) return undefined;
  const entries = block as Record<string, unknown>;
  for (const key of keys) {
    if (!Object.prototype.hasOwnProperty.call(entries, key)) continue;
    const entry = entries[key];
    const shown = JSON.stringify(displayUrl(key));
    if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) return { key: shown };
    return { ...(entry as Record<string, unknown>), key: shown };
  }
  return undefined;
}

/** Which of zot's own secrets `token` equals (a provider key variable or auth.json key). */
function secretNamed(token: string, places: TokenPlaces): string | undefined {
  for (const name of SECRET_VARIABLES) if (places.env[name] === token) return name;
  if (places.authPath) {
    try {
      const stored = new AuthStore(places.authPath).list();
      const same = stored.find((entry) => entry.key === token);
      if (same) return `${same.provider} key in auth.json`;
    } catch {
      // An unreadable auth.json is reported where providers read it.
    }
  }
  return undefined;
}
