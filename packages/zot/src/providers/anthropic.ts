// Anthropic Messages API: request body, SSE decoding.
import { reportedErrorKind } from './error-kind.js';
import { MessageAssembly, parseJson } from './assemble.js';
import { runSse, sseCallOf, type WireDecoder } from './http.js';
import type { SseEvent } from './sse.js';
import type {
  ImageBlock,
  Message,
  ProviderEvent,
  ReasoningLevel,
  StopReason,
  StreamFn,
  StreamRequest,
  TextBlock,
  ThinkingBlock,
} from './types.js';

type Json = Record<string, unknown>;
type WireMessage = { role: 'user' | 'assistant'; content: Json[] };

const THINKING_BUDGET: Record<ReasoningLevel, number> = { low: 2048, medium: 8192, high: 24576 };
const CACHE = { type: 'ephemeral' } as const;

/**
 * Streams one call to the Messages API.
 * Contract: the StreamFn contract (never throws; ends with one done or error).
 */
export const streamAnthropic: StreamFn = (request) =>
  runSse(
    sseCallOf(
      request,
      'messages',
      {
        'content-type': 'application/json',
        'anthropic-version': '2023-06-01',
        ...(request.apiKey ? { 'x-api-key': request.apiKey } : {}),
      },
      anthropicBody(request),
    ),
    new AnthropicDecoder(),
  );

function anthropicBody(request: StreamRequest): Json {
  const { model } = request;
  const body: Json = { model: model.id, max_tokens: model.maxTokens, stream: true };
  if (request.system) body.system = [{ type: 'text', text: request.system, cache_control: CACHE }];
  body.messages = toWireMessages(request.messages);
  if (request.tools.length > 0) {
    body.tools = request.tools.map((tool, i) => ({
      name: tool.name,
      description: tool.description,
      input_schema: tool.parameters,
      ...(i === request.tools.length - 1 ? { cache_control: CACHE } : {}),
    }));
  }
  if (request.reasoning && model.reasoning && thinkingAccepted(body.messages as WireMessage[])) {
    const budget = THINKING_BUDGET[request.reasoning];
    // The API requires budget_tokens < max_tokens and leaves the answer what remains.
    if (budget >= model.maxTokens) body.max_tokens = budget + 4096;
    body.thinking = { type: 'enabled', budget_tokens: budget };
  }
  return body;
}

/**
 * With thinking on, the API requires the assistant message that tool results continue to start
 * with its signed thinking block. One that has none (rewritten by a redaction, so unsigned, or
 * from another provider) can only be continued with thinking off for that one request.
 */
function thinkingAccepted(messages: WireMessage[]): boolean {
  const last = messages.at(-1);
  if (last?.role !== 'user' || !last.content.some((block) => block.type === 'tool_result')) {
    return true;
  }
  const continued = messages.at(-2);
  return continued?.role !== 'assistant' || continued.content[0]?.type === 'thinking';
}

/** Tool ids must match ^[a-zA-Z0-9_-]+$; ids from other providers (e.g. `functions.read:0`) may not. */
function wireId(id: string): string {
  return id.replace(/[^a-zA-Z0-9_-]/g, '_') || 'call';
}

function image(block: ImageBlock): Json {
  return {
    type: 'image',
    source: { type: 'base64', media_type: block.mime_type, data: block.data },
  };
}

function userBlocks(blocks: Array<TextBlock | ImageBlock>): Json[] {
  // The API rejects empty text blocks.
  return blocks.flatMap((b) =>
    b.type === 'image' ? [image(b)] : b.text ? [{ type: 'text', text: b.text }] : [],
  );
}

function toWireMessages(messages: Message[]): WireMessage[] {
  const out: WireMessage[] = [];
  for (const message of messages) {
    let wire: WireMessage;
    if (message.role === 'user') wire = { role: 'user', content: userBlocks(message.content) };
    else if (message.role === 'tool') {
      const results = message.content.map((r) => {
        const content = userBlocks(r.content);
        return {
          type: 'tool_result',
          tool_use_id: wireId(r.call_id),
          ...(content.length > 0 ? { content } : {}),
          is_error: r.is_error,
        };
      });
      wire = { role: 'user', content: results };
    } else {
      const content = message.content.flatMap((b): Json[] => {
        if (b.type === 'text') return b.text ? [{ type: 'text', text: b.text }] : [];
        if (b.type === 'tool_call') {
          return [{ type: 'tool_use', id: wireId(b.id), name: b.name, input: b.args }];
        }
        // Thinking without a signature (another provider's, or cut short) cannot be sent back.
        return b.signature
          ? [{ type: 'thinking', thinking: b.thinking, signature: b.signature }]
          : [];
      });
      wire = { role: 'assistant', content };
    }
    if (wire.content.length === 0) continue;
    // Tool results followed by a user message become one user turn (tool_result blocks first).
    const previous = out.at(-1);
    if (previous?.role === wire.role) previous.content.push(...wire.content);
    else out.push(wire);
  }
  // A third cache breakpoint on the newest turn lets each agent step reuse the previous prefix.
  const last = out.at(-1);
  const lastBlock = last?.role === 'user' ? last.content.at(-1) : undefined;
  if (lastBlock) lastBlock.cache_control = CACHE;
  return out;
}

type OpenTool = { id: string; name: string; json: string; initial: unknown };

