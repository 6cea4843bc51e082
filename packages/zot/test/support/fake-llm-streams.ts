// The three streaming wire formats of the fake LLM server, byte-faithful to the real APIs.
import type { ServerResponse } from 'node:http';

export type Format = 'anthropic' | 'openai-chat' | 'openai-responses';
type Json = Record<string, unknown>;
export type Usage = { input: number; output: number; cache_read: number; cache_write: number };

export function formatOf(path: string): Format | undefined {
  const p = (path.split('?')[0] ?? '').replace(/\/+$/, '');
  if (p.endsWith('/messages')) return 'anthropic';
  if (p.endsWith('/chat/completions')) return 'openai-chat';
  if (p.endsWith('/responses')) return 'openai-responses';
  return undefined;
}

/** Splits a string into about three pieces, so that arguments arrive across deltas. */
function pieces(text: string): string[] {
  const size = Math.max(1, Math.ceil(text.length / 3));
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

/** The SSE events of one reply, and how many of them a `hang` reply sends. */
export interface Stream {
  frames: string[];
  hangAfter: number;
}

class Builder {
  readonly frames: string[] = [];
  firstContent = -1;
  constructor(private readonly named: boolean) {}
  add(data: Json | string, content = false): void {
    if (content && this.firstContent < 0) this.firstContent = this.frames.length;
    const payload = typeof data === 'string' ? data : JSON.stringify(data);
    const name = this.named && typeof data !== 'string' ? `event: ${String(data.type)}\n` : '';
    this.frames.push(`${name}data: ${payload}\n\n`);
  }
  done(): Stream {
    return { frames: this.frames, hangAfter: this.firstContent >= 0 ? this.firstContent + 1 : 1 };
  }
}

export interface Plan {
  model: string;
  chunks: string[];
  thinking?: string[] | undefined;
  reasoningField: 'reasoning_content' | 'reasoning';
  calls: { id: string; name: string; args: string }[];
  stop: 'end_turn' | 'tool_use' | 'length';
  /** The text is a refusal, in each format's way of saying so. */
  refusal?: boolean | undefined;
  usage: Usage;
  seq: number;
  includeUsage: boolean;
}

export function anthropicStream(p: Plan): Stream {
  const b = new Builder(true);
  const usage = {
    input_tokens: p.usage.input,
    cache_creation_input_tokens: p.usage.cache_write,
    cache_read_input_tokens: p.usage.cache_read,
    output_tokens: 1,
  };
  const message = { id: `msg_fake_${p.seq}`, type: 'message', role: 'assistant', model: p.model };
  const empty = { content: [], stop_reason: null, stop_sequence: null };
  b.add({ type: 'message_start', message: { ...message, ...empty, usage } });
  b.add({ type: 'ping' });
  let index = 0;
  const delta = (d: Json) => b.add({ type: 'content_block_delta', index, delta: d }, true);
  const block = (content_block: Json, body: () => void) => {
    b.add({ type: 'content_block_start', index, content_block });
    body();
    b.add({ type: 'content_block_stop', index });
    index++;
  };
  if (p.thinking !== undefined) {
    block({ type: 'thinking', thinking: '', signature: '' }, () => {
      for (const thinking of p.thinking ?? []) delta({ type: 'thinking_delta', thinking });
      delta({ type: 'signature_delta', signature: `sig_fake_${p.seq}` });
    });
  }
  if (p.chunks.length > 0) {
    block({ type: 'text', text: '' }, () => {
      for (const text of p.chunks) delta({ type: 'text_delta', text });
    });
  }
  for (const call of p.calls) {
    block({ type: 'tool_use', id: call.id, name: call.name, input: {} }, () => {
      // The empty first piece the API sends carries no content: a `hang` reply stops after the
      // first real piece of the arguments.
      b.add({
        type: 'content_block_delta',
        index,
        delta: { type: 'input_json_delta', partial_json: '' },
      });
      for (const partial_json of pieces(call.args))
        delta({ type: 'input_json_delta', partial_json });
    });
  }
  const stop_reason = p.refusal
    ? 'refusal'
    : { end_turn: 'end_turn', tool_use: 'tool_use', length: 'max_tokens' }[p.stop];
  b.add({
    type: 'message_delta',
    delta: { stop_reason, stop_sequence: null },
    usage: { output_tokens: p.usage.output },
  });
  b.add({ type: 'message_stop' });
  return b.done();
}

export function chatStream(p: Plan): Stream {
  const b = new Builder(false);
  const head = {
    id: `chatcmpl-fake${p.seq}`,
    object: 'chat.completion.chunk',
    created: 1700000000,
  };
  const meta = { ...head, model: p.model, system_fingerprint: 'fp_fake' };
  const extra = p.includeUsage ? { usage: null } : {};
  const chunk = (delta: Json, finish_reason: string | null = null, content = false) =>
    b.add(
      { ...meta, choices: [{ index: 0, delta, logprobs: null, finish_reason }], ...extra },
      content,
    );
  chunk({ role: 'assistant', content: '', refusal: null });
  for (const piece of p.thinking ?? []) chunk({ [p.reasoningField]: piece }, null, true);
  for (const content of p.chunks) chunk(p.refusal ? { refusal: content } : { content }, null, true);
  p.calls.forEach((call, index) => {
    const fn = { name: call.name, arguments: '' };
    chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: fn }] }, null, true);
    for (const args of pieces(call.args)) {
      chunk({ tool_calls: [{ index, function: { arguments: args } }] });
    }
  });
  chunk({}, { end_turn: 'stop', tool_use: 'tool_calls', length: 'length' }[p.stop]);
  if (p.includeUsage) {
    const prompt = p.usage.input + p.usage.cache_read;
    const usage = {
      prompt_tokens: prompt,
      completion_tokens: p.usage.output,
      total_tokens: prompt + p.usage.output,
      prompt_tokens_details: { cached_tokens: p.usage.cache_read, audio_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0 },
    };
    b.add({ ...meta, choices: [], usage });
  }
  b.add('[DONE]');
  return b.done();
}

