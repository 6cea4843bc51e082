// auth.json (mode 0600, one key per provider) and credential resolution.
import { chmodSync } from 'node:fs';
import { PROVIDER_NAMES, type ProviderName } from '../contract/provider-names.js';
import { readJsonObject, updateJsonObject, type JsonRead } from './json-file.js';

export { PROVIDER_NAMES, type ProviderName };

/** Each provider's key variables, first set wins. Local servers need one only when remote. */
export const PROVIDER_ENV_KEYS: Record<ProviderName, readonly string[]> = {
  anthropic: ['ANTHROPIC_API_KEY'],
  openai: ['OPENAI_API_KEY'],
  kimi: ['KIMI_API_KEY', 'MOONSHOT_API_KEY'],
  ollama: ['OLLAMA_API_KEY'],
  lmstudio: ['LMSTUDIO_API_KEY'],
  vllm: ['VLLM_API_KEY'],
  llamacpp: ['LLAMACPP_API_KEY'],
};

type AuthFile = Record<string, { key?: unknown } | undefined>;

export class AuthStore {
  constructor(private readonly path: string) {}

  /** Contract: throws an Error naming auth.json when the file exists but is not valid JSON. */
  private read(): AuthFile {
    const read = readJsonObject<AuthFile>(this.path);
    if (!read.ok) throw new Error(read.error);
    return read.value ?? {};
  }

  get(provider: ProviderName): string | undefined {
    const key = this.read()[provider]?.key;
    return typeof key === 'string' && key !== '' ? key : undefined;
  }

  /** Contract: locked read-modify-write; concurrent sets of other providers are kept. */
  set(provider: ProviderName, key: string): void {
    updateJsonObject<AuthFile>(this.path, 0o600, (read) => ({
      ...current(read),
      [provider]: { key },
    }));
    chmodSync(this.path, 0o600);
  }

  /** Returns whether a key was stored. */
  remove(provider: ProviderName): boolean {
    let removed = false;
    updateJsonObject<AuthFile>(this.path, 0o600, (read) => {
      const data = current(read);
      if (!(provider in data)) return undefined;
      delete data[provider];
      removed = true;
      return data;
    });
    return removed;
  }

  list(): Array<{ provider: string; key: string }> {
    const data = this.read();
    return Object.entries(data)
      .filter(([, entry]) => typeof entry?.key === 'string')
      .map(([provider, entry]) => ({ provider, key: entry!.key as string }));
  }
}

function current(read: JsonRead<AuthFile>): AuthFile {
  if (!read.ok) throw new Error(read.error);
  return read.value ?? {};
}

export function maskKey(key: string): string {
  if (key.length <= 8) return '*'.repeat(key.length);
  return `${key.slice(0, 4)}…${key.slice(-4)}`;
}

export type KeySource = 'flag' | 'env' | 'auth.json';

/** --api-key, then the provider's environment variables, then auth.json. */
export function resolveApiKey(
  provider: ProviderName,
  flagKey: string | undefined,
  env: NodeJS.ProcessEnv,
  store: AuthStore,
): { key: string; source: KeySource; detail: string } | undefined {
  if (flagKey) return { key: flagKey, source: 'flag', detail: '--api-key' };
  for (const name of PROVIDER_ENV_KEYS[provider]) {
    const value = env[name];
    if (value) return { key: value, source: 'env', detail: name };
  }
  const stored = store.get(provider);
  if (stored) return { key: stored, source: 'auth.json', detail: 'auth.json' };
  return undefined;
}

export function missingKeyMessage(provider: ProviderName, authPath: string): string {
  const vars = PROVIDER_ENV_KEYS[provider].join(' or ');
  return (
    `no API key for ${provider}. Provide one with --api-key, the ${vars} environment variable, ` +
    `or store it with \`zot auth set ${provider}\` (reads the key from stdin; saved in ${authPath}).`
  );
}
