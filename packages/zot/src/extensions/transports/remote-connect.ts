// How a remote extension's connection is made (through an agent zot passes in) and what its
// failures mean, in words that say what to do. Messages never quote a token or a header value.
import type { Agent } from 'node:http';
import { redactUrlsIn } from '../../util/redact.js';
import { displayUrl, type RemoteConfig } from '../../ext-setup/remote-config.js';

/**
 * The agent a connection to `url` goes through, or why none can be had (a proxy setting that is
 * not usable); undefined: a direct connection. zot passes providers/transport.ts's
 * connectionAgent (the providers' proxy settings), so the extension layer never loads providers.
 */
export type AgentFor = (url: URL) => Promise<Agent | undefined | { error: string }>;

const TLS_TRUST_CODES = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_UNTRUSTED',
]);

/** What a connection error means for `config`, and what to do about it. Contract: never throws. */
export function connectionProblem(
  error: unknown,
  config: RemoteConfig,
  sentToken: boolean,
): string {
  const shown = displayUrl(config.url);
  const host = hostOf(config.url);
  const code = (error as NodeJS.ErrnoException | undefined)?.code ?? '';
  const message = redactUrlsIn(String((error as Error | undefined)?.message ?? error)).slice(
    0,
    300,
  );
  if (code === 'ECONNREFUSED')
    return `nothing listens at ${shown} (connection refused); is the extension's server running?`;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
    return `cannot resolve ${host} (${code}); check the URL ${shown}`;
  if (code === 'ECONNRESET') return `the connection to ${shown} was reset`;
  if (code === 'ETIMEDOUT') return `the connection to ${shown} timed out`;
  if (TLS_TRUST_CODES.has(code))
    return `the TLS certificate of ${host} is not trusted (${code}); if your own CA signed it, add that CA to NODE_EXTRA_CA_CERTS`;
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID')
    return `the TLS certificate of ${host} is for another name (${message})`;
  if (code === 'CERT_HAS_EXPIRED' || code === 'CERT_NOT_YET_VALID')
    return `the TLS certificate of ${host} is not valid now (${code})`;
  if (code.startsWith('ERR_SSL') || code.startsWith('ERR_TLS') || /certificate/i.test(message))
    return `TLS with ${host} failed (${code || message})`;
  const status = /Unexpected server response: (\d{3})/.exec(message)?.[1];
  if (status === '401' || status === '403') {
    const variable = config.tokenFrom ?? config.tokenEnv ?? 'ZOT_EXT_TOKEN';
    return sentToken
      ? `${shown} refused the token from ${variable} (HTTP ${status}); check its value`
      : `${shown} wants a token (HTTP ${status}); set ${variable} (or name the variable with "token_env" / --ext-token-env)`;
  }
  if (status !== undefined)
    return `${shown} answered HTTP ${status} instead of a WebSocket upgrade; check the URL`;
  if (/handshake has timed out/i.test(message))
    return `no answer from ${shown} within the connection timeout`;
  if (/Max payload size exceeded/i.test(message))
    return 'sent a message over the 64 MiB message limit (frames are at most 32 MiB); connection closed';
  return message || 'connection failed';
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return displayUrl(url);
  }
}
