// The built-in model catalog and provider defaults.
import { PROVIDER_NAMES } from '../contract/provider-names.js';
import type { ModelInfo, ModelPrices, ProviderApi, ProviderName, TokenUsage } from './types.js';

export interface ProviderDefaults {
  provider: ProviderName;
  baseUrl: string;
  api: ProviderApi;
  /**
   * Environment variables that move the provider elsewhere, first set wins: zot's own, then the
   * one the provider's official SDK reads.
   */
  baseUrlEnv: readonly string[];
  /** The model used when none is chosen; absent where only the server knows its models. */
  defaultModel?: string;
  /** A server on this machine (ollama, LM Studio, vLLM, llama.cpp): its models are what it lists. */
  local: boolean;
}

export { PROVIDER_NAMES };

/** An OpenAI-compatible server on this machine, at the port it listens on unless told otherwise. */
const local = (port: number, defaultModel?: string): Omit<ProviderDefaults, 'provider'> => ({
  baseUrl: `http://127.0.0.1:${port}/v1`,
  api: 'openai-chat',
  baseUrlEnv: [],
  ...(defaultModel ? { defaultModel } : {}),
  local: true,
});

// Every provider zot knows, in one place. The local servers' ports are their documented defaults.
const PROVIDERS: Record<ProviderName, ProviderDefaults> = {
  anthropic: {
    provider: 'anthropic',
    baseUrl: 'https://api.anthropic.com',
    api: 'anthropic-messages',
    baseUrlEnv: ['ANTHROPIC_BASE_URL'],
    defaultModel: 'claude-sonnet-4-5',
    local: false,
  },
  openai: {
    provider: 'openai',
    baseUrl: 'https://api.openai.com/v1',
    api: 'openai-responses',
    baseUrlEnv: ['ZOT_OPENAI_BASE_URL', 'OPENAI_BASE_URL'],
    defaultModel: 'gpt-5',
    local: false,
  },
  kimi: {
    provider: 'kimi',
    baseUrl: 'https://api.moonshot.ai/v1',
    api: 'openai-chat',
    baseUrlEnv: [],
    defaultModel: 'kimi-k2-0905-preview',
    local: false,
  },
  ollama: { provider: 'ollama', ...local(11434, 'llama3.1') },
  lmstudio: { provider: 'lmstudio', ...local(1234) },
  vllm: { provider: 'vllm', ...local(8000) },
  llamacpp: { provider: 'llamacpp', ...local(8080) },
};

export const ZERO_PRICES: ModelPrices = { input: 0, output: 0, cache_read: 0, cache_write: 0 };

/** Limits given to model ids the catalog does not know. */
export const UNKNOWN_MODEL_LIMITS = { contextWindow: 128000, maxTokens: 8192 } as const;

type Row = [
  id: string,
  name: string,
  reasoning: boolean,
  context: number,
  maxOut: number,
  prices: number[],
];

// Prices: USD per million tokens as [input, output, cache_read, cache_write], list prices of late 2025.
const ROWS: Record<ProviderName, Row[]> = {
  anthropic: [
    ['claude-sonnet-4-5', 'Claude Sonnet 4.5', true, 200000, 64000, [3, 15, 0.3, 3.75]],
    ['claude-opus-4-5', 'Claude Opus 4.5', true, 200000, 64000, [5, 25, 0.5, 6.25]],
    ['claude-opus-4-1', 'Claude Opus 4.1', true, 200000, 32000, [15, 75, 1.5, 18.75]],
    ['claude-haiku-4-5', 'Claude Haiku 4.5', true, 200000, 64000, [1, 5, 0.1, 1.25]],
  ],
  openai: [
    ['gpt-5', 'GPT-5', true, 400000, 128000, [1.25, 10, 0.125, 0]],
    ['gpt-5-mini', 'GPT-5 mini', true, 400000, 128000, [0.25, 2, 0.025, 0]],
    ['gpt-4.1', 'GPT-4.1', false, 1047576, 32768, [2, 8, 0.5, 0]],
    ['o4-mini', 'o4-mini', true, 200000, 100000, [1.1, 4.4, 0.275, 0]],
  ],
  kimi: [
    ['kimi-k2-0905-preview', 'Kimi K2 (0905)', false, 262144, 16384, [0.6, 2.5, 0.15, 0]],
    ['kimi-k2-turbo-preview', 'Kimi K2 Turbo', false, 262144, 16384, [1.15, 8, 0.15, 0]],
  ],
  ollama: [
    ['llama3.1', 'Llama 3.1 (local)', false, 131072, 8192, [0, 0, 0, 0]],
    ['qwen2.5-coder', 'Qwen2.5 Coder (local)', false, 32768, 8192, [0, 0, 0, 0]],
  ],
  lmstudio: [],
  vllm: [],
  llamacpp: [],
};

