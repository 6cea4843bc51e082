// Providers, keys and model choices for one run (see session/provider-access.ts): the flags
// apply to the provider they were given for, every other provider uses its environment
// variables, auth.json and defaults, so that /model and /login can move between them.
import { AuthStore, missingKeyMessage, PROVIDER_ENV_KEYS, resolveApiKey } from '../config/auth.js';
import type { ZotPaths } from '../config/paths.js';
import { saveSettings } from '../config/settings.js';
import {
  defaultBaseUrl,
  isProviderName,
  listModels,
  PROVIDER_NAMES,
  providerDefaults,
  providerNeedsKey,
  resolveModel,
} from '../providers/index.js';
import { checkApiKey } from '../providers/key-check.js';
import type { ModelInfo, ProviderName } from '../providers/types.js';
import type { ProviderAccess } from '../session/provider-access.js';
import { isBaseUrl } from '../util/base-url.js';
import { UsageError } from '../util/errors.js';
import type { CliOptions } from './args.js';

/**
 * The base URL the environment gives `provider` (ANTHROPIC_BASE_URL, OPENAI_BASE_URL, as the
 * official SDKs read); empty counts as unset.
 * Contract: throws UsageError naming the variable when its value is not an http(s) URL.
 */
export function environmentBaseUrl(
  provider: ProviderName,
  env: NodeJS.ProcessEnv,
): string | undefined {
  const name = providerDefaults(provider).baseUrlEnv;
  const value = name ? env[name]?.trim() : undefined;
  if (!name || !value) return undefined;
  if (!isBaseUrl(value)) {
    throw new UsageError(
      `${name} expects an http:// or https:// URL (e.g. http://localhost:8000/v1), got "${value}"`,
    );
  }
  return value;
}

/**
 * The catalog lookup, except that a model OpenAI does not list, on a server of your own, is
 * taken to be served by an OpenAI-compatible server (vLLM, llama.cpp, LM Studio ...): those
 * speak Chat Completions, not Responses. models.json can still say otherwise.
 */
export function resolveForRun(
  provider: ProviderName,
  id: string | undefined,
  extra: ModelInfo[],
  baseUrl?: string,
) {
  const resolved = resolveModel(provider, id, extra);
  const compatible = !resolved.known && provider === 'openai' && baseUrl !== undefined;
  return compatible
    ? { ...resolved, model: { ...resolved.model, api: 'openai-chat' as const } }
    : resolved;
}

export interface ProviderAccessOptions {
  options: CliOptions;
  paths: ZotPaths;
  /** The provider the run started with: --base-url and --api-key belong to it. */
  start: ProviderName;
  extra: ModelInfo[];
  env?: NodeJS.ProcessEnv;
}

export function createProviderAccess(setup: ProviderAccessOptions): ProviderAccess {
  const { options, paths, start, extra } = setup;
  const env = setup.env ?? process.env;
  const store = () => new AuthStore(paths.auth);
  /** A base URL of the user's own for `provider` (flag or environment), if any. */
  const override = (provider: ProviderName) =>
    (provider === start ? options.baseUrl : undefined) ?? environmentBaseUrl(provider, env);
  const flagKey = (provider: ProviderName) => (provider === start ? options.apiKey : undefined);

  return {
    models: () => PROVIDER_NAMES.flatMap((provider) => listModels(provider, extra)),
    resolve(ref, current) {
      const text = ref.trim();
      if (text === '') return undefined;
      const slash = text.indexOf('/');
      const prefix = slash > 0 ? text.slice(0, slash) : '';
      // Model ids may contain slashes (org/model): only a provider name counts as a prefix.
      const [provider, id] = isProviderName(prefix)
        ? [prefix, text.slice(slash + 1)]
        : [current.provider, text];
      if (id === '') return undefined;
      return resolveForRun(provider, id, extra, override(provider)).model;
    },
    // The flag, then the model's own entry (more specific than a provider-wide variable that
    // may be set for other tools), then the environment, then the provider's API.
    baseUrl: (model) =>
      (model.provider === start ? options.baseUrl : undefined) ??
      model.baseUrl ??
      override(model.provider) ??
      defaultBaseUrl(model.provider),
    apiKey(provider) {
      const key = resolveApiKey(provider, flagKey(provider), env, store());
      // A server of your own (flag or environment) may be a local one that needs no key.
      if (!key && providerNeedsKey(provider) && override(provider) === undefined) {
        throw new Error(`${missingKeyMessage(provider, paths.auth)} Or use /login in the TUI.`);
      }
      return key?.key;
    },
    providers: () =>
      PROVIDER_NAMES.map((provider) => {
        const source = resolveApiKey(provider, flagKey(provider), env, store())?.source;
        const needsKey = providerNeedsKey(provider);
        let ready = source !== undefined || !needsKey;
        try {
          ready ||= override(provider) !== undefined;
        } catch {
          // A bad base URL variable: the call will fail and say so.
        }
        return { provider, needs_key: needsKey, ...(source ? { key_source: source } : {}), ready };
      }),
    async login(provider, key, signal) {
      const trimmed = key.trim();
      if (trimmed === '') return { ok: false, error: 'the key is empty' };
      const baseUrl = override(provider) ?? defaultBaseUrl(provider);
      const check = await checkApiKey(provider, baseUrl, trimmed, signal);
      if (check.status === 'rejected') return { ok: false, error: check.message };
      try {
        store().set(provider, trimmed);
      } catch (error) {
        return { ok: false, error: `could not save the key: ${(error as Error).message}` };
      }
      const shadow = flagKey(provider)
        ? '--api-key'
        : PROVIDER_ENV_KEYS[provider].find((name) => env[name]);
      const warnings = [
        ...(check.status === 'unknown' ? [`${check.message}; saved without a check`] : []),
        ...(shadow ? [`${shadow} is set and is used before the saved key`] : []),
      ];
      return {
        ok: true,
        message: `saved the ${provider} key in ${paths.auth}`,
        ...(warnings.length > 0 ? { warning: warnings.join('; ') } : {}),
      };
    },
    logout: (provider) => store().remove(provider),
    remember: (model) => saveSettings(paths.config, { provider: model.provider, model: model.id }),
  };
}
