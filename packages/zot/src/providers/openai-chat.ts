// OpenAI Chat Completions (also ollama, kimi and other OpenAI-compatible servers).
import { reportedErrorKind } from './error-kind.js';
import { MessageAssembly, parseJson } from './assemble.js';
import { bearerStream, type WireDecoder } from './http.js';
import type { SseEvent } from './sse.js';
import type {
  ImageBlock,
  Message,
  ProviderEvent,
  StopReason,
  StreamRequest,
  TextBlock,
  ToolResultBlock,
} from './types.js';

type Json = Record<string, unknown>;

/**
 * Streams one call to the Chat Completions API.
 * Contract: the StreamFn contract (never throws; ends with one done or error).
 */
export const streamOpenAIChat = bearerStream('chat/completions', chatBody, () => new ChatDecoder());

function chatBody(request: StreamRequest): Json {
  const { model } = request;
  const messages: Json[] = request.system ? [{ role: 'system', content: request.system }] : [];
  messages.push(...toWireMessages(request.messages));
  const body: Json = {
    model: model.id,
    messages,
    stream: true,
    stream_options: { include_usage: true },
  };
  // OpenAI deprecated max_tokens (reasoning models reject it); compatible servers know only max_tokens.
  body[model.provider === 'openai' ? 'max_completion_tokens' : 'max_tokens'] = model.maxTokens;
  if (request.tools.length > 0) {
    body.tools = request.tools.map((t) => ({
      type: 'function',
      function: { name: t.name, description: t.description, parameters: t.parameters },
    }));
  }
  if (request.reasoning && model.reasoning) body.reasoning_effort = request.reasoning;
  return body;
}

export function dataUrl(image: ImageBlock): string {
  return `data:${image.mime_type};base64,${image.data}`;
}

export function joinText(blocks: Array<{ type: string; text?: string }>): string {
  return blocks
    .filter((b): b is TextBlock => b.type === 'text')
    .map((b) => b.text)
    .join('\n');
}

function userContent(blocks: Array<TextBlock | ImageBlock>): string | Json[] {
  if (blocks.length === 1 && blocks[0]?.type === 'text') return blocks[0].text;
  return blocks.map((b) =>
    b.type === 'text'
      ? { type: 'text', text: b.text }
      : { type: 'image_url', image_url: { url: dataUrl(b) } },
  );
}

/** Tool messages cannot hold images, so a result's images follow in one user message. */
export function imagesOfResults(results: ToolResultBlock[]): Array<TextBlock | ImageBlock> {
  const blocks: Array<TextBlock | ImageBlock> = [];
  for (const result of results) {
    const images = result.content.filter((b): b is ImageBlock => b.type === 'image');
    if (images.length === 0) continue;
    const label = result.name ? `${result.name} (${result.call_id})` : result.call_id;
    blocks.push({ type: 'text', text: `Image(s) returned by tool call ${label}:` }, ...images);
  }
  return blocks;
}

function toWireMessages(messages: Message[]): Json[] {
  const out: Json[] = [];
  for (const message of messages) {
    if (message.role === 'user') {
      if (message.content.length > 0)
        out.push({ role: 'user', content: userContent(message.content) });
    } else if (message.role === 'assistant') {
      const text = joinText(message.content);
      const calls = message.content.flatMap((b) =>
        b.type === 'tool_call'
          ? [
              {
                id: b.id,
                type: 'function',
                function: { name: b.name, arguments: JSON.stringify(b.args) },
              },
            ]
          : [],
      );
      if (!text && calls.length === 0) continue;
      const wire: Json = { role: 'assistant', content: text || null };
      if (calls.length > 0) wire.tool_calls = calls;
      out.push(wire);
    } else {
      for (const result of message.content) {
        // Some servers reject an empty tool message.
        const content = joinText(result.content) || (result.is_error ? 'error' : '(no output)');
        out.push({ role: 'tool', tool_call_id: result.call_id, content });
      }
      const images = imagesOfResults(message.content);
      if (images.length > 0) out.push({ role: 'user', content: userContent(images) });
    }
  }
  return out;
}

/** `shownId`: the id its deltas carried (the server's, or generated when it sent none yet). */
type PendingCall = { id: string | undefined; shownId?: string; name: string; args: string };

class ChatDecoder implements WireDecoder {
  readonly asm = new MessageAssembly();
  /** Tool calls in arrival order; `byIndex` maps a delta's index to its call. */
  private readonly calls: PendingCall[] = [];
  private readonly byIndex = new Map<number, PendingCall>();
  private finishReason: string | undefined;
  private sawDone = false;

