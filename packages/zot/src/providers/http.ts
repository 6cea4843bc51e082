// One streamed POST: node:http (transport.ts), HTTP and network errors, abort, SSE decoding into ProviderEvents.
import { redactUrlsIn } from '../util/redact.js';
import { SseParser, type SseEvent } from './sse.js';
import { CallEndedError, send, streamIdleMs, type Reply } from './transport.js';
import type { ProviderErrorEvent, ProviderEvent, StreamFn, StreamRequest } from './types.js';
import type { MessageAssembly } from './assemble.js';
import type { ErrorKind } from '../contract/errors.js';
import { httpErrorKind } from './error-kind.js';
import { formatBytes } from '../util/truncate.js';
import { apiUrl } from '../util/base-url.js';

/**
 * One SSE event may hold the whole answer again (a final `response.completed`), JSON-escaped:
 * an event held past this many times the answer limit is no answer of that size.
 */
const EVENT_LIMIT_FACTOR = 4;

/** Turns one wire format's SSE events into provider events. */
export interface WireDecoder {
  readonly asm: MessageAssembly;
  /**
   * Events to yield for one SSE event; an `error` among them ends the stream (its message
   * without the provider prefix, which the runner adds). May throw on a bug.
   */
  onEvent(event: SseEvent): ProviderEvent[];
  /** Events after the body ended cleanly; the last is the final `done` or (unprefixed) `error`. */
  finish(): ProviderEvent[];
}

export interface SseCall {
  /** Names the provider in error messages. */
  provider: string;
  url: string;
  headers: Record<string, string>;
  body: unknown;
  signal: AbortSignal;
  /** Called once the request has been written to the network. */
  onSent?(): void;
}

/**
 * The call of `request` to `path` under its base URL: provider, signal and onSent are passed
 * on alike by every wire format; only the path, headers and body differ.
 */
export function sseCallOf(
  request: StreamRequest,
  path: string,
  headers: Record<string, string>,
  body: unknown,
): SseCall {
  return {
    provider: request.model.provider,
    url: apiUrl(request.baseUrl, path),
    headers,
    body,
    signal: request.signal,
    ...(request.onSent ? { onSent: request.onSent } : {}),
  };
}

/**
 * Runs one streamed model call.
 * Contract: never throws; yields `start` first and ends with exactly one `done` or `error`;
 * an abort of `call.signal` ends it promptly with `aborted: true` and the partial message;
 * a server that sends nothing for the idle timeout (ZOT_STREAM_IDLE_TIMEOUT_MS, default 120 s),
 * or an answer past the size limit (ZOT_STREAM_MAX_BYTES, default 16 MiB), ends it with an
 * error that keeps the partial message, and the response is read no further.
 */
export async function* runSse(call: SseCall, decoder: WireDecoder): AsyncGenerator<ProviderEvent> {
  const { provider, signal } = call;
  /** What streamed before the failure: the partial message and the usage so far. */
  const soFar = () => {
    const partial = decoder.asm.partial();
    const usage = decoder.asm.usageSoFar();
    return { ...(partial ? { partial } : {}), ...(usage ? { usage } : {}) };
  };
  const fail: Fail = (message, kind, status) => ({
    type: 'error',
    // A URL in it (a proxy setting, a server's echo of the request) keeps no credentials.
    message: `${provider}: ${redactUrlsIn(message)}`,
    aborted: false,
    kind,
    ...(status !== undefined ? { status } : {}),
    ...soFar(),
  });
  const aborted = (): ProviderErrorEvent => ({
    type: 'error',
    message: `${provider}: aborted`,
    aborted: true,
    ...soFar(),
  });
  /** The event for a failed request or read: abort, idle timeout or a network error. */
  const failure = (error: unknown, what: string): ProviderErrorEvent => {
    if (signal.aborted || (error instanceof CallEndedError && error.reason === 'aborted')) {
      return aborted();
    }
    if (error instanceof CallEndedError) {
      return fail(`${error.message} (ZOT_STREAM_IDLE_TIMEOUT_MS sets the limit)`, 'network');
    }
    return fail(`${what}: ${describeError(error)}`, 'network');
  };
  let reply: Reply | undefined;
  try {
    yield { type: 'start' };
    if (signal.aborted) {
      yield aborted();
      return;
    }
    try {
      reply = await send({
        method: 'POST',
        url: call.url,
        headers: call.headers,
        body: JSON.stringify(call.body),
        signal,
        idleMs: streamIdleMs(),
        ...(call.onSent ? { onSent: call.onSent } : {}),
      });
    } catch (error) {
      yield failure(error, 'connection failed');
      return;
    }
    if (reply.status < 200 || reply.status > 299) {
      const text = await reply.text();
      const message = httpErrorMessage(reply.status, text, reply.headers);
      yield signal.aborted
        ? aborted()
        : fail(message, httpErrorKind(reply.status, text), reply.status);
      return;
    }
    const parser = new SseParser();
    const limit = decoder.asm.maxBytes;
    const tooLarge = () =>
      fail(
        `the answer passed the ${formatBytes(limit)} limit (text, thinking and tool arguments); ` +
          `stopped reading it and kept what had arrived (ZOT_STREAM_MAX_BYTES sets the limit)`,
        'provider',
      );
    try {
      for await (const chunk of reply.chunks()) {
        for (const event of parser.push(chunk)) {
          const stop = yield* decodeEvent(decoder, event, fail, aborted);
          if (stop) return;
          if (decoder.asm.overflowed) return yield tooLarge();
        }
        if (parser.pendingLength > limit * EVENT_LIMIT_FACTOR) return yield tooLarge();
      }
      for (const event of parser.end()) {
        const stop = yield* decodeEvent(decoder, event, fail, aborted);
        if (stop) return;
        if (decoder.asm.overflowed) return yield tooLarge();
      }
    } catch (error) {
      yield failure(error, 'connection lost');
      return;
    }
    if (signal.aborted) {
      yield aborted();
      return;
    }
    for (const out of decoder.finish()) {
      yield out.type === 'error' ? prefixed(out, fail, aborted) : out;
    }
  } catch (error) {
    // A decoder bug must still end the stream with one error.
    yield fail(`internal error: ${describeError(error)}`, 'internal');
  } finally {
    // A consumer that stops early releases the connection too.
    reply?.close();
  }
}

