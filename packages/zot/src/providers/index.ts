// The providers' public surface: one StreamFn per model, and the catalog.
import { streamAnthropic } from './anthropic.js';
import { streamOpenAIChat } from './openai-chat.js';
import { streamOpenAIResponses } from './openai-responses.js';
import { withRetry } from './retry.js';
import type { ModelInfo, ProviderApi, StreamFn } from './types.js';

const BY_API: Record<ProviderApi, StreamFn> = {
  'anthropic-messages': streamAnthropic,
  'openai-chat': streamOpenAIChat,
  'openai-responses': streamOpenAIResponses,
};

/**
 * The stream function for a model's wire API, with silent retries of transient failures.
 * Contract: the StreamFn contract (never throws; ends with one done or error).
 */
export function streamFor(model: ModelInfo): StreamFn {
  return withRetry(BY_API[model.api]);
}

export { streamAnthropic, streamOpenAIChat, streamOpenAIResponses, withRetry };
export { isTransient } from './retry.js';
export {
  PROVIDER_NAMES,
  UNKNOWN_MODEL_LIMITS,
  builtinModel,
  costUsd,
  defaultBaseUrl,
  isProviderName,
  listModels,
  providerDefaults,
  providerNeedsKey,
  resolveModel,
  type ProviderDefaults,
} from './catalog.js';
export { parseModelsJson } from './models-json.js';
export { parseToolArgs } from './assemble.js';
