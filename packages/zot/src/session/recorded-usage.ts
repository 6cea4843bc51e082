// What a session file says about tokens and cost: totals over every model call and the last
// call (for the context meter), rebuilt when a session is resumed.
import type { TokenUsage } from '../providers/types.js';
import type { Usage } from '../contract/usage.js';

export interface RecordedUsage {
  totals: Usage;
  /** `provider/model` the session last used, when the file says. */
  model?: string;
  /** The last model call; absent when none was recorded. */
  last?: TokenUsage;
}

type UsageLine = Usage;

export class UsageTally {
  private readonly totals: Usage = {
    input: 0,
    output: 0,
    cache_read: 0,
    cache_write: 0,
    cost_usd: 0,
  };
  private last: TokenUsage | undefined;
  /** The session's name, when the user gave it one. */
  name: string | undefined;
  /** `provider/model` of the last call, else of the file's header. */
  model: string | undefined;

  add(line: UsageLine & { provider: string; model: string }): void {
    this.model = `${line.provider}/${line.model}`;
    this.totals.input += line.input;
    this.totals.output += line.output;
    this.totals.cache_read += line.cache_read;
    this.totals.cache_write += line.cache_write;
    this.totals.cost_usd += line.cost_usd;
    const { input, output, cache_read, cache_write } = line;
    this.last = { input, output, cache_read, cache_write };
  }

  result(): RecordedUsage {
    return {
      totals: { ...this.totals },
      ...(this.model !== undefined ? { model: this.model } : {}),
      ...(this.last ? { last: { ...this.last } } : {}),
    };
  }
}