  onEvent(event: SseEvent): ProviderEvent[] {
    if (event.data.trim() === '[DONE]') {
      this.sawDone = true;
      return [];
    }
    const data = parseJson(event.data) as Json | undefined;
    if (!data) return [];
    if (data.error) {
      const error = data.error as Json | string;
      const message =
        typeof error === 'string' ? error : String(error.message ?? JSON.stringify(error));
      const kind = reportedErrorKind(
        typeof error === 'string' ? error : `${String(error.code ?? error.type ?? '')} ${message}`,
      );
      return [{ type: 'error', message, aborted: false, kind }];
    }
    const choice = (Array.isArray(data.choices) ? data.choices[0] : undefined) as Json | undefined;
    // Moonshot puts usage inside the choice; OpenAI in a final chunk with no choices.
    this.readUsage((data.usage ?? choice?.usage) as Json | undefined);
    if (!choice) return [];
    const out: ProviderEvent[] = [];
    const delta = (choice.delta ?? {}) as Json;
    // DeepSeek/kimi send `reasoning_content`, ollama and OpenRouter `reasoning`.
    const reasoning = delta.reasoning_content ?? delta.reasoning;
    if (typeof reasoning === 'string') out.push(...this.asm.thinking(reasoning));
    if (typeof delta.content === 'string') out.push(...this.asm.text(delta.content));
    // A refusal streams in its own field instead of content: shown as text, flagged.
    if (typeof delta.refusal === 'string' && delta.refusal !== '') {
      this.asm.refusal = true;
      out.push(...this.asm.text(delta.refusal));
    }
    if (Array.isArray(delta.tool_calls)) {
      delta.tool_calls.forEach((d: Json, position) => out.push(...this.addCallDelta(d, position)));
    }
    if (typeof choice.finish_reason === 'string') this.finishReason = choice.finish_reason;
    return out;
  }

  private addCallDelta(delta: Json, position: number): ProviderEvent[] {
    const index = typeof delta.index === 'number' ? delta.index : position;
    const fn = (delta.function ?? {}) as Json;
    const id = typeof delta.id === 'string' && delta.id ? delta.id : undefined;
    let call = this.byIndex.get(index);
    // Some servers reuse index 0 for every call; a new id then means a new call.
    if (!call || (id && call.id && id !== call.id)) {
      call = { id, name: '', args: '' };
      this.calls.push(call);
      this.byIndex.set(index, call);
    }
    if (id) call.id = id;
    // Names stream in pieces too, so they count towards the answer's size.
    if (typeof fn.name === 'string' && this.asm.count(fn.name)) call.name += fn.name;
    const piece =
      typeof fn.arguments === 'string'
        ? fn.arguments
        : fn.arguments && typeof fn.arguments === 'object'
          ? JSON.stringify(fn.arguments)
          : '';
    if (piece === '') return [];
    call.args += piece;
    call.shownId ??= call.id ?? this.asm.newCallId();
    return this.asm.toolCallDelta(call.shownId, call.name, piece);
  }

  private readUsage(usage: Json | undefined): void {
    if (!usage || typeof usage !== 'object') return;
    const details = (usage.prompt_tokens_details ?? {}) as Json;
    const cached = Number(details.cached_tokens ?? usage.cached_tokens ?? 0) || 0;
    const prompt = Number(usage.prompt_tokens ?? 0) || 0;
    this.asm.sawUsage = true;
    Object.assign(this.asm.usage, {
      input: Math.max(0, prompt - cached),
      output: Number(usage.completion_tokens ?? 0) || 0,
      cache_read: cached,
      cache_write: 0,
    });
  }

  finish(): ProviderEvent[] {
    if (this.finishReason === undefined && !this.sawDone) {
      const message = 'stream ended before a finish_reason';
      return [{ type: 'error', message, aborted: false, kind: 'network' }];
    }
    if (this.finishReason === 'content_filter') {
      const message = 'response stopped by the content filter';
      return [{ type: 'error', message, aborted: false, kind: 'refusal' }];
    }
    const out = this.calls.flatMap((c) => this.asm.toolCall(c.shownId ?? c.id, c.name, c.args));
    const stop: StopReason =
      this.finishReason === 'length' ? 'length' : this.calls.length > 0 ? 'tool_use' : 'end_turn';
    out.push({ type: 'done', message: this.asm.message(), stop, usage: { ...this.asm.usage } });
    return out;
  }
}
