// Boundary validation: one line (or parsed value) in, a DecodeResult out (DECISIONS 12).
// Dispatches on `type` to a per-type compiled checker, so a small frame costs one
// JSON.parse, one Map lookup and one straight-line check.
import type { TSchema } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import { formatValueError } from './errors.js';
import { FRAME_SCHEMAS_FROM_EXTENSION, type FrameFromExtension } from './frames-extension.js';
import { FRAME_SCHEMAS_FROM_HOST, type FrameFromHost } from './frames-host.js';

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

interface Entry {
  schema: TSchema;
  check: TypeCheck<TSchema> | undefined;
}

// Checkers compile on first use: host start-up pays only for the frame types it sees.
function table(schemas: Record<string, TSchema>): Map<string, Entry> {
  return new Map(
    Object.entries(schemas).map(([type, schema]) => [type, { schema, check: undefined }]),
  );
}

const fromExtension = table(FRAME_SCHEMAS_FROM_EXTENSION);
const fromHost = table(FRAME_SCHEMAS_FROM_HOST);

/** Wire types an extension may send, in spec order. */
export const FRAME_TYPES_FROM_EXTENSION = Object.keys(FRAME_SCHEMAS_FROM_EXTENSION) as Array<
  FrameFromExtension['type']
>;
/** Wire types the host may send, in spec order. */
export const FRAME_TYPES_FROM_HOST = Object.keys(FRAME_SCHEMAS_FROM_HOST) as Array<
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

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

function check<F>(value: unknown, entries: Map<string, Entry>, sender: string): DecodeResult<F> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return failure('not_object', `frame must be a JSON object, got ${kindOf(value)}`);
  }
  const record = value as Record<string, unknown>;
  const type = record['type'];
  if (typeof type !== 'string') {
    const problem = type === undefined ? 'is required' : 'must be a string';
    return failure('invalid_frame', `frame: /type ${problem}`, undefined, record['id']);
  }
  const entry = entries.get(type);
  if (entry === undefined) {
    const error = `unknown frame type ${JSON.stringify(type)} from ${sender}`;
    return failure('unknown_type', error, type, record['id']);
  }
  const checker = (entry.check ??= TypeCompiler.Compile(entry.schema));
  if (checker.Check(value)) return { ok: true, frame: value as F };
  const error = formatValueError(type, checker.Errors(value).First());
  return failure('invalid_frame', error, type, record['id']);
}

function parse(line: string): { ok: true; value: unknown } | DecodeFailure {
  try {
    return { ok: true, value: JSON.parse(line) };
  } catch (err) {
    return failure('invalid_json', `invalid JSON: ${(err as Error).message}`);
  }
}

/**
 * Validates an already-parsed extension → host frame.
 * Contract: never throws; unknown fields are kept on the returned frame (not stripped).
 */
export function checkFrameFromExtension(value: unknown): DecodeResult<FrameFromExtension> {
  return check(value, fromExtension, 'extension');
}

/** Validates an already-parsed host → extension frame. Contract: never throws. */
export function checkFrameFromHost(value: unknown): DecodeResult<FrameFromHost> {
  return check(value, fromHost, 'host');
}

/**
 * Decodes one line an extension wrote. Contract: never throws; unknown fields are kept;
 * unknown types give `unknown_type`; missing optional fields are fine.
 */
export function decodeFromExtension(line: string): DecodeResult<FrameFromExtension> {
  const parsed = parse(line);
  return parsed.ok ? check(parsed.value, fromExtension, 'extension') : parsed;
}

/** Decodes one line the host wrote (the SDK side). Contract: as decodeFromExtension. */
export function decodeFromHost(line: string): DecodeResult<FrameFromHost> {
  const parsed = parse(line);
  return parsed.ok ? check(parsed.value, fromHost, 'host') : parsed;
}

/**
 * One frame as a wire line: JSON plus LF. JSON.stringify escapes control characters, so
 * the only LF is the terminator. Contract: throws only for values JSON cannot encode.
 */
export function encodeFrame<F extends { readonly type: string }>(frame: F): string {
  return JSON.stringify(frame) + '\n';
}
