// `zot --list-models`: a provider's models. For a server of the user's own (a local one such as
// ollama or vLLM, or an OpenAI-style provider moved with a base URL) that is what the server
// serves (GET /v1/models); otherwise the catalog's, with models.json's additions.
import type { ZotPaths } from '../config/paths.js';
import { defaultBaseUrl, listModels, providerDefaults, resolveModel } from '../providers/index.js';
import type { ModelInfo } from '../providers/types.js';
import type { CliOptions } from './args.js';
import { createProviderAccess } from './provider-access.js';
import { chooseProviderModel, type Warn } from './setup.js';

function row(model: ModelInfo, note?: string): string {
  return (
    `${model.id}\tcontext ${model.contextWindow}\tmax output ${model.maxTokens}` +
    `${model.reasoning ? '\treasoning' : ''}\t$${model.prices.input}/$${model.prices.output} per Mtok` +
    (note ? `\t${note}` : '')
  );
}

/**
 * The lines to print, and an error when the provider's server could not be asked (the lines
 * are then the models zot knows of it).
 * Contract: throws UsageError for a bad base URL variable and Error for an unusable models.json.
 */
export async function listModelRows(
  options: CliOptions,
  paths: ZotPaths,
  warn: Warn,
): Promise<{ rows: string[]; error?: string }> {
  const { provider, configured } = chooseProviderModel(options, paths, warn);
  const access = createProviderAccess({ options, paths, start: provider, configured });
  const url = access.providerUrl(provider);
  const defaults = providerDefaults(provider);
  const known = listModels(provider, configured.models);
  const ownServer = defaults.local || url.replace(/\/+$/, '') !== defaultBaseUrl(provider);
  if (defaults.api === 'anthropic-messages' || !ownServer) {
    return { rows: known.map((model) => row(model)) };
  }
  const listed = await access.serverModels(provider);
  if (!listed.ok) {
    const error = `could not ask ${provider}'s server for its models (${listed.error}); listed instead: the models zot knows of it`;
    return { rows: known.map((model) => row(model)), error };
  }
  const served = listed.ids.map((id) => {
    const { model, known } = resolveModel(provider, id, configured.models);
    return row(model, known ? undefined : 'default limits');
  });
  const unlisted = configured.models
    .filter((m) => m.provider === provider && !listed.ids.includes(m.id))
    .map((model) => row(model, 'in models.json, not listed by the server'));
  return { rows: [...served, ...unlisted] };
}
