// The model-facing conversation model and the provider streaming contract.
// Content blocks use the snake_case wire shape of the RPC documentation, so that
// transcripts, session files and RPC messages share one representation.

// The content blocks and messages are defined once, schema-first, in contract/content.ts.
export type {
  AssistantContent,
  AssistantMessage,
  ImageBlock,
  Message,
  StopReason,
  TextBlock,
  ThinkingBlock,
  ToolCallBlock,
  ToolMessage,
  ToolResultAttribution,
  ToolResultBlock,
  UserContent,
  UserMessage,
} from '../contract/content.js';
import type { AssistantMessage, Message, StopReason } from '../contract/content.js';
import type { TokenUsage } from '../contract/usage.js';
import type { ErrorKind } from '../contract/errors.js';
export type { TokenUsage } from '../contract/usage.js';

import type { ProviderName } from '../contract/front-end.js';
export type { ProviderName };
export type ProviderApi = 'anthropic-messages' | 'openai-chat' | 'openai-responses';
export type ReasoningLevel = 'low' | 'medium' | 'high';

/** Prices in USD per million tokens. */
export type ModelPrices = {
  input: number;
  output: number;
  cache_read: number;
  cache_write: number;
};

export interface ModelInfo {
  id: string;
  name: string;
  provider: ProviderName;
  api: ProviderApi;
  reasoning: boolean;
  contextWindow: number;
  maxTokens: number;
  /** Overrides the provider's default base URL for this model. */
  baseUrl?: string;
  /** `api` was set in models.json: never changed to suit the base URL (see cli/provider-access.ts). */
  apiFixed?: boolean;
  prices: ModelPrices;
}

export type JsonSchema = Record<string, unknown>;

/** What a model is told about one tool. */
export interface ToolSpec {
  name: string;
  description: string;
  parameters: JsonSchema;
}

export interface StreamRequest {
  model: ModelInfo;
  /** Base URL with or without a trailing /v1. */
  baseUrl: string;
  apiKey?: string;
  system: string;
  messages: Message[];
  tools: ToolSpec[];
  reasoning?: ReasoningLevel;
  signal: AbortSignal;
  /** Called once the request has been written to the network (each attempt of a retry). */
  onSent?(): void;
}

export type ProviderEvent =
  | { type: 'start' }
  | { type: 'text_delta'; delta: string }
  | { type: 'thinking_delta'; delta: string }
  /** A piece of a call's raw argument JSON; `id` is the id its `tool_call` will have. */
  | { type: 'tool_call_delta'; id: string; name: string; delta: string }
  | { type: 'tool_call'; id: string; name: string; args: Record<string, unknown> }
  | { type: 'done'; message: AssistantMessage; stop: StopReason; usage: TokenUsage }
  | ProviderErrorEvent;

/**
 * How a call failed. `message` names the provider and, for HTTP failures, the status; `kind`
 * (every failure but an abort has one) is set where the failure is recognised.
 */
export type ProviderErrorEvent = {
  type: 'error';
  message: string;
  status?: number;
  /** What had streamed before the failure, if anything. */
  partial?: AssistantMessage;
  usage?: TokenUsage;
} & ({ aborted: true; kind?: undefined } | { aborted: false; kind: ErrorKind });

/**
 * Streams one model call.
 * Contract: never throws and never rejects; yields events that end with exactly one
 * `done` or `error`; aborting `signal` ends the HTTP stream at once with an aborted error.
 */
export type StreamFn = (request: StreamRequest) => AsyncIterable<ProviderEvent>;
