// The session's model and the keys its calls need: which model is current, the API key of its
// provider (looked up on the first call that needs one, kept until /login or /logout), the
// settings of a model call, and switching models (/model).
import type { ModelCallSettings } from '../agent/loop.js';
import { ErrorWithKind } from '../contract/errors.js';
import type { SessionEvent } from '../contract/events.js';
import type { ModelInfo, ProviderName, ReasoningLevel } from '../providers/types.js';
import { errorMessage } from '../util/errors.js';
import type { LoginResult } from './provider-access.js';
import type { SessionOptions } from './session-options.js';

type ModelOptions = Pick<SessionOptions, 'providers' | 'systemPrompt' | 'reasoning'>;

export class ModelAccess {
  /** Keys found so far, per provider (looked up on the first model call that needs one). */
  private readonly keys = new Map<ProviderName, string | undefined>();
  private level: ReasoningLevel | undefined;

  constructor(
    private readonly options: ModelOptions,
    private current: ModelInfo,
    private readonly emit: (event: SessionEvent) => void,
  ) {
    this.level = options.reasoning;
  }

  get model(): ModelInfo {
    return this.current;
  }

  /** The thinking level model calls ask for (`off`: none); a model without reasoning ignores it. */
  get reasoning(): ReasoningLevel | 'off' {
    return this.level ?? 'off';
  }

  /** Changes the thinking level from the next model call on (shift+tab, /settings). */
  setReasoning(level: ReasoningLevel | 'off'): void {
    this.level = level === 'off' ? undefined : level;
  }

  /** As `Session.keyProblem`. Contract: never throws. */
  keyProblem(): string | undefined {
    const provider = this.current.provider;
    if (this.keys.get(provider) !== undefined) return undefined;
    try {
      this.keys.set(provider, this.options.providers.apiKey(this.current));
      return undefined;
    } catch (error) {
      return errorMessage(error);
    }
  }

  /**
   * Before a model call: looks the API key up (returns why there is none when one is needed)
   * and gives the model's one-time note, if any. A key found is kept; no key is looked up again.
   */
  missingKey(): string | undefined {
    const problem = this.keyProblem();
    if (problem !== undefined) return problem;
    const note = this.options.providers.firstCallNote(this.current);
    if (note) this.emit({ type: 'warning', message: note });
    return undefined;
  }

  settings(): ModelCallSettings {
    const { systemPrompt } = this.options;
    const reasoning = this.level;
    const key = this.keys.get(this.current.provider);
    return {
      model: this.current,
      baseUrl: this.options.providers.baseUrl(this.current),
      ...(key !== undefined ? { apiKey: key } : {}),
      system: systemPrompt,
      ...(reasoning !== undefined ? { reasoning } : {}),
    };
  }

  /** Checks and saves an API key (`/login`); the next model call uses it. Never rejects. */
  async login(provider: ProviderName, key: string, signal?: AbortSignal): Promise<LoginResult> {
    const result = await this.options.providers.login(provider, key, signal);
    if (result.ok) this.keys.delete(provider);
    return result;
  }

  /** Removes a saved API key (`/logout`); false when none was saved. */
  logout(provider: ProviderName): boolean {
    const removed = this.options.providers.logout(provider);
    this.keys.delete(provider);
    return removed;
  }

  /** As `Session.setModel`, without the busy check. Contract: throws with a readable message. */
  select(ref: string): ModelInfo {
    const model = this.options.providers.resolve(ref, this.current);
    if (!model) throw new ErrorWithKind('not_found', `unknown model "${ref}"`);
    this.current = model;
    try {
      this.options.providers.remember(model);
    } catch (error) {
      this.emit({
        type: 'warning',
        message: `could not save the model choice: ${errorMessage(error)}`,
      });
    }
    return model;
  }
}
