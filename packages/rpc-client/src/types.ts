// The wire types, derived from the generated ones (generated/rpc-types.ts comes from zot's RPC
// schema, the same definitions zot validates with and schema/rpc.schema.json is made of).
import type {
  ConfirmDecision,
  RequestId,
  RpcEvent,
  RpcFailure,
  RpcRequests,
  RpcResponses,
} from './generated/rpc-types.js';

export type {
  ConfirmDecision,
  ErrorKind,
  ExtensionReport,
  PublicMessage,
  RequestId,
  RpcEvent,
  RpcFailure,
  RpcRequests,
  RpcResponses,
  RuntimeState,
  ToolDetails,
  Usage,
} from './generated/rpc-types.js';

/** Every request type, e.g. `prompt`, `get_state`. */
export type RequestType = Extract<keyof RpcRequests, string>;

/** A successful response to a `K` request; `data` as its schema says (absent when it has none). */
export type RpcSuccess<K extends RequestType = RequestType> = {
  type: 'response';
  id?: RequestId;
  command: K;
  success: true;
  error?: undefined;
  error_kind?: undefined;
} & (undefined extends RpcResponses[K] ? { data?: RpcResponses[K] } : { data: RpcResponses[K] });

/** A failed request: `error` for people, `error_kind` for programs. */
export type RpcFailureResponse = RpcFailure & { data?: undefined };

/** The response to a `K` request: a value either way (a failure is no exception). */
export type RpcResponse<K extends RequestType = RequestType> = RpcSuccess<K> | RpcFailureResponse;

/** Any line zot writes. */
export type RpcMessage = RpcEvent | RpcResponse;

/** The event of one `type`, e.g. `RpcEventOf<'text_delta'>`. */
export type RpcEventOf<T extends RpcEvent['type']> = Extract<RpcEvent, { type: T }>;

/** A tool call waiting for an answer (an ask rule, or `zot rpc --no-yolo`). */
export type ConfirmRequest = RpcEventOf<'confirm_request'>;

/** Answers a confirmation; a throw or rejection counts as `deny`. */
export type ConfirmHandler = (
  request: ConfirmRequest,
) => ConfirmDecision | Promise<ConfirmDecision>;

/** An extension asks the user (confirm, select, input) and waits for `uiResponse()`. */
export type UiRequest = RpcEventOf<'ui_request'>;

/** The answer to a ui_request: a value of its kind (boolean, an option, text), or dismissed. */
export type UiAnswer = { value: boolean | string } | { cancelled: true };

/** Answers a ui_request; a throw or rejection counts as `cancelled`. */
export type UiRequestHandler = (request: UiRequest) => UiAnswer | Promise<UiAnswer>;

export interface RequestOptions {
  /** Rejects with RpcTimeoutError when no response came within this many milliseconds. */
  timeoutMs?: number;
  /** Rejects with RpcAbortedError when aborted first (zot may still act on the request). */
  signal?: AbortSignal;
}
