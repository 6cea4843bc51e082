// OpenAI Responses API: request body, SSE decoding.
import { reportedErrorKind } from './error-kind.js';
import { MessageAssembly, parseJson } from './assemble.js';
import { bearerStream, type WireDecoder } from './http.js';
import { dataUrl, imagesOfResults, joinText } from './openai-chat.js';
import type { SseEvent } from './sse.js';
import type {
  ImageBlock,
  Message,
  ProviderEvent,
  StopReason,
  StreamRequest,
  TextBlock,
} from './types.js';

type Json = Record<string, unknown>;

/**
 * Streams one call to the Responses API (stateless: `store: false`, full input each time).
 * Contract: the StreamFn contract (never throws; ends with one done or error).
 */
export const streamOpenAIResponses = bearerStream(
  'responses',
  responsesBody,
  () => new ResponsesDecoder(),
);

function responsesBody(request: StreamRequest): Json {
  const { model } = request;
  const body: Json = { model: model.id };
  if (request.system) body.instructions = request.system;
  body.input = toInputItems(request.messages);
  if (request.tools.length > 0) {
    body.tools = request.tools.map((t) => ({
      type: 'function',
      name: t.name,
      description: t.description,
      parameters: t.parameters,
    }));
  }
  if (request.reasoning && model.reasoning) body.reasoning = { effort: request.reasoning };
  Object.assign(body, { max_output_tokens: model.maxTokens, stream: true, store: false });
  return body;
}

function userItem(blocks: Array<TextBlock | ImageBlock>): Json {
  const content = blocks.map((b) =>
    b.type === 'text'
      ? { type: 'input_text', text: b.text }
      : { type: 'input_image', image_url: dataUrl(b), detail: 'auto' },
  );
  return { role: 'user', content };
}

function toInputItems(messages: Message[]): Json[] {
  const out: Json[] = [];
  for (const message of messages) {
    if (message.role === 'user') {
      if (message.content.length > 0) out.push(userItem(message.content));
    } else if (message.role === 'assistant') {
      // Item ids are left out: with store:false the server knows none of them.
      let text: string[] = [];
      const flushText = () => {
        const joined = text.join('');
        if (joined) {
          const content = [{ type: 'output_text', text: joined }];
          out.push({ type: 'message', role: 'assistant', content });
        }
        text = [];
      };
      for (const block of message.content) {
        if (block.type === 'text') text.push(block.text);
        if (block.type !== 'tool_call') continue;
        flushText();
        const args = JSON.stringify(block.args);
        out.push({ type: 'function_call', call_id: block.id, name: block.name, arguments: args });
      }
      flushText();
    } else {
      for (const result of message.content) {
        const output = joinText(result.content) || (result.is_error ? 'error' : '(no output)');
        out.push({ type: 'function_call_output', call_id: result.call_id, output });
      }
      const images = imagesOfResults(message.content);
      if (images.length > 0) out.push(userItem(images));
    }
  }
  return out;
}

type PendingCall = { callId: string; name: string; args: string };

class ResponsesDecoder implements WireDecoder {
  readonly asm = new MessageAssembly();
  /** Function calls by item id (or output index when a server omits ids). */
  private readonly calls = new Map<string, PendingCall>();
  private completed: Json | undefined;

