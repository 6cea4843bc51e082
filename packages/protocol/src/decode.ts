// Boundary validation: one line (or parsed value) in, a DecodeResult out (design D12).
// Dispatches on `type` to the frame's generated check (TypeBox's compiled code, emitted at
// build time into src/generated/validators.ts), so a small frame costs one JSON.parse, one
// Map lookup and one straight-line check, and importing this module loads no TypeBox.
import { exceedsJsonDepth, MAX_JSON_DEPTH, mayExceedJsonDepth } from './bounds.js';
import { formatFrameError, type FrameValidator } from './errors.js';
import type { FrameFromExtension } from './frames-extension.js';
import type { FrameFromHost } from './frames-host.js';
import { VALIDATORS_FROM_EXTENSION, VALIDATORS_FROM_HOST } from './generated/validators.js';

export type DecodeFailureKind = 'invalid_json' | 'not_object' | 'unknown_type' | 'invalid_frame';

/**
 * Why a line was rejected. `type` is set when the frame had a string `type`; `id` when it
 * had a string `id`, so a host can fail the pending request at once instead of timing out.
 */
export interface DecodeFailure {
  ok: false;
  kind: DecodeFailureKind;
  type?: string;
  id?: string;
  error: string;
}

export type DecodeResult<F = FrameFromExtension | FrameFromHost> =
  | { ok: true; frame: F }
  | DecodeFailure;

/** Wire types an extension may send, in spec order. */
export const FRAME_TYPES_FROM_EXTENSION = [...VALIDATORS_FROM_EXTENSION.keys()] as Array<
  FrameFromExtension['type']
>;
/** Wire types the host may send, in spec order. */
export const FRAME_TYPES_FROM_HOST = [...VALIDATORS_FROM_HOST.keys()] as Array<
  FrameFromHost['type']
>;

function failure(
  kind: DecodeFailureKind,
  error: string,
  type?: string,
  id?: unknown,
): DecodeFailure {
  const result: DecodeFailure = { ok: false, kind, error };
  if (type !== undefined) result.type = type;
  if (typeof id === 'string') result.id = id;
  return result;
}

function idOf(id: unknown): { id?: string } {
  return typeof id === 'string' ? { id } : {};
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

function check<F>(
  value: unknown,
  validators: ReadonlyMap<string, FrameValidator>,
  sender: string,
): DecodeResult<F> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return failure('not_object', `frame must be a JSON object, got ${kindOf(value)}`);
  }
  const record = value as Record<string, unknown>;
  const type = record['type'];
  if (typeof type !== 'string') {
    const problem = type === undefined ? 'is required' : 'must be a string';
    return failure('invalid_frame', `frame: /type ${problem}`, undefined, record['id']);
  }
  const validator = validators.get(type);
  if (validator === undefined) {
    const error = `unknown frame type ${JSON.stringify(type)} from ${sender}`;
    return failure('unknown_type', error, type, record['id']);
  }
  if (validator.check(value)) return { ok: true, frame: value as F };
  const error = formatFrameError(type, validator.shape, value);
  return failure('invalid_frame', error, type, record['id']);
}

/**
 * JSON.parse plus the depth bound, so that no recursive code (validators, JSON.stringify,
 * schema checks) ever sees a value nested past MAX_JSON_DEPTH. A too-deep frame still names
 * its `type` and `id`, so a pending request fails at once instead of timing out.
 */
function parse(line: string): { ok: true; value: unknown } | DecodeFailure {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (err) {
    return failure('invalid_json', `invalid JSON: ${(err as Error).message}`);
  }
  if (mayExceedJsonDepth(line) && exceedsJsonDepth(value)) {
    const record = (typeof value === 'object' && value !== null ? value : {}) as Record<
      string,
      unknown
    >;
    const type = typeof record['type'] === 'string' ? (record['type'] as string) : undefined;
    return { ...tooDeep(), ...(type !== undefined ? { type } : {}), ...idOf(record['id']) };
  }
  return { ok: true, value };
}

/**
 * Validates an already-parsed extension → host frame.
 * Contract: never throws; unknown fields are kept on the returned frame (not stripped).
 */
export function checkFrameFromExtension(value: unknown): DecodeResult<FrameFromExtension> {
  if (exceedsJsonDepth(value)) return tooDeep();
  return check(value, VALIDATORS_FROM_EXTENSION, 'extension');
}

/** Validates an already-parsed host → extension frame. Contract: never throws. */
export function checkFrameFromHost(value: unknown): DecodeResult<FrameFromHost> {
  if (exceedsJsonDepth(value)) return tooDeep();
  return check(value, VALIDATORS_FROM_HOST, 'host');
}

function tooDeep(): DecodeFailure {
  return failure('invalid_frame', `frame nests deeper than ${MAX_JSON_DEPTH} levels`);
}

/**
 * Decodes one line an extension wrote. Contract: never throws; unknown fields are kept;
 * unknown types give `unknown_type`; missing optional fields are fine.
 */
export function decodeFromExtension(line: string): DecodeResult<FrameFromExtension> {
  const parsed = parse(line);
  return parsed.ok ? check(parsed.value, VALIDATORS_FROM_EXTENSION, 'extension') : parsed;
}

/** Decodes one line the host wrote (the SDK side). Contract: as decodeFromExtension. */
export function decodeFromHost(line: string): DecodeResult<FrameFromHost> {
  const parsed = parse(line);
  return parsed.ok ? check(parsed.value, VALIDATORS_FROM_HOST, 'host') : parsed;
}

/**
 * One frame as a wire line: JSON plus LF. JSON.stringify escapes control characters, so
 * the only LF is the terminator. Contract: throws only for values JSON cannot encode.
 */
export function encodeFrame<F extends { readonly type: string }>(frame: F): string {
  return JSON.stringify(frame) + '\n';
}

/**
 * One frame as one message of a message-based transport (WebSocket): the wire line without its
 * LF. Contract: as encodeFrame.
 */
export function encodeFrameMessage<F extends { readonly type: string }>(frame: F): string {
  return JSON.stringify(frame);
}
