// One cheap request that tells whether an API key works: the provider's model list, which
// costs no tokens. Used by /login before a key is saved.
import { apiUrl } from '../util/base-url.js';
import { errorMessage } from '../util/errors.js';
import { redactUrlsIn } from '../util/redact.js';
import { providerDefaults } from './catalog.js';
import { send } from './transport.js';
import type { ProviderName } from './types.js';

export type KeyCheck =
  | { status: 'valid' }
  /** The provider said no (401/403): the key must not be saved. */
  | { status: 'rejected'; message: string }
  /** No answer either way (network down, a server without a model list): saving is the user's call. */
  | { status: 'unknown'; message: string };

/** Contract: never throws; gives up after `timeoutMs` without a byte, or when `signal` aborts. */
export async function checkApiKey(
  provider: ProviderName,
  baseUrl: string,
  key: string,
  signal?: AbortSignal,
  timeoutMs = 15_000,
): Promise<KeyCheck> {
  const anthropic = providerDefaults(provider).api === 'anthropic-messages';
  const headers: Record<string, string> = anthropic
    ? { 'x-api-key': key, 'anthropic-version': '2023-06-01' }
    : { authorization: `Bearer ${key}` };
  try {
    // The same transport (and proxy settings) as the model calls; the idle timeout is the limit.
    const reply = await send({
      method: 'GET',
      url: apiUrl(baseUrl, 'models'),
      headers,
      signal: signal ?? new AbortController().signal,
      idleMs: timeoutMs,
    });
    reply.close();
    if (reply.status >= 200 && reply.status <= 299) return { status: 'valid' };
    if (reply.status === 401 || reply.status === 403) {
      return {
        status: 'rejected',
        message: `${provider} rejected the key (HTTP ${reply.status})`,
      };
    }
    return {
      status: 'unknown',
      message: `${provider} answered HTTP ${reply.status} to the key check`,
    };
  } catch (error) {
    const why = redactUrlsIn(errorMessage(error));
    return { status: 'unknown', message: `could not reach ${provider}: ${why}` };
  }
}
