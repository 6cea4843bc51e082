// The client's failures, each a named Error: `name` says which, the message says what failed
// and what to do. Requests reject with them; what zot writes wrong is reported, never thrown.
import type { RpcFailureResponse } from './types.js';

/** Every error of this package. */
export class RpcClientError extends Error {
  override readonly name: string = 'RpcClientError';
}

/** The connection ended (`close()`, or zot exited) before the answer came. */
export class RpcClosedError extends RpcClientError {
  override readonly name = 'RpcClosedError';
}

/** No response within the request's `timeoutMs`. */
export class RpcTimeoutError extends RpcClientError {
  override readonly name = 'RpcTimeoutError';
}

/** The request's `signal` aborted while it waited (zot may still act on it). */
export class RpcAbortedError extends RpcClientError {
  override readonly name = 'RpcAbortedError';
}

/** zot refused the request behind a prompt or command stream; `response` says why. */
export class RpcRequestError extends RpcClientError {
  override readonly name = 'RpcRequestError';
  constructor(readonly response: RpcFailureResponse) {
    super(`${response.command} failed (${response.error_kind}): ${response.error}`);
  }
}

/** A line from zot that is not a message: not JSON, too long, not UTF-8, no `type`. */
export class RpcProtocolError extends RpcClientError {
  override readonly name = 'RpcProtocolError';
  constructor(
    message: string,
    /** The start of the line, when there was one to show. */
    readonly line?: string,
  ) {
    super(message);
  }
}

/** The `onConfirm` handler threw or rejected; the call was denied. */
export class RpcHandlerError extends RpcClientError {
  override readonly name = 'RpcHandlerError';
  constructor(
    message: string,
    override readonly cause: unknown,
  ) {
    super(message);
  }
}
