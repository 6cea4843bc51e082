// The RPC schema as documents: schema/rpc.schema.json and the types of @zot/rpc-client, both
// written by scripts/gen-schema.mjs from the definitions in rpc-schema.ts, each shared
// definition once (a $ref in the document, a named type in the client).
import { Type, type TSchema } from '@sinclair/typebox';
import { shapeKey } from '@zot/protocol/schema-shape';
import { errorKindSchema, EVENT_SCHEMAS } from '../contract/events.js';
import { StateSchema } from '../contract/state.js';
import { ExtensionReportSchema } from '../contract/summaries.js';
import { ToolDetailsSchema } from '../contract/tool-details.js';
import { UsageSchema } from '../contract/usage.js';
import {
  ConfirmDecisionSchema,
  PublicMessageSchema,
  RPC_REQUESTS,
  RPC_RESPONSES,
  RPC_SUCCESS_RESPONSES,
  RpcFailureSchema,
  type RpcRequestType,
} from './rpc-schema.js';

/** Named definitions for the documents and the client's types, each once. */
const SHARED_DEFINITIONS: Record<string, TSchema> = {
  ErrorKind: errorKindSchema('What kind of failure it is, for a program to branch on'),
  ConfirmDecision: ConfirmDecisionSchema,
  RequestId: Type.Union([Type.String(), Type.Number()], { description: 'A request id' }),
  Usage: UsageSchema,
  ToolDetails: ToolDetailsSchema,
  RuntimeState: StateSchema,
  PublicMessage: PublicMessageSchema,
  ExtensionReport: ExtensionReportSchema,
};
const SHARED_DOCS: Record<string, string> = {
  RequestId: 'The id of a request: echoed on its response, and on the `done` it ends with',
  Usage: 'Tokens and their cost in US dollars',
  RuntimeState: 'The runtime snapshot: get_state, and the fields of the `state` event',
  PublicMessage: 'A transcript message as get_messages reports it (images by size)',
};

/**
 * `node` with every copy of a shared definition below it replaced by a $ref to that
 * definition (keeping the copy's own description), so the document holds each one once.
 */
function referencing(node: unknown, shared: Map<string, string>, root = true): unknown {
  if (node === null || typeof node !== 'object') return node;
  if (Array.isArray(node)) return node.map((item) => referencing(item, shared, false));
  const name = root ? undefined : shared.get(shapeKey(node));
  if (name !== undefined) {
    const description = (node as { description?: unknown }).description;
    return { $ref: `#/$defs/${name}`, ...(description !== undefined ? { description } : {}) };
  }
  return Object.fromEntries(
    Object.entries(node).map(([key, value]) => [key, referencing(value, shared, false)]),
  );
}

/** The document scripts/gen-schema.mjs writes to schema/rpc.schema.json. */
export function rpcSchemaDocument(): Record<string, unknown> {
  const shared = new Map(
    Object.entries(SHARED_DEFINITIONS).map(([name, schema]) => [shapeKey(schema), name]),
  );
  const defs: Record<string, unknown> = {
    request: {
      description: 'Any request',
      anyOf: Object.keys(RPC_REQUESTS).map((type) => ({ $ref: `#/$defs/${type}_request` })),
    },
    response: {
      description: 'Any response: the success of the request type named by `command`, or a failure',
      anyOf: [
        ...Object.keys(RPC_REQUESTS).map((type) => ({ $ref: `#/$defs/${type}_response` })),
        { $ref: '#/$defs/error_response' },
      ],
    },
    event: Type.Union([...EVENT_SCHEMAS]),
    state: { $ref: '#/$defs/RuntimeState' },
    ...Object.fromEntries(
      (Object.keys(RPC_REQUESTS) as RpcRequestType[]).flatMap((type) => [
        [`${type}_request`, RPC_REQUESTS[type]],
        [`${type}_response`, RPC_SUCCESS_RESPONSES[type]],
      ]),
    ),
    error_response: RpcFailureSchema,
    ...SHARED_DEFINITIONS,
  };
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: 'https://zot.dev/schema/rpc.schema.json',
    title: 'zot RPC protocol',
    description:
      'Requests (client to zot), responses and events (zot to client), one JSON object per line. Each request type T has $defs T_request and T_response (its successful response); any request can fail with error_response.',
    $defs: Object.fromEntries(
      Object.entries(defs).map(([key, value]) => [key, referencing(value, shared)]),
    ),
  };
}

/**
 * What @zot/rpc-client's generated types are made of, in order: a definition used inside a
 * later one is written as its name there.
 */
export const RPC_CLIENT_TYPES: Array<{ name: string; schema: TSchema; doc: string }> = [
  ...Object.entries(SHARED_DEFINITIONS).map(([name, schema]) => ({
    name,
    schema,
    doc: SHARED_DOCS[name] ?? (schema as { description?: string }).description ?? name,
  })),
  {
    name: 'RpcEvent',
    schema: Type.Union([...EVENT_SCHEMAS]),
    doc: 'Every event zot writes, by `type`',
  },
  {
    name: 'RpcRequests',
    schema: Type.Object(
      Object.fromEntries(
        (Object.keys(RPC_REQUESTS) as RpcRequestType[]).map((type) => {
          const { type: _type, id: _id, ...params } = RPC_REQUESTS[type].properties;
          const description = RPC_REQUESTS[type].description;
          return [type, Type.Object(params, { description, additionalProperties: false })];
        }),
      ),
    ),
    doc: "Each request type's parameters (besides `type` and `id`)",
  },
  {
    name: 'RpcResponses',
    schema: Type.Object(
      Object.fromEntries(
        (Object.keys(RPC_RESPONSES) as RpcRequestType[]).map((type) => {
          const data = RPC_RESPONSES[type];
          return [type, data === null ? Type.Undefined() : data];
        }),
      ),
    ),
    doc: "Each request type's response `data` (undefined: the response has none)",
  },
  { name: 'RpcFailure', schema: RpcFailureSchema, doc: 'A failed request' },
];
