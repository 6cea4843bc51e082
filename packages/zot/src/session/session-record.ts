// What a session writes down: the session file it appends to, and the usage it sums (the
// totals and the last call's context use, restored when a recorded session is resumed).
import type { Usage } from '../agent/events.js';
import type { SessionEvent } from '../contract/events.js';
import { costUsd } from '../providers/index.js';
import type { ModelInfo, TokenUsage } from '../providers/types.js';
import { errorMessage } from '../util/errors.js';
import { ErrorWithKind } from '../contract/errors.js';
import type { RecordedUsage, SessionFiles } from './session-files.js';
import { zeroUsage } from './session-options.js';
import type { SessionEntry, SessionWriter } from './store.js';

export class SessionRecord {
  private totals = zeroUsage();
  /** The last model call's context use, for the context meter. */
  lastCall: TokenUsage | undefined;

  constructor(
    private writer: SessionWriter | undefined,
    usage: RecordedUsage | undefined,
    private readonly emit: (event: SessionEvent) => void,
    /** The name the user gave the session in use (`/name`, `/sessions`), if any. */
    public name?: string,
  ) {
    if (usage) this.restoreUsage(usage);
  }

  get path(): string | undefined {
    return this.writer?.path;
  }

  /** The writer in use now (a late write, e.g. a branch summary, keeps to its file). */
  get writerNow(): SessionWriter | undefined {
    return this.writer;
  }

  /** True when the session file has been written to. */
  get exists(): boolean {
    return this.writer?.exists === true;
  }

  get usageTotals(): Usage {
    return { ...this.totals };
  }

  /** A name given before the file existed (`/name` before the first prompt): written with it. */
  nameOnFirstWrite: string | undefined;

  /** Appends to the session file; a failure is a `warning`, never the run's end. */
  append(entry: SessionEntry): void {
    try {
      const name = this.nameOnFirstWrite;
      this.nameOnFirstWrite = undefined;
      this.writer?.append(entry);
      if (name !== undefined)
        this.writer?.append({ type: 'name', time: new Date().toISOString(), name });
    } catch (error) {
      this.emit({
        type: 'warning',
        message: `could not write the session file: ${errorMessage(error)}`,
      });
    }
  }

  /** From now on entries go to `writer` (a new or resumed session file, with its name). */
  switchTo(writer: SessionWriter | undefined, name?: string): void {
    this.writer = writer;
    this.name = name;
    this.nameOnFirstWrite = undefined;
  }

  restoreUsage(usage: RecordedUsage): void {
    this.totals = { ...usage.totals };
    this.lastCall = usage.last;
  }

  resetUsage(): void {
    this.totals = zeroUsage();
    this.lastCall = undefined;
  }

  /** Records one model call's usage; returns its cost and the new totals. */
  addCall(model: ModelInfo, usage: TokenUsage): { call: Usage; cumulative: Usage } {
    const call = { ...usage, cost_usd: costUsd(model, usage) };
    this.lastCall = usage;
    this.append({
      type: 'usage',
      time: new Date().toISOString(),
      provider: model.provider,
      model: model.id,
      ...call,
    });
    this.totals.input += call.input;
    this.totals.output += call.output;
    this.totals.cache_read += call.cache_read;
    this.totals.cache_write += call.cache_write;
    this.totals.cost_usd += call.cost_usd;
    return { call, cumulative: { ...this.totals } };
  }
}

/** This run's session files. Contract: throws when sessions are not recorded (--no-session). */
export function recordedFiles(files: SessionFiles | undefined): SessionFiles {
  if (!files)
    throw new ErrorWithKind('failed', 'sessions are not recorded in this run (--no-session)');
  return files;
}