  onEvent(event: SseEvent): ProviderEvent[] {
    const data = parseJson(event.data) as Json | undefined;
    if (!data) return [];
    const item = (data.item ?? {}) as Json;
    const key = String(data.item_id ?? item.id ?? data.output_index ?? '');
    switch (data.type ?? event.event) {
      case 'response.output_text.delta':
        return typeof data.delta === 'string'
          ? this.asm.text(data.delta, `${key}:${String(data.content_index ?? '')}`)
          : [];
      case 'response.refusal.delta':
        // A refusal is a content part of its own: shown as text, flagged on the message.
        if (typeof data.delta !== 'string' || data.delta === '') return [];
        this.asm.refusal = true;
        return this.asm.text(data.delta, `${key}:${String(data.content_index ?? '')}`);
      case 'response.reasoning_summary_text.delta':
        // Summary parts are paragraphs of their own.
        return typeof data.delta === 'string'
          ? this.asm.thinking(data.delta, `${key}:s${String(data.summary_index ?? '')}`)
          : [];
      case 'response.reasoning_text.delta':
        return typeof data.delta === 'string'
          ? this.asm.thinking(data.delta, `${key}:r${String(data.content_index ?? '')}`)
          : [];
      case 'response.output_item.added': {
        if (item.type !== 'function_call') return [];
        const args = typeof item.arguments === 'string' ? item.arguments : '';
        // A call without call_id gets its final id now, so that its deltas carry it too.
        const call = {
          callId: stringOr(item.call_id) ?? this.asm.newCallId(),
          name: String(item.name ?? ''),
          args,
        };
        this.calls.set(key, call);
        return this.asm.toolCallDelta(call.callId, call.name, args);
      }
      case 'response.function_call_arguments.delta': {
        const call = this.calls.get(key);
        if (!call || typeof data.delta !== 'string') return [];
        call.args += data.delta;
        return this.asm.toolCallDelta(call.callId, call.name, data.delta);
      }
      case 'response.output_item.done': {
        if (item.type !== 'function_call') return [];
        const call = this.calls.get(key);
        this.calls.delete(key);
        const args = typeof item.arguments === 'string' ? item.arguments : (call?.args ?? '');
        const name = String(item.name ?? call?.name ?? '');
        return this.asm.toolCall(call?.callId ?? stringOr(item.call_id), name, args);
      }
      case 'response.completed':
      case 'response.incomplete':
        this.completed = (data.response ?? {}) as Json;
        this.readUsage(this.completed.usage as Json | undefined);
        return [];
      case 'response.failed': {
        const response = (data.response ?? {}) as Json;
        this.readUsage(response.usage as Json | undefined);
        const error = (response.error ?? {}) as Json;
        const message = `response failed: ${String(error.message ?? error.code ?? 'no details')}`;
        const kind = reportedErrorKind(`${String(error.code ?? '')} ${message}`);
        return [{ type: 'error', message, aborted: false, kind }];
      }
      case 'error': {
        const error = (data.error ?? data) as Json;
        const message = String(error.message ?? error.code ?? event.data);
        const kind = reportedErrorKind(`${String(error.code ?? error.type ?? '')} ${message}`);
        return [{ type: 'error', message, aborted: false, kind }];
      }
      default:
        return [];
    }
  }

  private readUsage(usage: Json | undefined): void {
    if (!usage || typeof usage !== 'object') return;
    const details = (usage.input_tokens_details ?? {}) as Json;
    const cached = Number(details.cached_tokens ?? 0) || 0;
    this.asm.sawUsage = true;
    Object.assign(this.asm.usage, {
      input: Math.max(0, (Number(usage.input_tokens) || 0) - cached),
      output: Number(usage.output_tokens) || 0,
      cache_read: cached,
      cache_write: 0,
    });
  }

  finish(): ProviderEvent[] {
    if (!this.completed) {
      const message = 'stream ended before response.completed';
      return [{ type: 'error', message, aborted: false, kind: 'network' }];
    }
    const reason = (this.completed.incomplete_details as Json | null | undefined)?.reason;
    if (reason === 'content_filter') {
      const message = 'response stopped by the content filter';
      return [{ type: 'error', message, aborted: false, kind: 'refusal' }];
    }
    const stop: StopReason =
      reason === 'max_output_tokens' ? 'length' : this.asm.hasToolCalls() ? 'tool_use' : 'end_turn';
    return [{ type: 'done', message: this.asm.message(), stop, usage: { ...this.asm.usage } }];
  }
}

function stringOr(value: unknown): string | undefined {
  return typeof value === 'string' && value ? value : undefined;
}
