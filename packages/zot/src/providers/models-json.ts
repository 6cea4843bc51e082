// Parses $ZOT_HOME/models.json: user-defined models and overrides of built-in ones.
import { redactUrl } from '../util/redact.js';
import { builtinModel, isProviderName, PROVIDER_NAMES, unknownModel } from './catalog.js';
import type { ModelInfo, ModelPrices, ProviderApi, ProviderName } from './types.js';
import { parseBoundedJson } from '@zot/protocol/bounds';
import { isBaseUrl } from '../util/base-url.js';

const APIS: readonly ProviderApi[] = ['anthropic-messages', 'openai-chat', 'openai-responses'];
const FIELDS = [
  'provider',
  'id',
  'name',
  'reasoning',
  'contextWindow',
  'maxTokens',
  'baseUrl',
  'api',
  'prices',
];
const PRICE_FIELDS: ReadonlyArray<keyof ModelPrices> = [
  'input',
  'output',
  'cache_read',
  'cache_write',
];

type Entry = Record<string, unknown>;

/** An entry that was skipped, with the model it was for when that much could be read. */
export interface RejectedEntry {
  provider?: ProviderName;
  id?: string;
  /** `<file>: entry <n>: <problem>; <problem>` */
  message: string;
}

export interface ModelsJson {
  models: ModelInfo[];
  /** Problems that skip an entry or a field; the rest still loads. */
  errors: string[];
  /** Entries skipped, so that a run asking for their model can refuse instead of guessing. */
  rejected: RejectedEntry[];
  /**
   * Problems that stop every run: an invalid `baseUrl` (where requests and the API key go is not
   * something to guess) and a file that cannot be read as a list of models at all (any model
   * may have been configured in it). The caller refuses to run (see cli/setup.ts).
   */
  fatal: string[];
}

/**
 * Reads models.json text: a JSON array of entries, or `{ "models": [...] }`.
 * An entry whose provider and id name an existing model (built-in or earlier in the file)
 * overrides it field by field; prices merge per price.
 * Contract: never throws; a bad entry is skipped with an error naming the file, the entry
 * index and the field, and the other entries still load. Unknown fields are reported and ignored.
 */
export function parseModelsJson(text: string, sourcePath: string): ModelsJson {
  const errors: string[] = [];
  const fatal: string[] = [];
  const rejected: RejectedEntry[] = [];
  const models: ModelInfo[] = [];
  const parsed = parseBoundedJson(text);
  if (!parsed.ok) return { models, errors, rejected, fatal: [`${sourcePath}: ${parsed.error}`] };
  const json = parsed.value;
  const list = Array.isArray(json) ? json : (json as { models?: unknown } | null)?.models;
  if (!Array.isArray(list)) {
    const message = `${sourcePath}: expected a JSON array of models or an object with a "models" array`;
    return { models, errors, rejected, fatal: [message] };
  }
  list.forEach((entry: unknown, index) => {
    const where = `${sourcePath}: entry ${index}`;
    const problems: string[] = [];
    const badUrls: string[] = [];
    const model = toModel(entry, models, { problems, badUrls }, (m) =>
      errors.push(`${where}: ${m}`),
    );
    fatal.push(...badUrls.map((p) => `${where}: ${p}`));
    if (problems.length > 0 || badUrls.length > 0 || !model) {
      errors.push(...problems.map((p) => `${where}: ${p}`));
      rejected.push({
        ...namedBy(entry),
        message: `${where}: ${[...problems, ...badUrls].join('; ')}`,
      });
      return;
    }
    const at = models.findIndex((m) => m.provider === model.provider && m.id === model.id);
    if (at >= 0) models[at] = model;
    else models.push(model);
  });
  return { models, errors, rejected, fatal };
}

/** The provider and id an entry names, as far as they are valid. */
function namedBy(entry: unknown): { provider?: ProviderName; id?: string } {
  if (entry === null || typeof entry !== 'object') return {};
  const { provider, id } = entry as Entry;
  return {
    ...(isProviderName(provider) ? { provider } : {}),
    ...(typeof id === 'string' && id.trim() !== '' ? { id } : {}),
  };
}

function describe(value: unknown): string {
  const text = JSON.stringify(value);
  return text === undefined ? String(value) : text.length > 40 ? `${text.slice(0, 40)}...` : text;
}

function toModel(
  entry: unknown,
  earlier: ModelInfo[],
  { problems, badUrls }: { problems: string[]; badUrls: string[] },
  warn: (message: string) => void,
): ModelInfo | undefined {
  if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) {
    problems.push(`must be an object, got ${describe(entry)}`);
    return undefined;
  }
  const e = entry as Entry;
  const bad = (field: string, want: string) =>
    problems.push(`field "${field}" must be ${want} (got ${describe(e[field])})`);
  for (const key of Object.keys(e)) {
    if (!FIELDS.includes(key)) warn(`unknown field "${key}" ignored (known: ${FIELDS.join(', ')})`);
  }
  if (!isProviderName(e.provider)) bad('provider', `one of ${PROVIDER_NAMES.join(', ')}`);
  if (typeof e.id !== 'string' || e.id.trim() === '') bad('id', 'a non-empty string');
  if (problems.length > 0 || !isProviderName(e.provider) || typeof e.id !== 'string')
    return undefined;

  const base =
    earlier.find((m) => m.provider === e.provider && m.id === e.id) ??
    builtinModel(e.provider, e.id) ??
    unknownModel(e.provider, e.id);
  const model: ModelInfo = { ...base, prices: { ...base.prices } };
  if (e.name !== undefined) {
    if (typeof e.name === 'string' && e.name) model.name = e.name;
    else bad('name', 'a non-empty string');
  }
  if (e.reasoning !== undefined) {
    if (typeof e.reasoning === 'boolean') model.reasoning = e.reasoning;
    else bad('reasoning', 'true or false');
  }
  for (const field of ['contextWindow', 'maxTokens'] as const) {
    const value = e[field];
    if (value === undefined) continue;
    if (typeof value === 'number' && Number.isInteger(value) && value > 0) model[field] = value;
    else bad(field, 'a positive integer');
  }
  if (e.baseUrl !== undefined) {
    if (typeof e.baseUrl === 'string' && isBaseUrl(e.baseUrl)) model.baseUrl = e.baseUrl.trim();
    else
      badUrls.push(
        `field "baseUrl" must be an http:// or https:// URL, e.g. http://localhost:8000/v1 ` +
          `(got ${describe(typeof e.baseUrl === 'string' ? redactUrl(e.baseUrl) : e.baseUrl)})`,
      );
  }
  if (e.api !== undefined) {
    if (APIS.includes(e.api as ProviderApi)) {
      model.api = e.api as ProviderApi;
      model.apiFixed = true;
    } else bad('api', `one of ${APIS.join(', ')}`);
  }
  if (e.prices !== undefined) {
    const prices = e.prices as Entry | null;
    if (prices === null || typeof prices !== 'object' || Array.isArray(prices)) {
      bad('prices', 'an object with input, output, cache_read, cache_write');
    } else {
      for (const key of Object.keys(prices)) {
        const value = prices[key];
        if (!PRICE_FIELDS.includes(key as keyof ModelPrices)) {
          warn(`unknown field "prices.${key}" ignored (known: ${PRICE_FIELDS.join(', ')})`);
        } else if (typeof value === 'number' && Number.isFinite(value) && value >= 0) {
          model.prices[key as keyof ModelPrices] = value;
        } else {
          problems.push(
            `field "prices.${key}" must be a number >= 0 (USD per million tokens) (got ${describe(value)})`,
          );
        }
      }
    }
  }
  return model;
}
