// A remote extension's connection, as a manifest's `transport` field or `--ext-url` gives it:
// validated here (shape, scheme, loopback rule, token), shown only with credentials elided.
import { isLoopbackUrl } from '../util/base-url.js';
import { SECRET_VARIABLES } from '../security/child-env.js';
import { redactUrl } from '../util/redact.js';

export type RemoteKind = 'websocket' | 'http';

/** A validated `transport` block. Header values and the token are secrets: never shown. */
export interface RemoteConfig {
  type: RemoteKind;
  url: string;
  /** Extra request headers (names lowercased). */
  headers: Record<string, string>;
  /** The environment variable holding the bearer token, if any. */
  tokenEnv?: string;
  /** `--ext-url` without `--ext-token-env`: ZOT_EXT_TOKEN, used when set, never required. */
  tokenOptional?: boolean;
  /** Where the token was found (a variable's name, "auth.json"), for messages; never the token. */
  tokenFrom?: string;
}

/** Most extra headers, and the longest value, a `transport` block may carry. */
export const MAX_REMOTE_HEADERS = 32;
export const MAX_HEADER_VALUE_CHARS = 8 * 1024;
/** The variable `--ext-url` reads its token from unless `--ext-token-env` names another. */
export const DEFAULT_TOKEN_ENV = 'ZOT_EXT_TOKEN';

const SCHEMES: Record<RemoteKind, readonly string[]> = {
  websocket: ['ws:', 'wss:'],
  http: ['http:', 'https:'],
};
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,128}$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
/** Headers the transport sets itself; a manifest may not override them. */
const RESERVED_HEADERS = new Set([
  'host',
  'connection',
  'upgrade',
  'content-length',
  'transfer-encoding',
  'sec-websocket-key',
  'sec-websocket-version',
  'sec-websocket-extensions',
  'sec-websocket-protocol',
  'authorization',
]);

/**
 * Reads a `transport` value. Contract: never throws; a problem is a string naming the field.
 */
export function parseRemoteConfig(value: unknown): RemoteConfig | string {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return '"transport" must be an object such as {"type": "websocket", "url": "wss://host/path"}';
  const raw = value as Record<string, unknown>;
  if (raw.type !== 'websocket' && raw.type !== 'http')
    return '"transport.type" must be "websocket" or "http"';
  const type = raw.type;
  if (typeof raw.url !== 'string') return '"transport.url" must be a string';
  const url = checkUrl(raw.url, type);
  if (typeof url === 'string') return `"transport.url": ${url}`;
  const headers: Record<string, string> = {};
  if (raw.headers !== undefined && raw.headers !== null) {
    if (typeof raw.headers !== 'object' || Array.isArray(raw.headers))
      return '"transport.headers" must be an object of header names to string values';
    const entries = Object.entries(raw.headers as Record<string, unknown>);
    if (entries.length > MAX_REMOTE_HEADERS)
      return `"transport.headers" may hold at most ${MAX_REMOTE_HEADERS} headers`;
    for (const [name, headerValue] of entries) {
      const where = `"transport.headers" ${JSON.stringify(name.slice(0, 64))}`;
      if (!HEADER_NAME.test(name)) return `${where} is not a valid header name`;
      if (RESERVED_HEADERS.has(name.toLowerCase()))
        return `${where} is set by zot itself (the bearer token comes from "token_env")`;
      if (typeof headerValue !== 'string') return `${where} must be a string`;
      if (headerValue.length > MAX_HEADER_VALUE_CHARS || /[\r\n\0]/.test(headerValue))
        return `${where} must be one line of at most ${MAX_HEADER_VALUE_CHARS} characters`;
      headers[name.toLowerCase()] = headerValue;
    }
  }
  const config: RemoteConfig = { type, url: raw.url, headers };
  if (raw.token_env !== undefined && raw.token_env !== null) {
    if (typeof raw.token_env !== 'string' || !ENV_NAME.test(raw.token_env))
      return '"transport.token_env" must be the name of an environment variable';
    const secret = secretVariableProblem(raw.token_env);
    if (secret) return `"transport.token_env": ${secret}`;
    config.tokenEnv = raw.token_env;
  }
  return config;
}

/** Why `name` may not be a token variable, or undefined. Contract: pure, never throws. */
export function secretVariableProblem(name: string): string | undefined {
  const upper = name.toUpperCase();
  if (!SECRET_VARIABLES.some((secret) => secret.toUpperCase() === upper)) return undefined;
  return `${name} holds one of zot's own secrets (a provider key or the RPC token), which zot never sends to an extension's server; give the extension a token of its own in another variable`;
}

/** The URL parsed, or what is wrong with it (quoted without credentials). */
export function checkUrl(text: string, type: RemoteKind): URL | string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return `${JSON.stringify(redactUrl(text))} is not a URL`;
  }
  if (!SCHEMES[type].includes(url.protocol))
    return `${redactUrl(text)} must begin with ${SCHEMES[type].map((s) => `${s}//`).join(' or ')} for a ${type} extension`;
  if (url.username || url.password)
    return `${redactUrl(text)} carries credentials; put the token in an environment variable named by "token_env"`;
  return url;
}

/** The kind of transport a URL's scheme means (`--ext-url`). */
export function kindOfUrl(text: string): RemoteKind | undefined {
  const scheme = /^([a-z]+):/i.exec(text)?.[1]?.toLowerCase();
  if (scheme === 'ws' || scheme === 'wss') return 'websocket';
  if (scheme === 'http' || scheme === 'https') return 'http';
  return undefined;
}

/**
 * Why zot will not connect to `config` as it stands, or undefined. Unencrypted transports
 * (ws://, http://) go to loopback addresses only unless the user passed --insecure-ext-transport;
 * a token named but not set fails here too (never a silent connection without it).
 */
export function remoteRefusal(
  config: RemoteConfig,
  options: { insecure: boolean; env: NodeJS.ProcessEnv },
): string | undefined {
  const url = checkUrl(config.url, config.type);
  if (typeof url === 'string') return url;
  const plain = url.protocol === 'ws:' || url.protocol === 'http:';
  if (plain && !isLoopbackUrl(url.href) && !options.insecure)
    return `${displayUrl(config.url)} is not encrypted and ${url.hostname} is not a loopback address; use ${url.protocol === 'ws:' ? 'wss' : 'https'}:// or pass --insecure-ext-transport`;
  if (config.tokenEnv && !config.tokenOptional && !options.env[config.tokenEnv])
    return `its token variable ${config.tokenEnv} is not set; export it (or remove "token_env")`;
  return undefined;
}

/** The URL as zot shows it: user information and secret query values elided. */
export function displayUrl(url: string): string {
  return redactUrl(url);
}

/**
 * A name for an `--ext-url` extension: its path's last segment when it is a valid extension
 * name, else its host and port (`127.0.0.1-8080`).
 */
export function nameFromUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'remote';
  }
  const valid = (name: string) => /^[a-z0-9][a-z0-9._-]{0,63}$/.test(name);
  const last = url.pathname.split('/').filter(Boolean).pop()?.toLowerCase() ?? '';
  if (valid(last)) return last;
  const host = url.hostname.replace(/^\[|\]$/g, '').replace(/[^a-z0-9.-]/gi, '-');
  const port = url.port ? `-${url.port}` : '';
  const name = `${host}${port}`.toLowerCase().replace(/^[^a-z0-9]+/, '');
  return valid(name) ? name : 'remote';
}