type Fail = (message: string, kind: ErrorKind, status?: number) => ProviderErrorEvent;

/** A decoder's (unprefixed) error as the stream's: prefixed, with what streamed so far. */
function prefixed(
  out: ProviderErrorEvent,
  fail: Fail,
  aborted: () => ProviderErrorEvent,
): ProviderErrorEvent {
  return out.aborted ? aborted() : fail(out.message, out.kind, out.status);
}

/** Yields one SSE event's provider events; returns true when an error among them ended the stream. */
function* decodeEvent(
  decoder: WireDecoder,
  event: SseEvent,
  fail: Fail,
  aborted: () => ProviderErrorEvent,
): Generator<ProviderEvent, boolean> {
  for (const out of decodeSafely(decoder, event)) {
    if (out.type === 'error') {
      yield prefixed(out, fail, aborted);
      return true;
    }
    yield out;
  }
  return false;
}

function decodeSafely(decoder: WireDecoder, event: SseEvent): ProviderEvent[] {
  try {
    return decoder.onEvent(event);
  } catch (error) {
    const message = `could not handle stream event ${event.event ?? ''}: ${describeError(error)}`;
    return [{ type: 'error', message, aborted: false, kind: 'internal' }];
  }
}

/** `HTTP <status>: <message>` from an error response; the message comes from JSON `error.message` when present. */
export function httpErrorMessage(
  status: number,
  body: string,
  headers: Readonly<Record<string, string | string[] | undefined>>,
): string {
  let detail = extractErrorMessage(body) ?? body.replace(/\s+/g, ' ').trim();
  if (detail.length > 500) detail = `${detail.slice(0, 500)}...`;
  if (!detail) detail = 'no details in the response';
  const header = headers['retry-after'];
  const retryAfter = Array.isArray(header) ? header[0] : header;
  if (retryAfter)
    detail += ` (retry after ${/^\d+$/.test(retryAfter) ? `${retryAfter}s` : retryAfter})`;
  if (status === 401) detail += ' (check the API key)';
  return `HTTP ${status}: ${detail}`;
}

function extractErrorMessage(body: string): string | undefined {
  try {
    const json = JSON.parse(body) as { error?: unknown; message?: unknown };
    const error = json.error;
    if (typeof error === 'string') return error;
    if (error && typeof error === 'object') {
      const message = (error as { message?: unknown }).message;
      if (typeof message === 'string' && message) return message;
    }
    if (typeof json.message === 'string') return json.message;
  } catch {
    // not JSON
  }
  return undefined;
}

/**
 * A one-line description of a fetch failure, following `cause` chains
 * (undici hides the useful part, e.g. `ECONNREFUSED` or `other side closed`, in the cause).
 * Contract: never throws.
 */
export function describeError(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current !== undefined && current !== null && depth < 5; depth++) {
    if (!(current instanceof Error)) {
      parts.push(String(current));
      break;
    }
    let message = current.message;
    if (!message && current instanceof AggregateError && current.errors[0] instanceof Error) {
      message = current.errors[0].message;
    }
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && !message.includes(code)) message += ` (${code})`;
    // `fetch failed` says nothing when a cause follows.
    if (message && !(message === 'fetch failed' && current.cause)) parts.push(message.trim());
    current = current.cause;
  }
  return parts.join(': ') || 'unknown error';
}

/** JSON request headers for OpenAI-style APIs; no Authorization when there is no key (ollama). */
export function bearerHeaders(apiKey: string | undefined): Record<string, string> {
  return {
    'content-type': 'application/json',
    ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}),
  };
}

/**
 * The StreamFn of an OpenAI-style API: POSTs `body(request)` to `path` with the bearer key and
 * decodes the stream with a fresh `decoder()`. Contract: the StreamFn contract.
 */
export function bearerStream(
  path: string,
  body: (request: StreamRequest) => unknown,
  decoder: () => WireDecoder,
): StreamFn {
  return (request) =>
    runSse(sseCallOf(request, path, bearerHeaders(request.apiKey), body(request)), decoder());
}
