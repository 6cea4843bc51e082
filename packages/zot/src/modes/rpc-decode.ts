// Validates one RPC input line against the request schemas, through the checks generated
// from them at build time (generated/rpc-validators.ts), so RPC mode loads no TypeBox.
import { formatFrameError } from '@zot/protocol';
import { RPC_VALIDATORS } from './generated/rpc-validators.js';
import type { RpcRequest } from './rpc-schema.js';

const KNOWN = [...RPC_VALIDATORS.keys()].join(', ');

export type RpcDecoded =
  | { ok: true; request: RpcRequest }
  | { ok: false; id?: string | number; command: string; error: string };

/** Contract: never throws; a bad line yields an error naming the problem and the field. */
export function decodeRpcLine(line: string): RpcDecoded {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    return { ok: false, command: 'unknown', error: `invalid JSON: ${(error as Error).message}` };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { ok: false, command: 'unknown', error: 'each line must be a JSON object' };
  }
  const record = value as Record<string, unknown>;
  const id = typeof record.id === 'string' || typeof record.id === 'number' ? record.id : undefined;
  const withId = id !== undefined ? { id } : {};
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
