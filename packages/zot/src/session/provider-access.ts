// How the session reaches providers, keys and model choices: given by the composition root
// (cli/provider-access.ts), so that the model, the provider and the key can all change within
// one process (/model, /login, /logout) while the session stays free of config files.
import type { ModelInfo, ProviderName } from '../providers/types.js';
import type { LoginResult, ProviderStatus } from '../contract/front-end.js';

export type { LoginResult, ProviderStatus };

export interface ProviderAccess {
  /** Every model zot knows, of every provider (the catalog and models.json). */
  models(): ModelInfo[];
  /**
   * A model by `id` (of `current`'s provider) or `provider/id`; an id the catalog does not know
   * gets default limits. Contract: undefined when the reference is empty; throws an Error with
   * a readable message when the provider's base URL setting is invalid, or when models.json
   * has an entry for this model that it had to skip (no request is sent for it anywhere).
   */
  resolve(ref: string, current: ModelInfo): ModelInfo | undefined;
  /** The base URL calls to `model` go to. */
  baseUrl(model: ModelInfo): string;
  /**
   * The key for calls to `model`, looked up now (flag, environment, auth.json); a server on
   * this machine needs none. Contract: throws an Error saying how to provide one when it is
   * needed and missing.
   */
  apiKey(model: ModelInfo): string | undefined;
  providers(): ProviderStatus[];
  /** Checks `key` with one cheap request, then saves it. Contract: never rejects. */
  login(provider: ProviderName, key: string, signal?: AbortSignal): Promise<LoginResult>;
  /** Removes the saved key; false when none was saved. */
  logout(provider: ProviderName): boolean;
  /** Saves the model choice for the next run. Contract: throws an Error naming the file. */
  remember(model: ModelInfo): void;
  /**
   * What to tell the user before the first call to `model` (e.g. that zot knows no limits for
   * it), once per model: undefined when there is nothing, or it was said before, in this run or
   * an earlier one. Contract: never throws.
   */
  firstCallNote(model: ModelInfo): string | undefined;
}
