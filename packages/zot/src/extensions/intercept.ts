// Table-driven interception: extensions are consulted serially in load order;
// the first block wins and stops the chain; rewrites chain, each seeing the previous output.
import {
  jsonLimitProblem,
  MAX_ADD_CONTEXT_CHARS,
  MAX_MODIFIED_PROMPT_CHARS,
  TOOL_ARGS_LIMITS,
  type ContentBlock,
  type EventInterceptResponseFrame,
  type InterceptableEvent,
  type PromptSource,
} from '@zot/protocol';
import type { ToolContent } from '../agent/tool.js';
import { textDigest } from '../util/digest.js';
import type { RunningExtension } from './extension.js';
import { RequestError, type RequestOf } from './peer.js';
import { convertContent } from './tool-adapter.js';
import { describeExit } from './transport.js';

/** Context a turn_start interceptor added for the turn, with the extension it came from. */
export interface AddedContext {
  extension: string;
  text: string;
}

/** What each interceptable event carries through the chain. */
export interface InterceptValues {
  tool_call: { tool_id: string; tool_name: string; tool_args: Record<string, unknown> };
  /** `contexts`: what interceptors added so far (not part of the frame). */
  turn_start: { step: number; contexts?: AddedContext[] };
  /** `transcript`: a rewrite asked to replace the text the model keeps too (not in the frame). */
  assistant_message: { text: string; transcript?: boolean };
  tool_result: {
    tool: string;
    args: Record<string, unknown>;
    tool_call_id: string;
    content: ToolContent[];
    is_error: boolean;
  };
  user_prompt: { text: string; source: PromptSource };
}

/** Size and hash of content blocks, for audit records that must not repeat them. */
export function contentDigest(content: readonly unknown[]): { bytes: number; sha256: string } {
  const json = JSON.stringify(content);
  return { bytes: Buffer.byteLength(json), sha256: textDigest(json).sha256 };
}

/** Response fields of protocol version 2: ignored (and logged) from a version-1 extension. */
const V2_RESPONSE_FIELDS = ['scope', 'replace_content', 'modified_text', 'add_context'] as const;

/**
 * How an interceptor failed; with `"intercept_failure": "block"` each one blocks. `error`: it
 * answered that it could not decide; `unsendable`: zot could not ask it (the frame would pass
 * the protocol's bounds).
 */
export type InterceptFailureKind =
  | 'crash'
  | 'timeout'
  | 'malformed'
  | 'not_running'
  | 'restarting'
  | 'error'
  | 'unsendable';

