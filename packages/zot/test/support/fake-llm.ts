// A scripted LLM server over real HTTP that speaks the Anthropic Messages, OpenAI Chat
// Completions and OpenAI Responses streaming formats, for provider, end-to-end and bench tests.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ScriptedReply {
  /** A string is one stream chunk; an array gives the chunks. */
  text?: string | string[];
  /** Anthropic only: a thinking block (with a signature) before the text. */
  thinking?: string;
  /** `rawArgs` is sent instead of JSON.stringify(args), e.g. to send invalid JSON. */
  toolCalls?: { id?: string; name: string; args: unknown; rawArgs?: string }[];
  /** Default: tool_use when there are tool calls, else end_turn. */
  stop?: 'end_turn' | 'tool_use' | 'length';
  /** Default: input 10, output 5, no cache. */
  usage?: { input?: number; output?: number; cache_read?: number; cache_write?: number };
  /** An HTTP error reply with this status, in the format's error shape. */
  status?: number;
  errorMessage?: string;
  headers?: Record<string, string>;
  /** Destroys the socket without a response. */
  resetConnection?: boolean;
  /** Delay between SSE events. */
  chunkDelayMs?: number;
  /** Sends the events up to the first content, then never finishes (abort tests). */
  hang?: boolean;
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** The parsed JSON body (the raw text when it is not JSON). */
  body: any;
  format: Format;
}

export interface FakeLlm {
  /** `http://127.0.0.1:<port>`, without /v1 (the server accepts both). */
  url: string;
  requests: RecordedRequest[];
  /** Queues replies; they are consumed in order whatever the request's format. */
  script(...replies: ScriptedReply[]): void;
  /** Replies still queued. */
  pending(): number;
  /** Stops the server, ending hanging streams and open connections. */
  close(): Promise<void>;
}

type Format = 'anthropic' | 'openai-chat' | 'openai-responses';
type Json = Record<string, unknown>;
type Usage = { input: number; output: number; cache_read: number; cache_write: number };

function formatOf(path: string): Format | undefined {
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
interface Stream {
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

interface Plan {
  model: string;
  chunks: string[];
  thinking?: string | undefined;
  calls: { id: string; name: string; args: string }[];
  stop: 'end_turn' | 'tool_use' | 'length';
  usage: Usage;
  seq: number;
  includeUsage: boolean;
}

function anthropicStream(p: Plan): Stream {
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
      delta({ type: 'thinking_delta', thinking: p.thinking });
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
      delta({ type: 'input_json_delta', partial_json: '' });
      for (const partial_json of pieces(call.args)) delta({ type: 'input_json_delta', partial_json });
    });
  }
  const stop_reason = { end_turn: 'end_turn', tool_use: 'tool_use', length: 'max_tokens' }[p.stop];
  b.add({
    type: 'message_delta',
    delta: { stop_reason, stop_sequence: null },
    usage: { output_tokens: p.usage.output },
  });
  b.add({ type: 'message_stop' });
  return b.done();
}

