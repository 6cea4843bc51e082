// Builds the assistant message from streamed pieces; shared by the three wire formats.
import type {
  AssistantContent,
  AssistantMessage,
  ProviderEvent,
  ThinkingBlock,
  TokenUsage,
} from './types.js';
import {
  ARGS_REFUSED_KEY,
  jsonLimitProblem,
  MAX_TOOL_ARGS_DEPTH,
  parseBoundedJson,
  TOOL_ARGS_LIMITS,
} from '@zot/protocol/bounds';

export function zeroUsage(): TokenUsage {
  return { input: 0, output: 0, cache_read: 0, cache_write: 0 };
}

/**
 * Parses streamed tool-call arguments.
 * Contract: never throws. Text that is not a JSON object becomes `{ __invalid_json__: raw }`,
 * so that the agent refuses the call and shows the model what it sent (the ToolCallBlock type
 * has no room for a parse error). Arguments past zot's bounds for tool arguments (depth, count
 * of values, size) become `{ [ARGS_REFUSED_KEY]: which bound }`: they never reach the
 * transcript, a frame or a validator.
 */
export function parseToolArgs(raw: string): Record<string, unknown> {
  if (raw.trim() === '') return {};
  const parsed = parseBoundedJson(raw);
  if (!parsed.ok) {
    if (!parsed.error.startsWith('JSON nested')) return { __invalid_json__: raw };
    return { [ARGS_REFUSED_KEY]: `nested deeper than ${MAX_TOOL_ARGS_DEPTH} levels` };
  }
  const value = parsed.value;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { __invalid_json__: raw };
  }
  const problem = jsonLimitProblem(value, TOOL_ARGS_LIMITS);
  if (problem !== undefined) return { [ARGS_REFUSED_KEY]: problem };
  return value as Record<string, unknown>;
}

/** Parses one SSE data payload. Contract: never throws; undefined when not JSON or too deep. */
export function parseJson(text: string): unknown {
  const parsed = parseBoundedJson(text);
  return parsed.ok ? parsed.value : undefined;
}

/** The largest answer kept by default: text, thinking and tool arguments, in UTF-8 bytes. */
export const DEFAULT_STREAM_MAX_BYTES = 16 * 1024 * 1024;

/** The answer size limit: ZOT_STREAM_MAX_BYTES, or 16 MiB. */
export function streamMaxBytes(env: NodeJS.ProcessEnv = process.env): number {
  const value = Number(env.ZOT_STREAM_MAX_BYTES);
  return Number.isSafeInteger(value) && value > 0 ? value : DEFAULT_STREAM_MAX_BYTES;
}

/**
 * The assistant message under construction. Blocks are appended in stream order, up to
 * `maxBytes` of text, thinking (signatures too) and tool arguments: the piece that would pass
 * it is dropped and `overflowed` set, so that the caller ends the stream keeping what came.
 */
export class MessageAssembly {
  readonly content: AssistantContent[] = [];
  readonly usage: TokenUsage = zeroUsage();
  sawUsage = false;
  /** The provider declined to answer (Anthropic stop_reason `refusal`, OpenAI refusal deltas). */
  refusal = false;
  /** A piece was refused for the size limit: the answer is incomplete and must end. */
  overflowed = false;
  private bytes = 0;
  /** Argument bytes counted per call id as they streamed (a finished call counts the rest). */
  private readonly argBytes = new Map<string, number>();
  private hasText = false;
  private readonly parts: { text?: string; thinking?: string } = {};
  private readonly time = new Date().toISOString();
  private toolCount = 0;
  private generatedIds = 0;

  constructor(readonly maxBytes: number = streamMaxBytes()) {}

  /** Counts `size` more bytes of the answer; false (and overflowed) when they do not fit. */
  private fits(size: number): boolean {
    if (this.overflowed || this.bytes + size > this.maxBytes) {
      this.overflowed = true;
      return false;
    }
    this.bytes += size;
    return true;
  }

