// A scripted LLM server over real HTTP that speaks the Anthropic Messages, OpenAI Chat
// Completions and OpenAI Responses streaming formats, for provider, end-to-end and bench tests.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  anthropicStream,
  chatStream,
  formatOf,
  responsesStream,
  sendError,
  type Format,
  type Plan,
} from './fake-llm-streams.js';

export type { Format } from './fake-llm-streams.js';

export interface ScriptedReply {
  /** A string is one stream chunk; an array gives the chunks. */
  text?: string | string[];
  /**
   * Reasoning before the text, in every format (an array gives the chunks): an Anthropic thinking
   * block with a signature, Chat `reasoning_content` (or `reasoningField`) deltas, a Responses
   * reasoning item with summary text deltas.
   */
  thinking?: string | string[];
  /** Chat only: the delta field reasoning streams in (default reasoning_content, DeepSeek's). */
  reasoningField?: 'reasoning_content' | 'reasoning';
  /** `rawArgs` is sent instead of JSON.stringify(args), e.g. to send invalid JSON. */
  toolCalls?: { id?: string; name: string; args: unknown; rawArgs?: string }[];
  /** Default: tool_use when there are tool calls, else end_turn. */
  stop?: 'end_turn' | 'tool_use' | 'length';
  /** The text is a provider refusal (Anthropic stop_reason, Chat and Responses refusal deltas). */
  refusal?: boolean;
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
  /**
   * Each SSE event is written once the client has taken the one before, as TCP paces a real
   * server: a client that stops reading stops the stream (see RecordedRequest.delivered).
   */
  paced?: boolean;
  /** Sends the events up to the first content, then never finishes (abort tests). */
  hang?: boolean;
  /**
   * Awaited after the request arrived and before anything is sent: lets a test make something
   * happen between two requests on an event instead of a timer (e.g. signal an extension and
   * wait for its mark).
   */
  before?: () => Promise<void>;
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** The parsed JSON body (the raw text when it is not JSON). */
  body: any;
  format: Format;
  /**
   * Set when the reply's connection closed: true when the whole reply reached the client,
   * false when the client closed it before reading everything.
   */
  delivered?: boolean;
  /** When it arrived (Date.now(), the clock other processes can stamp with too). */
  at: number;
}

export interface FakeLlm {
  /** `http://127.0.0.1:<port>`, without /v1 (the server accepts both). */
  url: string;
  requests: RecordedRequest[];
  /** Queues replies; they are consumed in order whatever the request's format. */
  script(...replies: ScriptedReply[]): void;
  /** Replies still queued. */
  pending(): number;
  /**
   * Makes GET /v1/models list these ids, as a local server does: to a request without a key as
   * well (a wrong key still gets 401). Until called, the list is empty and needs `good-key`.
   */
  serveModels(ids: string[]): void;
  /** Stops the server, ending hanging streams and open connections. */
  close(): Promise<void>;
}

/**
 * Starts the server on 127.0.0.1 with a random port.
 * Contract: an unscripted request gets HTTP 500 `fake-llm: no scripted reply left`.
 */
/** Resolves on the response's next 'drain' or its 'close'. */
function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

export async function startFakeLlm(): Promise<FakeLlm> {
  const queue: ScriptedReply[] = [];
  const requests: RecordedRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();
  let seq = 0;
  let closed = false;
  let served: string[] | undefined;

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        timers.delete(timer);
        resolve();
      }, ms);
      timers.add(timer);
    });

  async function reply(req: IncomingMessage, res: ServerResponse, format: Format, body: any) {
    const scripted = queue.shift();
    if (!scripted) return sendError(res, format, 500, 'fake-llm: no scripted reply left');
    if (scripted.before) await scripted.before();
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
      thinking: typeof scripted.thinking === 'string' ? [scripted.thinking] : scripted.thinking,
      reasoningField: scripted.reasoningField ?? 'reasoning_content',
      calls,
      stop: scripted.stop ?? (calls.length > 0 ? 'tool_use' : 'end_turn'),
      refusal: scripted.refusal,
      usage: {
        input: u.input ?? 10,
        output: u.output ?? 5,
        cache_read: u.cache_read ?? 0,
        cache_write: u.cache_write ?? 0,
      },
      seq,
      includeUsage: body?.stream_options?.include_usage === true,
    };
    const build = {
      anthropic: anthropicStream,
      'openai-chat': chatStream,
      'openai-responses': responsesStream,
    };
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
      if (!res.write(frame) && scripted.paced) await drained(res);
    }
    if (!scripted.hang) res.end();
  }

  const server = createServer((req, res) => {
    const at = Date.now();
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
      // The key check of /login: a model list that accepts only the key `good-key`.
      if (req.method === 'GET' && /\/v1\/models$/.test(path)) {
        const auth = String(req.headers['x-api-key'] ?? req.headers.authorization ?? '');
        const ok = auth === 'good-key' || auth === 'Bearer good-key' || (!!served && !auth);
        requests.push({
          method: 'GET',
          path,
          headers: { ...req.headers },
          body: '',
          format: 'anthropic',
          at,
        });
        res.writeHead(ok ? 200 : 401, { 'content-type': 'application/json' });
        const list = {
          object: 'list',
          data: (served ?? []).map((id) => ({ id, object: 'model' })),
        };
        return void res.end(
          ok ? JSON.stringify(list) : '{"error":{"message":"invalid x-api-key"}}',
        );
      }
      if (!format) {
        res.writeHead(404, { 'content-type': 'application/json' });
        return void res.end(
          JSON.stringify({ error: { message: `fake-llm: unknown path ${path}` } }),
        );
      }
      const recorded: RecordedRequest = {
        method: req.method ?? '',
        path,
        headers: { ...req.headers },
        body,
        format,
        at,
      };
      requests.push(recorded);
      res.once('close', () => (recorded.delivered = res.writableFinished));
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
    serveModels: (ids) => void (served = [...ids]),
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
// The command-line flags that point zot at a fake LLM server (Anthropic format, a dummy key).
export function fakeLlmFlags(url: string): string[] {
  return ['--provider', 'anthropic', '--base-url', url, '--api-key', 'k'];
}
