// The one event union every mode consumes. Shapes follow the RPC documentation of the
// original zot, so JSON and RPC modes can write them as they are.
import type { AssistantContent, StopReason, UserContent } from '../providers/types.js';
import type { ToolContent } from './tool.js';

export interface UsageEventFields {
  input: number;
  output: number;
  cache_read: number;
  cache_write: number;
  cost_usd: number;
}

export type AgentEvent =
  | { type: 'turn_start'; step: number }
  | { type: 'user_message'; content: UserContent[]; time: string }
  | { type: 'assistant_start' }
  | { type: 'text_delta'; delta: string }
  | { type: 'tool_call'; id: string; name: string; args: Record<string, unknown> }
  | { type: 'tool_progress'; id: string; text: string }
  | {
      type: 'tool_result';
      id: string;
      is_error: boolean;
      content: ToolContent[];
      /** Set when an extension produced the result. */
      extension?: string;
    }
  | { type: 'assistant_message'; content: AssistantContent[]; time: string }
  | ({ type: 'usage'; cumulative: UsageEventFields } & UsageEventFields)
  | { type: 'turn_end'; stop: StopReason; error?: string }
  | { type: 'done' }
  | { type: 'error'; message: string };

export type AgentEventType = AgentEvent['type'];
