// Providers, keys and model choices for one run (see session/provider-access.ts): the flags
// apply to the provider they were given for, every other provider uses its environment
// variables, auth.json and defaults, so that /model and /login can move between them.
import { AuthStore, missingKeyMessage, PROVIDER_ENV_KEYS, resolveApiKey } from '../config/auth.js';
import { firstShowing } from '../config/notices.js';
import type { ZotPaths } from '../config/paths.js';
import { saveSettings } from '../config/settings.js';
import {
  builtinModel,
  defaultBaseUrl,
  isProviderName,
  listModels,
  PROVIDER_NAMES,
  providerDefaults,
  resolveModel,
  type RejectedEntry,
} from '../providers/index.js';
import { checkApiKey } from '../providers/key-check.js';
import { listServerModels } from '../providers/model-list.js';
import type { ModelInfo, ProviderName } from '../providers/types.js';
import type { ProviderAccess } from '../session/provider-access.js';
import { displayBaseUrl, isBaseUrl, isLoopbackUrl } from '../util/base-url.js';
import { redactUrl } from '../util/redact.js';
import { UsageError } from '../util/errors.js';
import type { CliOptions } from './args.js';

/** What models.json holds: its models, and the entries it skipped (whose models are refused). */
export interface ConfiguredModels {
  path: string;
  models: ModelInfo[];
  rejected: RejectedEntry[];
}

/**
 * The base URL the environment gives `provider`: the first set of its variables
 * (ZOT_OPENAI_BASE_URL, then OPENAI_BASE_URL, as the official SDK reads; ANTHROPIC_BASE_URL);
 * empty counts as unset.
 * Contract: throws UsageError naming the variable when its value is not an http(s) URL.
 */
export function environmentBaseUrl(
  provider: ProviderName,
  env: NodeJS.ProcessEnv,
): string | undefined {
  for (const name of providerDefaults(provider).baseUrlEnv) {
    const value = env[name]?.trim();
    if (!value) continue;
    if (!isBaseUrl(value)) {
      throw new UsageError(
        `${name} expects an http:// or https:// URL (e.g. http://localhost:8000/v1), ` +
          `got "${redactUrl(value)}"`,
      );
    }
    return value;
  }
  return undefined;
}

const sameUrl = (a: string, b: string) => a.trim().replace(/\/+$/, '') === b.replace(/\/+$/, '');

/**
 * The model with the wire API its server speaks: a model OpenAI does not list, sent anywhere
 * but OpenAI's own API, is taken to be served by an OpenAI-compatible server (vLLM, llama.cpp,
 * LM Studio ...), and those all speak Chat Completions, not Responses. An `api` set in
 * models.json is kept as it is.
 */
function suitApi(model: ModelInfo, url: string): ModelInfo {
  const guessed = model.api === 'openai-responses' && !model.apiFixed;
  if (!guessed || builtinModel(model.provider, model.id)) return model;
  return sameUrl(url, defaultBaseUrl(model.provider)) ? model : { ...model, api: 'openai-chat' };
}

/**
 * Contract: throws an Error naming models.json and the entry when the entry for this model was
 * skipped: it was meant to say where this model's requests go, so none are sent anywhere.
 */
function refuseRejected(provider: ProviderName, id: string, configured: ConfiguredModels): void {
  const entry = configured.rejected.find(
    (r) => r.id === id && (r.provider === undefined || r.provider === provider),
  );
  if (!entry) return;
  throw new Error(
    `the models.json entry for ${provider}/${id} is invalid, so no request is sent for it: ` +
      `${entry.message}. Fix the entry (or remove it) and run again.`,
  );
}

export interface ProviderAccessOptions {
  options: CliOptions;
  paths: ZotPaths;
  /** The provider the run started with: --base-url and --api-key belong to it. */
  start: ProviderName;
  configured: ConfiguredModels;
  env?: NodeJS.ProcessEnv;
}

/** What the run's set-up needs besides the session's port: the first model, --list-models. */
export interface RunProviderAccess extends ProviderAccess {
  /** `provider`'s model `id`. Contract: throws as `resolve` does. */
  model(provider: ProviderName, id: string): ModelInfo;
  /** The base URL calls of `provider` (not of one model) go to. Contract: throws on a bad variable. */
  providerUrl(provider: ProviderName): string;
  /** Whether the catalog or models.json describes `model` (limits, prices). */
  described(model: ModelInfo): boolean;
  /** Asks the provider's server what it serves (GET /v1/models); remembered for `models()`. */
  serverModels(
    provider: ProviderName,
  ): Promise<{ ok: true; ids: string[] } | { ok: false; error: string }>;
}

