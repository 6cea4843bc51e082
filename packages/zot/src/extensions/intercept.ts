// Table-driven interception (DECISIONS 14–16): extensions are consulted serially in load order;
// the first block wins and stops the chain; rewrites chain, each seeing the previous output.
import type { EventInterceptResponseFrame, InterceptableEvent } from '@zot/protocol';
import { textDigest } from '../util/digest.js';
import type { RunningExtension } from './extension.js';
import { RequestError, type RequestOf } from './peer.js';

/** What each interceptable event carries through the chain. */
export interface InterceptValues {
  tool_call: { tool_id: string; tool_name: string; tool_args: Record<string, unknown> };
  turn_start: { step: number };
  assistant_message: { text: string };
}

/** One block or rewrite, for the audit trail. */
export interface InterceptRecord {
  extension: string;
  event: InterceptableEvent;
  action: 'block' | 'modify_args' | 'replace_text';
  reason?: string;
  before?: unknown;
  after?: unknown;
}

export interface InterceptResult<E extends InterceptableEvent> {
  value: InterceptValues[E];
  blocked?: { extension: string; reason: string };
  records: InterceptRecord[];
}

interface Rule<E extends InterceptableEvent> {
  /** The part of the value a block record shows as `before`. */
  subject(value: InterceptValues[E]): unknown;
  /** How the log line shows a rewrite's `before` (default: the JSON). */
  logBefore?(before: unknown): string;
  /** Applies one response's rewrite to the value; returns the audit record, if any. */
  rewrite(
    value: InterceptValues[E],
    response: EventInterceptResponseFrame,
    extension: RunningExtension,
  ): { value: InterceptValues[E]; record?: Omit<InterceptRecord, 'extension' | 'event'> };
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

const RULES: { [E in InterceptableEvent]: Rule<E> } = {
  tool_call: {
    subject: (value) => value.tool_args,
    rewrite(value, response, extension) {
      if (response.modified_args === undefined || response.modified_args === null) return { value };
      if (!isObject(response.modified_args)) {
        extension.log.write(`intercept tool_call: modified_args is not a JSON object; ignored`);
        return { value };
      }
      const after = response.modified_args;
      return {
        value: { ...value, tool_args: after },
        record: {
          action: 'modify_args',
          before: value.tool_args,
          after,
          ...(response.reason ? { reason: response.reason } : {}),
        },
      };
    },
  },
  turn_start: {
    subject: (value) => value.step,
    rewrite: (value) => ({ value }),
  },
  assistant_message: {
    subject: (value) => value.text,
    // A redacted original must not reach the log either: the log names it by hash and length.
    logBefore(before) {
      const { sha256, chars } = textDigest(String(before));
      return `sha256=${sha256} chars=${chars}`;
    },
    rewrite(value, response) {
      if (typeof response.replace_text !== 'string') return { value };
      return {
        value: { text: response.replace_text },
        record: {
          action: 'replace_text',
          before: value.text,
          after: response.replace_text,
          ...(response.reason ? { reason: response.reason } : {}),
        },
      };
    },
  },
};

/**
 * Runs the interception chain for `event`.
 * Contract: never rejects; a missed deadline, a crash or a malformed reply counts as "allow"
 * (logged in that extension's log); with `block`, rewrites of that reply are ignored.
 */
export async function runInterceptors<E extends InterceptableEvent>(
  extensions: readonly RunningExtension[],
  event: E,
  initial: InterceptValues[E],
  timeoutMs: number,
): Promise<InterceptResult<E>> {
  const rule = RULES[event] as Rule<E>;
  let value = initial;
  const records: InterceptRecord[] = [];
  for (const extension of extensions) {
    if (!extension.running || !extension.intercepts.has(event)) continue;
    let response: EventInterceptResponseFrame;
    try {
      // The value of event E is the frame body of E (InterceptValues mirrors the schema).
      const frame = { type: 'event_intercept', event, ...value } as RequestOf<'event_intercept'>;
      response = await extension.peer.request(frame, `intercept ${event}`, timeoutMs);
    } catch (error) {
      const why =
        error instanceof RequestError && error.reason === 'timeout'
          ? `no reply within ${timeoutMs} ms`
          : (error as Error).message;
      extension.log.write(`intercept ${event}: ${why}; allowed`);
      continue;
    }
    if (response.block) {
      const reason = response.reason || `blocked by extension ${extension.name}`;
      const record: InterceptRecord = {
        extension: extension.name,
        event,
        action: 'block',
        reason,
        before: rule.subject(value),
      };
      extension.log.write(`intercept ${event}: blocked (${reason})`);
      return {
        value,
        blocked: { extension: extension.name, reason },
        records: [...records, record],
      };
    }
    const applied = rule.rewrite(value, response, extension);
    value = applied.value;
    if (applied.record) {
      const { action, before, after } = applied.record;
      const shown = rule.logBefore ? rule.logBefore(before) : JSON.stringify(before);
      extension.log.write(`intercept ${event}: ${action} ${shown} -> ${JSON.stringify(after)}`);
      records.push({ extension: extension.name, event, ...applied.record });
    }
  }
  return { value, records };
}
