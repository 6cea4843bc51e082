// One streamed POST: fetch, HTTP and network errors, abort, SSE decoding into ProviderEvents.
import { abortable, parseSse, type SseEvent } from './sse.js';
import type { ProviderErrorEvent, ProviderEvent } from './types.js';
import type { MessageAssembly } from './assemble.js';

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
}

/**
 * Runs one streamed model call.
 * Contract: never throws; yields `start` first and ends with exactly one `done` or `error`;
 * an abort of `call.signal` ends it promptly with `aborted: true` and the partial message.
 */
export async function* runSse(call: SseCall, decoder: WireDecoder): AsyncGenerator<ProviderEvent> {
  const { provider, signal } = call;
  const fail = (message: string, extra: Partial<ProviderErrorEvent> = {}): ProviderErrorEvent => {
    const event: ProviderErrorEvent = {
      type: 'error',
      message: `${provider}: ${message}`,
      aborted: false,
    };
    const partial = decoder.asm.partial();
    const usage = decoder.asm.usageSoFar();
    if (partial) event.partial = partial;
    if (usage) event.usage = usage;
    return { ...event, ...extra };
  };
  const aborted = () => fail('aborted', { aborted: true });
  // Our own controller, so that a consumer that stops early also releases the connection.
  const controller = new AbortController();
  const onAbort = () => controller.abort();
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    yield { type: 'start' };
    if (signal.aborted) {
      yield aborted();
      return;
    }
    let response: Response;
    try {
      const init = { method: 'POST', headers: call.headers, body: JSON.stringify(call.body) };
      response = await abortable(fetch(call.url, { ...init, signal: controller.signal }), signal);
    } catch (error) {
      yield signal.aborted ? aborted() : fail(`connection failed: ${describeError(error)}`);
      return;
    }
    if (!response.ok) {
      const text = await abortable(response.text(), signal).catch(() => '');
      const message = httpErrorMessage(response.status, text, response.headers);
      yield signal.aborted ? aborted() : fail(message, { status: response.status });
      return;
    }
    if (!response.body) {
      yield fail('response has no body');
      return;
    }
    try {
      for await (const event of parseSse(response.body, signal)) {
        for (const out of decodeSafely(decoder, event)) {
          if (out.type === 'error') {
            yield fail(out.message, out.status === undefined ? {} : { status: out.status });
            return;
          }
          yield out;
        }
      }
    } catch (error) {
      yield signal.aborted ? aborted() : fail(`connection lost: ${describeError(error)}`);
      return;
    }
    if (signal.aborted) {
      yield aborted();
      return;
    }
    for (const out of decoder.finish()) {
      yield out.type === 'error' ? fail(out.message) : out;
    }
  } catch (error) {
    // A decoder bug must still end the stream with one error.
    yield fail(`internal error: ${describeError(error)}`);
  } finally {
    signal.removeEventListener('abort', onAbort);
    controller.abort();
  }
}

function decodeSafely(decoder: WireDecoder, event: SseEvent): ProviderEvent[] {
  try {
    return decoder.onEvent(event);
  } catch (error) {
    const message = `could not handle stream event ${event.event ?? ''}: ${describeError(error)}`;
    return [{ type: 'error', message, aborted: false }];
  }
}

/** `HTTP <status>: <message>` from an error response; the message comes from JSON `error.message` when present. */
export function httpErrorMessage(status: number, body: string, headers: Headers): string {
  let detail = extractErrorMessage(body) ?? body.replace(/\s+/g, ' ').trim();
  if (detail.length > 500) detail = `${detail.slice(0, 500)}...`;
  if (!detail) detail = 'no details in the response';
  const retryAfter = headers.get('retry-after');
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
