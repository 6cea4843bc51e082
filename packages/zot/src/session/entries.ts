// The schema of a session file line, defined once: the loader checks every line against it and
// the writer's SessionEntry type is derived from it. The message shapes are checked at compile
// time against the conversation model of providers/types.ts.
import type { ToolDetails } from '../contract/tool-details.js';
import type { Message } from '../providers/types.js';
import {
  anyValue,
  array,
  boolean,
  integer,
  isTrue,
  literal,
  number,
  object,
  optional,
  record,
  string,
  tagged,
  type Infer,
} from '../util/shape.js';

export const SESSION_FORMAT_VERSION = 1;

/** Longest branch summary a file may hold; a longer one is skipped as hostile. */
export const MAX_BRANCH_SUMMARY_CHARS = 16 * 1024;
/** Longest merged text (a summary and final messages); a longer one is skipped as hostile. */
export const MAX_MERGE_CHARS = 64 * 1024;

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
const count = integer({ min: 0 });
const hunk = object({
  old_start: count,
  old_lines: count,
  new_start: count,
  new_lines: count,
  lines: array(string()),
});
/** A tool result's `details` (contract/tool-details.ts), for the UI only. */
export const toolDetailsShape = tagged('kind', {
  edit: object({
    kind: literal('edit'),
    path: string(),
    added: count,
    removed: count,
    hunks: array(hunk),
    truncated: optional(boolean()),
  }),
  bash: object({
    kind: literal('bash'),
    exit_code: optional(integer()),
    signal: optional(string()),
    timed_out: boolean(),
    aborted: boolean(),
    truncated: boolean(),
    full_output_path: optional(string()),
  }),
  read: object({
    kind: literal('read'),
    path: string(),
    total_lines: optional(count),
    first_line: optional(integer({ min: 1 })),
    last_line: optional(integer({ min: 1 })),
    mime_type: optional(string()),
  }),
  write: object({ kind: literal('write'), path: string(), bytes: count, created: boolean() }),
  diff: object({ kind: literal('diff'), diff: string(), truncated: optional(boolean()) }),
  table: object({
    kind: literal('table'),
    columns: array(string()),
    rows: array(array(string())),
    truncated: optional(boolean()),
  }),
});
const toolResult = object({
  type: literal('tool_result'),
  call_id: string({ minLength: 1 }),
  name: optional(string()),
  is_error: boolean(),
  content: array(tagged('type', { text, image })),
  /** Which extension tool answered; files written before it existed have none. */
  attribution: optional(object({ extension: string(), tool: string() })),
  details: optional(toolDetailsShape),
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
    refusal: optional(isTrue()),
    cancelled: optional(isTrue()),
  }),
  tool: object({ role: literal('tool'), content: array(toolResult), time: string() }),
});

// Compile-time proof that the schema and the conversation model describe the same values
// (Required<> makes a missing optional property count).
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Equal<A, B> = Same<A, B> extends true ? Same<Required<A>, Required<B>> : false;
const messageSchemaMatchesModel: Same<Infer<typeof messageShape>, Message> = true;
const resultSchemaMatchesModel: Equal<
  Infer<typeof toolResult>,
  Extract<Message, { role: 'tool' }>['content'][number]
> = true;
const detailsSchemaMatchContract: Equal<Infer<typeof toolDetailsShape>, ToolDetails> = true;
void messageSchemaMatchesModel;
void resultSchemaMatchesModel;
void detailsSchemaMatchContract;

/**
 * Details are for display only: ones this zot cannot read (another version's, hand-edited) are
 * removed from a parsed line before it is checked, so the tool result itself still loads.
 * Contract: never throws; mutates only `value` (freshly parsed JSON); true when it dropped any.
 */
export function dropUnreadableDetails(value: unknown): boolean {
  const isObject = (v: unknown): v is Record<string, unknown> =>
    v !== null && typeof v === 'object' && !Array.isArray(v);
  if (!isObject(value) || value.type !== 'message' || !isObject(value.message)) return false;
  const { role, content } = value.message;
  if (role !== 'tool' || !Array.isArray(content)) return false;
  let dropped = false;
  for (const block of content) {
    if (!isObject(block) || !Object.hasOwn(block, 'details')) continue;
    if (toolDetailsShape(block.details, 'details') === undefined) continue;
    delete block.details;
    dropped = true;
  }
  return dropped;
}

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
  /** One model call's tokens and cost: totals and the context meter survive a resume. */
  usage: object({
    type: literal('usage'),
    time: string(),
    provider: string(),
    model: string(),
    input: count,
    output: count,
    cache_read: count,
    cache_write: count,
    cost_usd: number({ min: 0 }),
  }),
  /** The name the user gave the session (`/sessions`); the last one counts. */
  name: object({ type: literal('name'), time: string(), name: string() }),
  /**
   * A checkpoint of the working tree, in zot's own store (session/checkpoints/): taken before a
   * turn's first tool call (phase "before") and when that turn ends ("after"). Turns are
   * numbered from 1 within the session; a rewind is a turn of its own, so it can be undone.
   */
  checkpoint: object({
    type: literal('checkpoint'),
    time: string(),
    turn: integer({ min: 1 }),
    phase: string(),
    commit: string({ minLength: 40 }),
    /** The directory the checkpoint covers. */
    root: string(),
    /** The prompt's first line, or what a rewind restored. */
    label: optional(string()),
    /** How many files it skipped (too large, not regular files). */
    skipped: optional(count),
    /** How many messages the transcript held before the turn's prompt (its conversation point). */
    messages: optional(count),
  }),
  /**
   * A conversation rewind: the transcript went back to its first `messages` messages, as before
   * `turn`'s prompt. The later messages stay in the file, above this line.
   */
  rewind: object({
    type: literal('rewind'),
    time: string(),
    turn: integer({ min: 1 }),
    messages: count,
  }),
  /**
   * The session moved to another point of its tree (/tree, a rewind's way back): the entries
   * after this line continue from line `to`, an earlier message, compaction, clear or merge
   * (0: the empty start). Files without it are one branch (session/tree.ts).
   */
  branch: object({ type: literal('branch'), time: string(), to: count }),
  /** A short summary of the branch ending at line `leaf`, written when the session left it. */
  branch_summary: object({
    type: literal('branch_summary'),
    time: string(),
    leaf: integer({ min: 1 }),
    summary: string({ maxLength: MAX_BRANCH_SUMMARY_CHARS }),
    /** "model" (a model call wrote it) or "zot" (made from the transcript, without a model). */
    by: string(),
  }),
  /**
   * Another branch's result brought into this one (/merge): the model sees `text` as a user
   * message. `from` is the line of that branch's last entry.
   */
  merge: object({
    type: literal('merge'),
    time: string(),
    from: integer({ min: 1 }),
    label: string({ maxLength: 400 }),
    text: string({ maxLength: MAX_MERGE_CHARS }),
  }),
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