export function responsesStream(p: Plan): Stream {
  const b = new Builder(true);
  let sequence_number = 0;
  const add = (data: Json, content = false) =>
    b.add({ ...data, sequence_number: sequence_number++ }, content);
  const response = (
    status: string,
    output: Json[],
    usage: Json | null,
    incomplete: Json | null,
  ) => ({
    id: `resp_fake_${p.seq}`,
    object: 'response',
    created_at: 1700000000,
    status,
    error: null,
    incomplete_details: incomplete,
    model: p.model,
    output,
    store: false,
    usage,
  });
  add({ type: 'response.created', response: response('in_progress', [], null, null) });
  add({ type: 'response.in_progress', response: response('in_progress', [], null, null) });
  const output: Json[] = [];
  if (p.thinking !== undefined) {
    const output_index = output.length;
    const item_id = `rs_fake_${p.seq}`;
    const text = p.thinking.join('');
    const ids = { item_id, output_index, summary_index: 0 };
    const part = (t: string) => ({ type: 'summary_text', text: t });
    const item = (summary: Json[]) => ({ id: item_id, type: 'reasoning', summary });
    add({ type: 'response.output_item.added', output_index, item: item([]) });
    add({ type: 'response.reasoning_summary_part.added', ...ids, part: part('') });
    for (const delta of p.thinking)
      add({ type: 'response.reasoning_summary_text.delta', ...ids, delta }, true);
    add({ type: 'response.reasoning_summary_text.done', ...ids, text });
    add({ type: 'response.reasoning_summary_part.done', ...ids, part: part(text) });
    add({ type: 'response.output_item.done', output_index, item: item([part(text)]) });
    output.push(item([part(text)]));
  }
  if (p.chunks.length > 0) {
    const output_index = output.length;
    const item_id = `msg_fake_${p.seq}`;
    const text = p.chunks.join('');
    const ids = { item_id, output_index, content_index: 0 };
    const part = (t: string) => ({ type: 'output_text', annotations: [], logprobs: [], text: t });
    const item = (status: string, content: Json[]) => ({
      id: item_id,
      type: 'message',
      status,
      content,
      role: 'assistant',
    });
    add({ type: 'response.output_item.added', output_index, item: item('in_progress', []) });
    add({ type: 'response.content_part.added', ...ids, part: part('') });
    for (const delta of p.chunks)
      add(
        p.refusal
          ? { type: 'response.refusal.delta', ...ids, delta }
          : { type: 'response.output_text.delta', ...ids, delta, logprobs: [] },
        true,
      );
    add({ type: 'response.output_text.done', ...ids, text, logprobs: [] });
    add({ type: 'response.content_part.done', ...ids, part: part(text) });
    const done = item('completed', [part(text)]);
    add({ type: 'response.output_item.done', output_index, item: done });
    output.push(done);
  }
  p.calls.forEach((call, n) => {
    const output_index = output.length;
    const item_id = `fc_fake_${p.seq}_${n}`;
    const item = (status: string, args: string) => ({
      id: item_id,
      type: 'function_call',
      status,
      arguments: args,
      call_id: call.id,
      name: call.name,
    });
    add({ type: 'response.output_item.added', output_index, item: item('in_progress', '') }, true);
    for (const delta of pieces(call.args)) {
      add({ type: 'response.function_call_arguments.delta', item_id, output_index, delta });
    }
    add({
      type: 'response.function_call_arguments.done',
      item_id,
      output_index,
      arguments: call.args,
    });
    add({ type: 'response.output_item.done', output_index, item: item('completed', call.args) });
    output.push(item('completed', call.args));
  });
  const usage = {
    input_tokens: p.usage.input + p.usage.cache_read,
    input_tokens_details: { cached_tokens: p.usage.cache_read },
    output_tokens: p.usage.output,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: p.usage.input + p.usage.cache_read + p.usage.output,
  };
  if (p.stop === 'length') {
    const final = response('incomplete', output, usage, { reason: 'max_output_tokens' });
    add({ type: 'response.incomplete', response: final });
  } else {
    add({ type: 'response.completed', response: response('completed', output, usage, null) });
  }
  return b.done();
}

const ANTHROPIC_ERRORS: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  429: 'rate_limit_error',
  529: 'overloaded_error',
};

/** An HTTP error reply in the format's own error shape. */
export function sendError(
  res: ServerResponse,
  format: Format,
  status: number,
  message: string,
  headers = {},
) {
  let body: Json;
  if (format === 'anthropic') {
    body = { type: 'error', error: { type: ANTHROPIC_ERRORS[status] ?? 'api_error', message } };
  } else {
    const type =
      status === 429
        ? 'rate_limit_exceeded'
        : status < 500
          ? 'invalid_request_error'
          : 'server_error';
    body = { error: { message, type, param: null, code: null } };
  }
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}
