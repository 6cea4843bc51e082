// @zot/rpc-client: drive `zot rpc` from Node. Its types are generated from zot's RPC schema.
export {
  RpcClient,
  type AttachOptions,
  type ClientEvents,
  type ClientOptions,
  type Exit,
  type RpcStreams,
  type SpawnOptions,
} from './client.js';
export { Operation } from './operation.js';
export {
  RpcAbortedError,
  RpcClientError,
  RpcClosedError,
  RpcHandlerError,
  RpcProtocolError,
  RpcRequestError,
  RpcTimeoutError,
} from './errors.js';
export type {
  ConfirmDecision,
  ConfirmHandler,
  ConfirmRequest,
  ErrorKind,
  ExtensionReport,
  PublicMessage,
  RequestId,
  RequestOptions,
  RequestType,
  RpcEvent,
  RpcEventOf,
  RpcFailureResponse,
  RpcMessage,
  RpcRequests,
  RpcResponse,
  RpcResponses,
  RpcSuccess,
  RuntimeState,
  ToolDetails,
  Usage,
} from './types.js';
