// One cheap request that tells whether an API key works: the provider's model list, which
// costs no tokens. Used by /login before a key is saved.
import { apiUrl } from '../util/base-url.js';
import { errorMessage } from '../util/errors.js';
import { providerDefaults } from './catalog.js';
import type { ProviderName } from './types.js';

export type KeyCheck =
  | { status: 'valid' }
  /** The provider said no (401/403): the key must not be saved. */
  | { status: 'rejected'; message: string }
  /** No answer either way (network down, a server without a model list): saving is the user's call. */
  | { status: 'unknown'; message: string };

/** Contract: never throws; gives up after `timeoutMs` or when `signal` aborts. */
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
  const timeout = AbortSignal.timeout(timeoutMs);
  try {
    const response = await fetch(apiUrl(baseUrl, 'models'), {
      headers,
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
    });
    await response.body?.cancel();
    if (response.ok) return { status: 'valid' };
    if (response.status === 401 || response.status === 403) {
      return {
        status: 'rejected',
        message: `${provider} rejected the key (HTTP ${response.status})`,
      };
    }
    return {
      status: 'unknown',
      message: `${provider} answered HTTP ${response.status} to the key check`,
    };
  } catch (error) {
    return { status: 'unknown', message: `could not reach ${provider}: ${errorMessage(error)}` };
  }
}