class AnthropicDecoder implements WireDecoder {
  readonly asm = new MessageAssembly();
  private readonly tools = new Map<number, OpenTool>();
  private readonly thinking = new Map<number, ThinkingBlock>();
  private stopReason: string | undefined;
  private stopped = false;

  onEvent(event: SseEvent): ProviderEvent[] {
    const data = parseJson(event.data) as Json | undefined;
    if (!data) return [];
    const usage = this.asm.usage;
    const num = (v: unknown, fallback: number) => (typeof v === 'number' ? v : fallback);
    const readUsage = (u: Json | undefined) => {
      if (!u) return;
      this.asm.sawUsage = true;
      usage.input = num(u.input_tokens, usage.input);
      usage.output = num(u.output_tokens, usage.output);
      usage.cache_read = num(u.cache_read_input_tokens, usage.cache_read);
      usage.cache_write = num(u.cache_creation_input_tokens, usage.cache_write);
    };
    const index = num(data.index, -1);
    switch (data.type ?? event.event) {
      case 'message_start':
        readUsage((data.message as Json | undefined)?.usage as Json | undefined);
        return [];
      case 'content_block_start': {
        const block = (data.content_block ?? {}) as Json;
        if (block.type === 'tool_use') {
          // A call without id gets its final id now, so that its deltas carry it too.
          const id = typeof block.id === 'string' && block.id ? block.id : this.asm.newCallId();
          const tool = { id, name: String(block.name ?? ''), json: '' };
          this.tools.set(index, { ...tool, initial: block.input });
        } else if (block.type === 'thinking') {
          const opened = this.asm.openThinking();
          this.thinking.set(index, opened);
          if (
            typeof block.signature === 'string' &&
            block.signature &&
            this.asm.count(block.signature)
          )
            opened.signature = block.signature;
          return this.appendThinking(index, block.thinking);
        } else if (block.type === 'text' && typeof block.text === 'string') {
          return this.asm.text(block.text, String(index));
        }
        return [];
      }
      case 'content_block_delta': {
        const delta = (data.delta ?? {}) as Json;
        if (delta.type === 'text_delta' && typeof delta.text === 'string')
          return this.asm.text(delta.text, String(index));
        if (delta.type === 'thinking_delta') return this.appendThinking(index, delta.thinking);
        if (delta.type === 'signature_delta' && typeof delta.signature === 'string') {
          const block = this.thinking.get(index);
          if (block && this.asm.count(delta.signature))
            block.signature = (block.signature ?? '') + delta.signature;
        }
        const tool = this.tools.get(index);
        if (delta.type === 'input_json_delta' && tool && typeof delta.partial_json === 'string') {
          tool.json += delta.partial_json;
          return this.asm.toolCallDelta(tool.id, tool.name, delta.partial_json);
        }
        return [];
      }
      case 'content_block_stop': {
        const tool = this.tools.get(index);
        if (!tool) return [];
        this.tools.delete(index);
        // Without deltas the input came whole in content_block_start.
        const initial = tool.initial as Json | undefined;
        const raw =
          tool.json || (initial && Object.keys(initial).length > 0 ? JSON.stringify(initial) : '');
        return this.asm.toolCall(tool.id, tool.name, raw);
      }
      case 'message_delta':
        readUsage(data.usage as Json | undefined);
        if (typeof (data.delta as Json | undefined)?.stop_reason === 'string') {
          this.stopReason = (data.delta as Json).stop_reason as string;
        }
        return [];
      case 'message_stop':
        this.stopped = true;
        return [];
      case 'error': {
        const error = (data.error ?? {}) as Json;
        const message = `${String(error.type ?? 'error')}: ${String(error.message ?? event.data)}`;
        // Overloaded arrives as an SSE error after HTTP 200; 529 is its HTTP status elsewhere.
        const status = error.type === 'overloaded_error' ? 529 : undefined;
        const kind = reportedErrorKind(`${String(error.type ?? '')} ${message}`);
        return [{ type: 'error', message, aborted: false, kind, ...(status ? { status } : {}) }];
      }
      default:
        return []; // ping and future events
    }
  }

  private appendThinking(index: number, text: unknown): ProviderEvent[] {
    const block = this.thinking.get(index);
    if (typeof text !== 'string' || text === '' || !block || !this.asm.count(text)) return [];
    block.thinking += text;
    return [{ type: 'thinking_delta', delta: text }];
  }

  finish(): ProviderEvent[] {
    if (!this.stopped && this.stopReason === undefined) {
      const message = 'stream ended before message_stop';
      return [{ type: 'error', message, aborted: false, kind: 'network' }];
    }
    // A refusal ends like a turn, and says so on the message.
    if (this.stopReason === 'refusal') this.asm.refusal = true;
    const stop = mapStop(this.stopReason, this.asm.hasToolCalls());
    return [{ type: 'done', message: this.asm.message(), stop, usage: { ...this.asm.usage } }];
  }
}

function mapStop(reason: string | undefined, hasToolCalls: boolean): StopReason {
  if (reason === 'max_tokens' || reason === 'model_context_window_exceeded') return 'length';
  if (reason === 'tool_use' || (reason === undefined && hasToolCalls)) return 'tool_use';
  return 'end_turn'; // end_turn, stop_sequence, refusal, pause_turn
}
