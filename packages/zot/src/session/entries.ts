// The schema of a session file line, defined once: the loader checks every line against it and
// the writer's SessionEntry type is derived from it. The message shapes are checked at compile
// time against the conversation model of providers/types.ts.
import type { Message } from '../providers/types.js';
import {
  anyValue,
  array,
  boolean,
  integer,
  literal,
  object,
  optional,
  record,
  string,
  tagged,
  type Infer,
} from '../util/shape.js';

export const SESSION_FORMAT_VERSION = 1;

const text = object({ type: literal('text'), text: string() });
const image = object({
  type: literal('image'),
  mime_type: string({ minLength: 1 }),
  data: string(),
});
const thinking = object({
  type: literal('thinking'),
  thinking: string(),
  signature: optional(string()),
});
const toolCall = object({
  type: literal('tool_call'),
  id: string({ minLength: 1 }),
  name: string({ minLength: 1 }),
  args: record(),
});
const toolResult = object({
  type: literal('tool_result'),
  call_id: string({ minLength: 1 }),
  name: optional(string()),
  is_error: boolean(),
  content: array(tagged('type', { text, image })),
  /** Which extension tool answered; files written before it existed have none. */
  attribution: optional(object({ extension: string(), tool: string() })),
});

export const messageShape = tagged('role', {
  user: object({
    role: literal('user'),
    content: array(tagged('type', { text, image })),
    time: string(),
  }),
  assistant: object({
    role: literal('assistant'),
    content: array(tagged('type', { text, thinking, tool_call: toolCall })),
    time: string(),
  }),
  tool: object({ role: literal('tool'), content: array(toolResult), time: string() }),
});

// Compile-time proof that the schema and the conversation model describe the same values.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const messageSchemaMatchesModel: Same<Infer<typeof messageShape>, Message> = true;
void messageSchemaMatchesModel;

export const sessionEntryShape = tagged('type', {
  /** The first line: who wrote the file, for what. */
  session: object({
    type: literal('session'),
    version: integer({ min: 1 }),
    cwd: string(),
    created: string(),
    provider: string(),
    model: string(),
    zot_version: optional(string()),
  }),
  message: object({ type: literal('message'), message: messageShape }),
  /** The transcript became the summary plus the last `kept` messages. */
  compaction: object({
    type: literal('compaction'),
    time: string(),
    summary: string(),
    kept: integer({ min: 0 }),
  }),
  clear: object({ type: literal('clear'), time: string() }),
  /** Audit record of an extension blocking or rewriting something; not part of the transcript. */
  intercept: object({
    type: literal('intercept'),
    time: string(),
    extension: string(),
    event: string(),
    action: string(),
    reason: optional(string()),
    before: optional(anyValue()),
    after: optional(anyValue()),
  }),
});

/** One line of a session file. */
export type SessionEntry = Infer<typeof sessionEntryShape>;