function chatStream(p: Plan): Stream {
  const b = new Builder(false);
  const head = { id: `chatcmpl-fake${p.seq}`, object: 'chat.completion.chunk', created: 1700000000 };
  const meta = { ...head, model: p.model, system_fingerprint: 'fp_fake' };
  const extra = p.includeUsage ? { usage: null } : {};
  const chunk = (delta: Json, finish_reason: string | null = null, content = false) =>
    b.add({ ...meta, choices: [{ index: 0, delta, logprobs: null, finish_reason }], ...extra }, content);
  chunk({ role: 'assistant', content: '', refusal: null });
  for (const content of p.chunks) chunk({ content }, null, true);
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

function responsesStream(p: Plan): Stream {
  const b = new Builder(true);
  let sequence_number = 0;
  const add = (data: Json, content = false) => b.add({ ...data, sequence_number: sequence_number++ }, content);
  const response = (status: string, output: Json[], usage: Json | null, incomplete: Json | null) => ({
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
  if (p.chunks.length > 0) {
    const output_index = output.length;
    const item_id = `msg_fake_${p.seq}`;
    const text = p.chunks.join('');
    const ids = { item_id, output_index, content_index: 0 };
    const part = (t: string) => ({ type: 'output_text', annotations: [], logprobs: [], text: t });
    const item = (status: string, content: Json[]) => ({ id: item_id, type: 'message', status, content, role: 'assistant' });
    add({ type: 'response.output_item.added', output_index, item: item('in_progress', []) });
    add({ type: 'response.content_part.added', ...ids, part: part('') });
    for (const delta of p.chunks) add({ type: 'response.output_text.delta', ...ids, delta, logprobs: [] }, true);
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
    add({ type: 'response.function_call_arguments.done', item_id, output_index, arguments: call.args });
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

function errorBody(format: Format, status: number, message: string): Json {
  if (format === 'anthropic') {
    const types: Record<number, string> = {
      400: 'invalid_request_error',
      401: 'authentication_error',
      403: 'permission_error',
      404: 'not_found_error',
      429: 'rate_limit_error',
      529: 'overloaded_error',
    };
    return { type: 'error', error: { type: types[status] ?? 'api_error', message } };
  }
  const type = status === 429 ? 'rate_limit_exceeded' : status < 500 ? 'invalid_request_error' : 'server_error';
  return { error: { message, type, param: null, code: null } };
}

/**
 * Starts the server on 127.0.0.1 with a random port.
 * Contract: an unscripted request gets HTTP 500 `fake-llm: no scripted reply left`.
 */
export async function startFakeLlm(): Promise<FakeLlm> {
  const queue: ScriptedReply[] = [];
  const requests: RecordedRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();
  let seq = 0;
  let closed = false;

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        timers.delete(timer);
        resolve();
      }, ms);
      timers.add(timer);
    });

  const sendError = (res: ServerResponse, format: Format, status: number, message: string, headers = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(errorBody(format, status, message)));
  };

  async function reply(req: IncomingMessage, res: ServerResponse, format: Format, body: any) {
    const scripted = queue.shift();
    if (!scripted) return sendError(res, format, 500, 'fake-llm: no scripted reply left');
    if (scripted.resetConnection) return void req.socket.destroy();
    if (scripted.status !== undefined) {
      const message = scripted.errorMessage ?? `fake-llm: scripted HTTP ${scripted.status}`;
      return sendError(res, format, scripted.status, message, scripted.headers);
    }
    seq++;
    const calls = (scripted.toolCalls ?? []).map((c, n) => ({
      id: c.id ?? (format === 'anthropic' ? `toolu_fake_${seq}_${n}` : `call_fake_${seq}_${n}`),
      name: c.name,
      args: c.rawArgs ?? JSON.stringify(c.args),
    }));
    const text = scripted.text;
    const u = scripted.usage ?? {};
    const plan: Plan = {
      model: typeof body?.model === 'string' ? body.model : 'fake-model',
      chunks: text === undefined ? [] : Array.isArray(text) ? text : [text],
      thinking: scripted.thinking,
      calls,
      stop: scripted.stop ?? (calls.length > 0 ? 'tool_use' : 'end_turn'),
      usage: { input: u.input ?? 10, output: u.output ?? 5, cache_read: u.cache_read ?? 0, cache_write: u.cache_write ?? 0 },
      seq,
      includeUsage: body?.stream_options?.include_usage === true,
    };
    const build = { anthropic: anthropicStream, 'openai-chat': chatStream, 'openai-responses': responsesStream };
    const stream = build[format](plan);
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      ...scripted.headers,
    });
    const frames = scripted.hang ? stream.frames.slice(0, stream.hangAfter) : stream.frames;
    for (const [i, frame] of frames.entries()) {
      if (closed || res.destroyed) return;
      if (i > 0 && scripted.chunkDelayMs) await sleep(scripted.chunkDelayMs);
      if (closed || res.destroyed) return;
      res.write(frame);
    }
    if (!scripted.hang) res.end();
  }

  const server = createServer((req, res) => {
    res.on('error', () => {});
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => {
      const path = req.url ?? '/';
      const format = formatOf(path);
      const text = Buffer.concat(parts).toString('utf8');
      let body: any = text;
      try {
        body = JSON.parse(text);
      } catch {
        // keep the raw text
      }
      if (!format) {
        res.writeHead(404, { 'content-type': 'application/json' });
        return void res.end(JSON.stringify({ error: { message: `fake-llm: unknown path ${path}` } }));
      }
      requests.push({ method: req.method ?? '', path, headers: { ...req.headers }, body, format });
      reply(req, res, format, body).catch(() => res.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    script: (...replies) => void queue.push(...replies),
    pending: () => queue.length,
    close: async () => {
      closed = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      const done = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await done;
    },
  };
}