/** One block or rewrite, for the audit trail. */
export interface InterceptRecord {
  extension: string;
  event: InterceptableEvent;
  action:
    | 'block'
    | 'modify_args'
    | 'replace_text'
    | 'replace_content'
    | 'modify_text'
    | 'add_context';
  /** replace_text with "scope": "transcript": the model's own copy was replaced too. */
  scope?: 'transcript';
  reason?: string;
  /** Set when the block is a fail-closed interceptor's failure, not its answer. */
  failure?: InterceptFailureKind;
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
  /** The frame's fields (default: the value itself). */
  fields?(value: InterceptValues[E]): Record<string, unknown>;
  /** How the log line shows a rewrite's `before` (default: the JSON). */
  logBefore?(before: unknown): string;
  /**
   * Applies one response's rewrite to the value; returns the audit record, if any, or what is
   * malformed about the rewrite (the value is then unchanged).
   */
  rewrite(
    value: InterceptValues[E],
    response: EventInterceptResponseFrame,
    extension: string,
  ): {
    value: InterceptValues[E];
    record?: Omit<InterceptRecord, 'extension' | 'event'>;
    malformed?: string;
  };
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * Why an interceptor's `modified_args` cannot replace the arguments: not an object, or past
 * the bounds for tool arguments (every frame built from it must stay within the protocol's).
 */
export function rewrittenArgsProblem(args: unknown): string | undefined {
  if (!isObject(args)) return 'modified_args is not a JSON object';
  const tooBig = jsonLimitProblem(args, TOOL_ARGS_LIMITS);
  return tooBig === undefined ? undefined : `modified_args is ${tooBig}`;
}

const RULES: { [E in InterceptableEvent]: Rule<E> } = {
  tool_call: {
    subject: (value) => value.tool_args,
    rewrite(value, response) {
      if (response.modified_args === undefined || response.modified_args === null) return { value };
      const malformed = rewrittenArgsProblem(response.modified_args);
      if (malformed !== undefined) return { value, malformed };
      const after = response.modified_args as Record<string, unknown>;
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
    fields: (value) => ({ step: value.step }),
    rewrite(value, response, extension) {
      if (response.add_context === undefined || response.add_context === '') return { value };
      if (response.add_context.length > MAX_ADD_CONTEXT_CHARS)
        return {
          value,
          malformed: `add_context is longer than ${MAX_ADD_CONTEXT_CHARS} characters`,
        };
      const added = { extension, text: response.add_context };
      return {
        value: { ...value, contexts: [...(value.contexts ?? []), added] },
        record: { action: 'add_context', before: value.step, after: response.add_context },
      };
    },
  },
  assistant_message: {
    subject: (value) => value.text,
    fields: (value) => ({ text: value.text }),
    // A redacted original must not reach the log either: the log names it by hash and length.
    logBefore: digestLine,
    rewrite(value, response) {
      if (typeof response.replace_text !== 'string') return { value };
      const transcript = response.scope === 'transcript' || value.transcript === true;
      return {
        value: { text: response.replace_text, ...(transcript ? { transcript } : {}) },
        record: {
          action: 'replace_text',
          before: value.text,
          after: response.replace_text,
          ...(response.scope === 'transcript' ? { scope: 'transcript' as const } : {}),
          ...(response.reason ? { reason: response.reason } : {}),
        },
      };
    },
  },
  tool_result: {
    // Results can be large and secret: records carry their size and hash, never the content.
    subject: (value) => contentDigest(value.content),
    rewrite(value, response) {
      if (response.replace_content === undefined) return { value };
      const content = convertContent(response.replace_content as ContentBlock[]);
      if (typeof content === 'string')
        return { value, malformed: `replace_content holds ${content}` };
      return {
        value: { ...value, content },
        record: {
          action: 'replace_content',
          before: contentDigest(value.content),
          after: contentDigest(content),
          ...(response.reason ? { reason: response.reason } : {}),
        },
      };
    },
  },
  user_prompt: {
    subject: (value) => value.text,
    logBefore: digestLine,
    rewrite(value, response) {
      if (typeof response.modified_text !== 'string') return { value };
      if (response.modified_text.length > MAX_MODIFIED_PROMPT_CHARS)
        return {
          value,
          malformed: `modified_text is longer than ${MAX_MODIFIED_PROMPT_CHARS} characters`,
        };
      return {
        value: { ...value, text: response.modified_text },
        record: {
          action: 'modify_text',
          before: value.text,
          after: response.modified_text,
          ...(response.reason ? { reason: response.reason } : {}),
        },
      };
    },
  },
};

function digestLine(before: unknown): string {
  const { sha256, chars } = textDigest(String(before));
  return `sha256=${sha256} chars=${chars}`;
}

/** A version-1 extension's answer without the fields of version 2 (each one dropped is logged). */
function withinVersion(
  extension: RunningExtension,
  event: string,
  response: EventInterceptResponseFrame,
): EventInterceptResponseFrame {
  if (extension.protocolVersion >= 2) return response;
  const dropped = V2_RESPONSE_FIELDS.filter((field) => response[field] !== undefined);
  if (dropped.length === 0) return response;
  extension.log.write(
    `intercept ${event}: ignored ${dropped.join(', ')}: protocol version 2 fields, and this extension speaks version 1 (send "protocol_version": 2 in hello)`,
  );
  const kept = { ...response };
  for (const field of dropped) delete kept[field];
  return kept;
}

/**
 * Whether `extension` takes part in the chain for `event`: it intercepts it and is running, or
 * it died after loading and its failures block ("intercept_failure": "block").
 */
export function consulted(extension: RunningExtension, event: InterceptableEvent): boolean {
  if (!extension.intercepts.has(event)) return false;
  if (extension.running) return true;
  return extension.policy.interceptFailure === 'block' && extension.state === 'exited';
}

/** What went wrong with one request, as a failure kind and words for the reason and log. */
function requestFailure(
  error: unknown,
  extension: RunningExtension,
  timeoutMs: number,
): { failure: InterceptFailureKind; what: string } {
  if (error instanceof RequestError && error.reason === 'timeout')
    return { failure: 'timeout', what: `did not answer within ${timeoutMs} ms` };
  if (error instanceof RequestError && error.reason === 'invalid')
    return { failure: 'malformed', what: `sent a malformed answer (${error.message})` };
  if (error instanceof RequestError && error.reason === 'unsendable')
    return { failure: 'unsendable', what: `could not be asked (${error.message})` };
  const how = extension.failure ?? (extension.exit ? describeExit(extension.exit) : undefined);
  return { failure: 'crash', what: how ? `died (${how})` : (error as Error).message };
}

/** A fail-closed interceptor that could not answer: the action is blocked, naming it and why. */
function failClosed<E extends InterceptableEvent>(
  extension: RunningExtension,
  event: E,
  value: InterceptValues[E],
  rule: Rule<E>,
  records: InterceptRecord[],
  failure: InterceptFailureKind,
  what: string,
): InterceptResult<E> {
  const reason = `extension ${extension.name} ${what}; blocked because its "intercept_failure" is "block"`;
  extension.log.write(`intercept ${event}: ${what}; blocked ("intercept_failure": "block")`);
  const record: InterceptRecord = {
    extension: extension.name,
    event,
    action: 'block',
    reason,
    failure,
    before: rule.subject(value),
  };
  return { value, blocked: { extension: extension.name, reason }, records: [...records, record] };
}

/**
 * Runs the interception chain for `event`.
 * Contract: never rejects. A missed deadline, a crash, a malformed reply, an answer with `error`
 * (not a decision) or a question zot could not send counts as "allow" (logged in that
 * extension's log) unless the extension's "intercept_failure" is "block": then it, or the
 * extension being down or restarting, blocks. An answer that blocks is a block whatever else it
 * says; with `block`, rewrites of that reply are ignored.
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
  const failClosedHere = (e: RunningExtension, failure: InterceptFailureKind, what: string) =>
    failClosed(e, event, value, rule, records, failure, what);
  for (const extension of extensions) {
    if (!consulted(extension, event)) continue;
    const failsClosed = extension.policy.interceptFailure === 'block';
    if (!extension.running) {
      // Only a fail-closed extension is consulted while down.
      if (extension.restarting) return failClosedHere(extension, 'restarting', 'is restarting');
      return failClosedHere(
        extension,
        'not_running',
        `is not running (${extension.whyNotRunning})`,
      );
    }
    let response: EventInterceptResponseFrame;
    try {
      // The value of event E is the frame body of E (InterceptValues mirrors the schema).
      const fields = rule.fields ? rule.fields(value) : value;
      const frame = { type: 'event_intercept', event, ...fields } as RequestOf<'event_intercept'>;
      response = await extension.peer.request(frame, `intercept ${event}`, timeoutMs);
    } catch (error) {
      const { failure, what } = requestFailure(error, extension, timeoutMs);
      if (failsClosed) return failClosedHere(extension, failure, what);
      extension.log.write(`intercept ${event}: ${what}; allowed`);
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
    // An answer that says it could not decide is a failure, not an allow.
    if (typeof response.error === 'string') {
      const what = `could not decide (${response.error || 'no reason given'})`;
      if (failsClosed) return failClosedHere(extension, 'error', what);
      extension.log.write(`intercept ${event}: ${what}; allowed`);
      continue;
    }
    const applied = rule.rewrite(value, withinVersion(extension, event, response), extension.name);
    if (applied.malformed !== undefined) {
      const what = `sent a malformed answer (${applied.malformed})`;
      if (failsClosed) return failClosedHere(extension, 'malformed', what);
      extension.log.write(`intercept ${event}: ${applied.malformed}; ignored`);
      continue;
    }
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