function fromRow(provider: ProviderName, row: Row): ModelInfo {
  const [id, name, reasoning, contextWindow, maxTokens, p] = row;
  const prices = {
    input: p[0] ?? 0,
    output: p[1] ?? 0,
    cache_read: p[2] ?? 0,
    cache_write: p[3] ?? 0,
  };
  return {
    id,
    name,
    provider,
    api: PROVIDERS[provider].api,
    reasoning,
    contextWindow,
    maxTokens,
    prices,
  };
}

export function isProviderName(value: unknown): value is ProviderName {
  return typeof value === 'string' && (PROVIDER_NAMES as readonly string[]).includes(value);
}

/** A copy of the provider's defaults. */
export function providerDefaults(provider: ProviderName): ProviderDefaults {
  return { ...PROVIDERS[provider] };
}

export function defaultBaseUrl(provider: ProviderName): string {
  return PROVIDERS[provider].baseUrl;
}

/** The model a provider uses when none is chosen; undefined when only its server can say. */
export function defaultModelId(provider: ProviderName): string | undefined {
  return PROVIDERS[provider].defaultModel;
}

/** The built-in entry for an id, if any (a fresh copy). */
export function builtinModel(provider: ProviderName, id: string): ModelInfo | undefined {
  const row = ROWS[provider].find((r) => r[0] === id);
  return row ? fromRow(provider, row) : undefined;
}

/** A model the catalog does not know, with default limits and no price. */
export function unknownModel(provider: ProviderName, id: string): ModelInfo {
  const { api } = PROVIDERS[provider];
  return {
    id,
    name: id,
    provider,
    api,
    reasoning: false,
    ...UNKNOWN_MODEL_LIMITS,
    prices: { ...ZERO_PRICES },
  };
}

/**
 * The provider's models: built-ins, with `extra` entries (e.g. from models.json) replacing
 * those of the same id and new ones appended. Contract: returns fresh copies, built-ins first.
 */
export function listModels(provider: ProviderName, extra: readonly ModelInfo[] = []): ModelInfo[] {
  const models = ROWS[provider].map((row) => fromRow(provider, row));
  for (const model of extra) {
    if (model.provider !== provider) continue;
    const copy = { ...model, prices: { ...model.prices } };
    const at = models.findIndex((m) => m.id === model.id);
    if (at >= 0) models[at] = copy;
    else models.push(copy);
  }
  return models;
}

/**
 * The model for an id (the provider's default when undefined; a provider without one, such as
 * vLLM, gets an empty id: its callers ask the server, see cli/setup.ts).
 * Contract: never throws; an id neither the catalog nor `extra` has gets default limits and
 * `known: false`.
 */
export function resolveModel(
  provider: ProviderName,
  id: string | undefined,
  extra: readonly ModelInfo[] = [],
): { model: ModelInfo; known: boolean } {
  const wanted = id ?? PROVIDERS[provider].defaultModel ?? '';
  const model = listModels(provider, extra).find((m) => m.id === wanted);
  return model ? { model, known: true } : { model: unknownModel(provider, wanted), known: false };
}

/** The USD cost of one call's usage at the model's prices. */
export function costUsd(model: ModelInfo, usage: TokenUsage): number {
  const p = model.prices;
  const micro =
    usage.input * p.input +
    usage.output * p.output +
    usage.cache_read * p.cache_read +
    usage.cache_write * p.cache_write;
  return micro / 1_000_000;
}
