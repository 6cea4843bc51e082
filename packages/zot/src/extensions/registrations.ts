// Validation of one extension's registration frames (commands, tools, subscriptions).
import {
  isEventName,
  isInterceptableEvent,
  type RegisterCommandFrame,
  type RegisterToolFrame,
} from '@zot/protocol';
import { checkSchema } from '../agent/schema-check.js';
import type { JsonSchema } from '../providers/types.js';

export interface CommandRegistration {
  name: string;
  description: string;
}

export interface ToolRegistration {
  name: string;
  description: string;
  schema: JsonSchema;
  deferred: boolean;
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

export function checkTool(frame: RegisterToolFrame): ToolRegistration | string {
  if (!TOOL_NAME.test(frame.name)) {
    return `register_tool: invalid tool name "${frame.name}" (letters, digits, _ and -; at most 64)`;
  }
  const schema = (frame.schema ?? { type: 'object', properties: {} }) as JsonSchema;
  if (schema.type !== undefined && schema.type !== 'object') {
    return `register_tool "${frame.name}": the schema must describe an object (got type ${JSON.stringify(schema.type)})`;
  }
  const invalid = checkSchema(schema);
  if (invalid) return `register_tool "${frame.name}": not a valid JSON Schema: ${invalid}`;
  return {
    name: frame.name,
    description: frame.description ?? '',
    schema: schema.type === undefined ? { ...schema, type: 'object' } : schema,
    deferred: frame.deferred === true,
  };
}

/** Splits subscribe lists into accepted names and complaints for the log. */
export function checkSubscription(events: string[], intercept: string[]) {
  const problems: string[] = [];
  const accepted = { events: new Set<string>(), intercept: new Set<string>() };
  for (const name of events) {
    if (isEventName(name)) accepted.events.add(name);
    else problems.push(`subscribe: unknown event "${name}" ignored`);
  }
  for (const name of intercept) {
    if (isInterceptableEvent(name)) accepted.intercept.add(name);
    else if (isEventName(name))
      problems.push(`subscribe: "${name}" cannot be intercepted; ignored`);
    else problems.push(`subscribe: unknown event "${name}" ignored`);
  }
  return { accepted, problems };
}
