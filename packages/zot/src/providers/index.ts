// The providers' public surface: one StreamFn per model, and the catalog. The wire-format
// modules load on first use, so start-up evaluates only the one the model needs.
import { withRetry } from './retry.js';
import type { ModelInfo, ProviderApi, ProviderEvent, StreamFn, StreamRequest } from './types.js';

const LOADERS: Record<ProviderApi, () => Promise<StreamFn>> = {
  'anthropic-messages': async () => (await import('./anthropic.js')).streamAnthropic,
  'openai-chat': async () => (await import('./openai-chat.js')).streamOpenAIChat,
  'openai-responses': async () => (await import('./openai-responses.js')).streamOpenAIResponses,
};

/** Contract: the StreamFn contract; a module that fails to load ends the stream with an error. */
function lazyStream(api: ProviderApi): StreamFn {
  return async function* (request: StreamRequest): AsyncGenerator<ProviderEvent> {
    let stream: StreamFn;
    try {
      stream = await LOADERS[api]();
    } catch (error) {
      const message = `${request.model.provider}: could not load the ${api} client: ${(error as Error).message}`;
      yield { type: 'error', message, aborted: false, kind: 'internal' };
      return;
    }
    yield* stream(request);
  };
}

const STREAMS = Object.fromEntries(
  (Object.keys(LOADERS) as ProviderApi[]).map((api) => [api, withRetry(lazyStream(api))]),
) as Record<ProviderApi, StreamFn>;

/**
 * The stream function for a model's wire API, with silent retries of transient failures.
 * Contract: the StreamFn contract (never throws; ends with one done or error).
 */
export function streamFor(model: ModelInfo): StreamFn {
  return STREAMS[model.api];
}

export { withRetry };
export { isTransient } from './retry.js';
export {
  PROVIDER_NAMES,
  UNKNOWN_MODEL_LIMITS,
  builtinModel,
  costUsd,
  defaultBaseUrl,
  defaultModelId,
  isProviderName,
  listModels,
  providerDefaults,
  resolveModel,
  type ProviderDefaults,
} from './catalog.js';
export { parseModelsJson, type ModelsJson, type RejectedEntry } from './models-json.js';
