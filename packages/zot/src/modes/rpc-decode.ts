// Validates one RPC input line against the request schemas, through the checks generated
// from them at build time (generated/rpc-validators.ts), so RPC mode loads no TypeBox.
// The subpath, not the package index: that would load the frame decoder and its validators.
import { formatFrameError } from '@zot/protocol/errors';
import { parseBoundedJson } from '@zot/protocol/bounds';
import { RPC_VALIDATORS } from './generated/rpc-validators.js';
import type { RpcRequest } from './rpc-schema.js';

const KNOWN = [...RPC_VALIDATORS.keys()].join(', ');

export type RpcDecoded =
  | { ok: true; request: RpcRequest }
  | { ok: false; id?: string | number; command: string; error: string };

/** Contract: never throws; a bad line yields an error naming the problem and the field. */
export function decodeRpcLine(line: string): RpcDecoded {
  // Bounded: the validators and formatFrameError recurse, so a request nested thousands of
  // levels deep must be refused before they see it.
  const parsed = parseBoundedJson(line);
  if (!parsed.ok) return { ok: false, ...headerOf(line), error: parsed.error };
  const value = parsed.value;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { ok: false, command: 'unknown', error: 'each line must be a JSON object' };
  }
  const record = value as Record<string, unknown>;
  const withId = idOf(record);
  const type = record.type;
  if (typeof type !== 'string')
    return { ok: false, ...withId, command: 'unknown', error: 'missing "type"' };
  const validator = RPC_VALIDATORS.get(type);
  if (validator === undefined) {
    return {
      ok: false,
      ...withId,
      command: type,
      error: `unknown command "${type}" (known: ${KNOWN})`,
    };
  }
  if (!validator.check(value)) {
    return {
      ok: false,
      ...withId,
      command: type,
      error: formatFrameError(type, validator.shape, value),
    };
  }
  return { ok: true, request: value as RpcRequest };
}

function idOf(record: Record<string, unknown>): { id?: string | number } {
  const id = record.id;
  return typeof id === 'string' || typeof id === 'number' ? { id } : {};
}

/**
 * The id and command of a refused line when it is a JSON object (a request refused for its
 * depth or its bytes), so the client's pending request gets its error instead of waiting
 * forever. Reads the top level only, which recurses nowhere; runs on the failure path alone.
 */
export function headerOf(line: string): { id?: string | number; command: string } {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { command: 'unknown' };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { command: 'unknown' };
  }
  const record = value as Record<string, unknown>;
  return { ...idOf(record), command: typeof record.type === 'string' ? record.type : 'unknown' };
}
