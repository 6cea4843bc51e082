// Validates one RPC input line against the request schemas.
import type { TSchema } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import { RPC_REQUESTS, type RpcRequest, type RpcRequestType } from './rpc-schema.js';

const checkers = Object.fromEntries(
  Object.entries(RPC_REQUESTS).map(([type, schema]) => [type, TypeCompiler.Compile(schema)]),
) as unknown as Record<RpcRequestType, TypeCheck<TSchema>>;

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
  if (!Object.hasOwn(checkers, type)) {
    const known = Object.keys(checkers).join(', ');
    return {
      ok: false,
      ...withId,
      command: type,
      error: `unknown command "${type}" (known: ${known})`,
    };
  }
  const checker = checkers[type as RpcRequestType];
  if (!checker.Check(value)) {
    const first = checker.Errors(value).First();
    const where = first?.path || '/';
    return {
      ok: false,
      ...withId,
      command: type,
      error: `${type}: ${where} ${first?.message ?? 'is invalid'}`,
    };
  }
  return { ok: true, request: value as RpcRequest };
}
