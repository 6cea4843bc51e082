// Validation of one extension's registration frames (commands, tools, subscriptions).
import {
  isEventName,
  interceptVersion,
  isInterceptableEvent,
  jsonLimitProblem,
  MAX_JSON_DEPTH,
  type ProtocolVersion,
  type RegisterCommandFrame,
  type RegisterToolFrame,
} from '@zot/protocol';
import type { JsonSchema } from '../providers/types.js';
import { LoadOnce } from '../util/load-once.js';

export interface CommandRegistration {
  name: string;
  description: string;
}

export interface ToolRegistration {
  name: string;
  description: string;
  schema: JsonSchema;
  deferred: boolean;
  /** What offering it costs each model request: name, description and schema as JSON, bytes. */
  bytes: number;
}

/** What one extension registered: its commands, tools and subscriptions. */
export interface Registrations {
  /** Keyed by lower-case name, as the host matches them. */
  commands: Map<string, CommandRegistration>;
  tools: Map<string, ToolRegistration>;
  events: Set<string>;
  intercepts: Set<string>;
}

/**
 * What one extension may register, and what the model is offered in one request. Every tool
 * offered is sent with every model request: 20,000 registrations made each request 40 MB.
 */
export const REGISTRATION_LIMITS = {
  /** Tools per extension, deferred ones included (the MCP bridge bridges up to 2,000). */
  toolsPerExtension: 2048,
  commandsPerExtension: 256,
  /** A tool's input schema as JSON, in bytes. */
  schemaBytes: 64 * 1024,
  /** A tool's description, in characters. */
  descriptionChars: 16 * 1024,
  /** Extension tools offered in one model request (OpenAI accepts at most 128 in all). */
  offeredTools: 256,
  /** Their names, descriptions and schemas as JSON, in bytes. */
  offeredBytes: 2 * 1024 * 1024,
} as const;

/**
 * The tool-schema check (agent/schema-check.ts): the meta-schema validator and the pattern
 * linter with its regex engine, the largest code a run with extensions loads. Loaded on first
 * need (loadSchemaCheck) rather than at start-up: a run whose remembered registrations are
 * sealed checks no schema before its extensions' first frames arrive.
 */
const schemaCheckModule = new LoadOnce(() => import('../agent/schema-check.js'));

/**
 * Loads the schema check that checkTool() needs (once; later calls wait for the same load).
 * Whoever may call checkTool() without `schemaChecked` awaits this first. Rejects only when the
 * module cannot be loaded (a damaged install).
 */
export async function loadSchemaCheck(): Promise<void> {
  await schemaCheckModule.load();
}

/** Whether checkTool() can check a schema now (loadSchemaCheck() has resolved). */
export function schemaCheckLoaded(): boolean {
  return schemaCheckModule.now !== undefined;
}

const COMMAND_NAME = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$/;
// The strictest provider rule (Anthropic): letters, digits, _ and -, at most 64.
const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

export function checkCommand(frame: RegisterCommandFrame): CommandRegistration | string {
  const name = frame.name.startsWith('/') ? frame.name.slice(1) : frame.name;
  if (!COMMAND_NAME.test(name)) {
    return `register_command: invalid command name "${frame.name}" (letters, digits, . _ : -; at most 64)`;
  }
  return { name, description: frame.description ?? '' };
}

/**
 * A register_tool frame's registration, or why it is refused. `schemaChecked`: its schema passed
 * checkSchema when zot first accepted it (a sealed memory entry, see remembered.ts), so that
 * check, the one costly part, is not made again; every other check is. Without it, the schema
 * check must be loaded (loadSchemaCheck): a call before that throws, as a bug of the caller's.
 */
export function checkTool(
  frame: RegisterToolFrame,
  { schemaChecked = false }: { schemaChecked?: boolean } = {},
): ToolRegistration | string {
  if (!TOOL_NAME.test(frame.name)) {
    return `register_tool: invalid tool name "${frame.name}" (letters, digits, _ and -; at most 64)`;
  }
  const description = frame.description ?? '';
  if (description.length > REGISTRATION_LIMITS.descriptionChars) {
    return `register_tool "${frame.name}": the description is longer than ${REGISTRATION_LIMITS.descriptionChars} characters`;
  }
  const schema = (frame.schema ?? { type: 'object', properties: {} }) as JsonSchema;
  // Bounded before any schema check walks it (and before it is sent with every request).
  const maxBytes = REGISTRATION_LIMITS.schemaBytes;
  const tooBig = jsonLimitProblem(schema, { maxDepth: MAX_JSON_DEPTH, maxBytes });
  if (tooBig) return `register_tool "${frame.name}": the schema is ${tooBig}`;
  if (schema.type !== undefined && schema.type !== 'object') {
    return `register_tool "${frame.name}": the schema must describe an object (got type ${JSON.stringify(schema.type)})`;
  }
  const schemaCheck = schemaCheckModule.now?.checkSchema;
  if (!schemaChecked && schemaCheck === undefined)
    throw new Error('checkTool: the schema check is not loaded (await loadSchemaCheck() first)');
  const invalid = schemaChecked ? undefined : schemaCheck!(schema);
  if (invalid) return `register_tool "${frame.name}": its schema cannot be used: ${invalid}`;
  const final = schema.type === undefined ? { ...schema, type: 'object' } : schema;
  const bytes =
    Buffer.byteLength(JSON.stringify(final)) + Buffer.byteLength(description) + frame.name.length;
  return { name: frame.name, description, schema: final, deferred: frame.deferred === true, bytes };
}

/**
 * Splits subscribe lists into accepted names and complaints for the log. An event that can be
 * intercepted only from a later protocol version than the extension's is refused, named.
 */
export function checkSubscription(
  events: string[],
  intercept: string[],
  version: ProtocolVersion = 1,
) {
  const problems: string[] = [];
  const accepted = { events: new Set<string>(), intercept: new Set<string>() };
  for (const name of events) {
    if (isEventName(name)) accepted.events.add(name);
    else problems.push(`subscribe: unknown event "${name}" ignored`);
  }
  for (const name of intercept) {
    const needs = interceptVersion(name);
    if (needs > version)
      problems.push(
        `subscribe: intercepting "${name}" needs protocol version ${needs} (send "protocol_version": ${needs} in hello); ignored`,
      );
    else if (isInterceptableEvent(name)) accepted.intercept.add(name);
    else if (isEventName(name))
      problems.push(`subscribe: "${name}" cannot be intercepted; ignored`);
    else problems.push(`subscribe: unknown event "${name}" ignored`);
  }
  return { accepted, problems };
}