  /**
   * Counts a piece the decoder keeps itself (a thinking block's text or signature).
   * Contract: false when it does not fit, and the decoder must not keep it.
   */
  count(piece: string): boolean {
    return this.fits(Buffer.byteLength(piece, 'utf8'));
  }

  /**
   * Appends text, continuing the last block when it is text. `part` names the wire's text part
   * (a block index, an item and content index): the first piece of a new part after earlier
   * text starts on a new line, so separate parts never run together.
   */
  text(delta: string, part?: string): ProviderEvent[] {
    if (delta === '' || !this.count(delta)) return [];
    const piece = this.newPart('text', part) && this.hasText ? `\n${delta}` : delta;
    this.hasText = true;
    const last = this.content.at(-1);
    if (last?.type === 'text') last.text += piece;
    else this.content.push({ type: 'text', text: piece });
    return [{ type: 'text_delta', delta: piece }];
  }

  /** Whether `part` differs from the previous part of this kind (and remembers it). */
  private newPart(kind: 'text' | 'thinking', part: string | undefined): boolean {
    if (part === undefined) return false;
    const changed = this.parts[kind] !== undefined && this.parts[kind] !== part;
    this.parts[kind] = part;
    return changed;
  }

  /** Starts a new thinking block (signatures belong to one block, so blocks never merge). */
  openThinking(): ThinkingBlock {
    const block: ThinkingBlock = { type: 'thinking', thinking: '' };
    this.content.push(block);
    return block;
  }

  /**
   * Appends thinking text, continuing the last block when it is thinking; like `text`, a new
   * `part` (e.g. a reasoning-summary part) starts on a new line.
   */
  thinking(delta: string, part?: string): ProviderEvent[] {
    if (delta === '' || !this.count(delta)) return [];
    const last = this.content.at(-1);
    const continues = last?.type === 'thinking' && last.thinking !== '';
    const piece = this.newPart('thinking', part) && continues ? `\n${delta}` : delta;
    const block = last?.type === 'thinking' ? last : this.openThinking();
    block.thinking += piece;
    return [{ type: 'thinking_delta', delta: piece }];
  }

  /** An id for a call the server sent none for (unique within the message). */
  newCallId(): string {
    return `call_${++this.generatedIds}_${Date.now().toString(36)}`;
  }

  /**
   * A piece of a call's arguments as it streams. The decoder passes the id the call will be
   * added with (`newCallId()` when the server sent none yet), so the events match.
   */
  toolCallDelta(id: string, name: string, delta: string): ProviderEvent[] {
    if (delta === '') return [];
    const size = Buffer.byteLength(delta, 'utf8');
    if (!this.fits(size)) return [];
    this.argBytes.set(id, (this.argBytes.get(id) ?? 0) + size);
    return [{ type: 'tool_call_delta', id, name, delta }];
  }

  /** Adds a finished tool call; a missing id gets a generated one. */
  toolCall(id: string | undefined, name: string, rawArgs: string): ProviderEvent[] {
    const callId = id || this.newCallId();
    const streamed = this.argBytes.get(callId) ?? 0;
    if (!this.fits(Math.max(0, Buffer.byteLength(rawArgs, 'utf8') - streamed))) return [];
    this.toolCount++;
    const args = parseToolArgs(rawArgs);
    this.content.push({ type: 'tool_call', id: callId, name, args });
    return [{ type: 'tool_call', id: callId, name, args }];
  }

  hasToolCalls(): boolean {
    return this.toolCount > 0;
  }

  message(): AssistantMessage {
    const message: AssistantMessage = {
      role: 'assistant',
      content: this.content.slice(),
      time: this.time,
    };
    if (this.refusal) message.refusal = true;
    return message;
  }

  /** The message so far, or undefined when nothing streamed. */
  partial(): AssistantMessage | undefined {
    return this.content.length > 0 ? this.message() : undefined;
  }

  usageSoFar(): TokenUsage | undefined {
    return this.sawUsage ? { ...this.usage } : undefined;
  }
}