export function createProviderAccess(setup: ProviderAccessOptions): RunProviderAccess {
  const { options, paths, start, configured } = setup;
  const extra = configured.models;
  const env = setup.env ?? process.env;
  const store = () => new AuthStore(paths.auth);
  /** A base URL of the user's own for `provider` (flag or environment), if any. */
  const override = (provider: ProviderName) =>
    (provider === start ? options.baseUrl : undefined) ?? environmentBaseUrl(provider, env);
  const flagKey = (provider: ProviderName) => (provider === start ? options.apiKey : undefined);
  const providerUrl = (provider: ProviderName) => override(provider) ?? defaultBaseUrl(provider);
  // The flag, then the model's own entry (more specific than a provider-wide variable that
  // may be set for other tools), then the environment, then the provider's API.
  const baseUrl = (model: ModelInfo) =>
    (model.provider === start ? options.baseUrl : undefined) ??
    model.baseUrl ??
    providerUrl(model.provider);
  const described = (model: ModelInfo) =>
    listModels(model.provider, extra).some((m) => m.id === model.id);
  /** Models servers listed in this run (the /model picker offers them). */
  const served: ModelInfo[] = [];
  /** Models whose first-call note was considered in this run. */
  const noted = new Set<string>();

  const model = (provider: ProviderName, id: string) => {
    refuseRejected(provider, id, configured);
    const found = resolveModel(provider, id, extra).model;
    return suitApi(found, baseUrl(found));
  };

  return {
    model,
    providerUrl,
    described,
    models: () => {
      const all = PROVIDER_NAMES.flatMap((provider) => listModels(provider, extra));
      const listed = served.filter(
        (s) => !all.some((m) => m.provider === s.provider && m.id === s.id),
      );
      return [...all, ...listed];
    },
    async serverModels(provider) {
      let key: string | undefined;
      try {
        key = resolveApiKey(provider, flagKey(provider), env, store())?.key;
      } catch {
        // An unreadable auth.json: ask without a key; a server that wants one will say so.
      }
      const listed = await listServerModels(providerUrl(provider), key);
      if (listed.ok) {
        for (const id of listed.ids) {
          if (!served.some((m) => m.provider === provider && m.id === id)) {
            served.push(resolveModel(provider, id, extra).model);
          }
        }
      }
      return listed;
    },
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
      return model(provider, id);
    },
    baseUrl,
    apiKey(target) {
      const { provider } = target;
      const key = resolveApiKey(provider, flagKey(provider), env, store());
      if (key) return key.key;
      // A server on this machine is reached by nobody else: it needs no key. Anything else does
      // (a remote server without keys takes any placeholder, and says so by answering).
      const url = baseUrl(target);
      if (isLoopbackUrl(url)) return undefined;
      const custom = !sameUrl(url, defaultBaseUrl(provider));
      const where = custom ? ` The server at ${displayBaseUrl(url)} is not on this machine.` : '';
      const placeholder = custom
        ? ` If that server needs no key, any value will do (e.g. ${PROVIDER_ENV_KEYS[provider][0]}=none).`
        : '';
      throw new Error(
        `${missingKeyMessage(provider, paths.auth)}${where}${placeholder} Or use /login in the TUI.`,
      );
    },
    providers: () =>
      PROVIDER_NAMES.map((provider) => {
        const source = resolveApiKey(provider, flagKey(provider), env, store())?.source;
        let needsKey = true;
        try {
          needsKey = !isLoopbackUrl(providerUrl(provider));
        } catch {
          // A bad base URL variable: the call will fail and say so.
        }
        const ready = source !== undefined || !needsKey;
        return { provider, needs_key: needsKey, ...(source ? { key_source: source } : {}), ready };
      }),
    async login(provider, key, signal) {
      const trimmed = key.trim();
      if (trimmed === '') return { ok: false, error: 'the key is empty' };
      const check = await checkApiKey(provider, providerUrl(provider), trimmed, signal);
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
    remember: (choice) =>
      saveSettings(paths.config, { provider: choice.provider, model: choice.id }),
    firstCallNote(target) {
      const key = `${target.provider}/${target.id}`;
      if (noted.has(key)) return undefined;
      noted.add(key);
      if (described(target)) return undefined;
      const api = target.api === 'openai-chat' && target.provider === 'openai';
      const note =
        `zot knows no limits for ${key}: it assumes context ${target.contextWindow}, ` +
        `max output ${target.maxTokens} (set them in ${paths.models})` +
        (api ? ', and speaks Chat Completions to it' : '') +
        '. Said once per model.';
      return firstShowing(paths.notices, `unknown-model:${key}`, note) ? note : undefined;
    },
  };
}

// The config layer keeps its own list of provider names (it may not import providers): the two
// must name the same providers, or this fails to compile.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : never) : never;
const sameProviders: Same<ProviderName, import('../config/auth.js').ProviderName> = true;
void sameProviders;
