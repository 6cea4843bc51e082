// What kind of failure an error is, for front ends to branch on instead of matching its text:
// the `kind` of `error` events and the `error_kind` of `turn_end`, `done` and failed RPC
// responses. A closed set; the message beside it stays the words for people. No TypeBox here:
// the runtime sets kinds where errors originate.

/** Every kind, with what it means (the schema and docs/rpc.md say the same). */
export const ERROR_KIND_MEANINGS = {
  auth: 'No API key, or the provider refused it (HTTP 401 or 403): provide or store a key',
  rate_limit:
    'The provider asked to slow down or the quota is used up (HTTP 429): wait, then retry',
  network:
    'The provider could not be reached, the connection dropped or went silent, or the stream ended before the answer did',
  context_overflow:
    "The conversation no longer fits the model's context window: compact or clear it, or pick a model with a larger one",
  provider:
    'Any other failure the provider reported (an HTTP status, a malformed or oversized answer)',
  refusal: "The provider's content filter stopped the answer",
  blocked: 'An extension blocked the turn or the compaction summary',
  max_steps: 'The prompt stopped after --max-steps model calls without finishing',
  command: 'A slash command failed (unknown, bad arguments, or its extension answered an error)',
  invalid_request:
    'An RPC request line was not a valid request (not JSON, too long, not UTF-8, an unknown type, a field of the wrong type)',
  unauthorized: 'The RPC hello was missing or its token was wrong (ZOTCORE_RPC_TOKEN)',
  busy: 'The request needs an idle agent: wait for `done` or send `abort`',
  not_found:
    'What the request names does not exist: a pending confirmation, an open panel, a model, a session file',
  failed: 'The request was understood but could not be carried out; the message says why',
  internal: 'A defect in zot or a part of it that broke its contract; the message says where',
} as const;

export type ErrorKind = keyof typeof ERROR_KIND_MEANINGS;
export const ERROR_KINDS = Object.keys(ERROR_KIND_MEANINGS) as ErrorKind[];

/** An Error whose kind is known where it is thrown (a request that fails, for instance). */
export class ErrorWithKind extends Error {
  override readonly name = 'ErrorWithKind';
  constructor(
    readonly kind: ErrorKind,
    message: string,
  ) {
    super(message);
  }
}

/** The kind of anything thrown: its own when it has one, otherwise `fallback`. */
export function errorKindOf(error: unknown, fallback: ErrorKind): ErrorKind {
  return error instanceof ErrorWithKind ? error.kind : fallback;
}
