// Silent retries of transient failures before any output reached the consumer.
import { setTimeout as delay } from 'node:timers/promises';
import type { ProviderErrorEvent, ProviderEvent, StreamFn, StreamRequest } from './types.js';

const RETRY_STATUS = new Set([502, 503, 504, 529]); // 529: Anthropic "overloaded"
// EPIPE: the request was written into a kept-alive connection the server had just closed (its
// idle timeout), so the server never read it; the same as ECONNRESET for a retry.
const RETRY_NETWORK =
  /ECONNRESET|EPIPE|socket hang up|terminated|UND_ERR_SOCKET|other side closed/i;

/** Whether an error is worth a silent retry: a gateway/overload status or a dropped connection. */
export function isTransient(event: ProviderErrorEvent): boolean {
  if (event.aborted) return false;
  if (event.status !== undefined) return RETRY_STATUS.has(event.status);
  return RETRY_NETWORK.test(event.message);
}

/**
 * Wraps a StreamFn with up to `delaysMs.length` silent retries (after 250 ms, then 750 ms).
 * Contract: retries only while nothing but `start` has been yielded, so the consumer never
 * sees output twice; yields `start` once; the delay ends at once on abort; never throws.
 */
export function withRetry(stream: StreamFn, delaysMs: readonly number[] = [250, 750]): StreamFn {
  return (request) => retrying(stream, request, delaysMs);
}

async function* retrying(
  stream: StreamFn,
  request: StreamRequest,
  delaysMs: readonly number[],
): AsyncGenerator<ProviderEvent> {
  let startYielded = false;
  let final = false;
  try {
    for (let attempt = 0; ; attempt++) {
      let onlyStart = true;
      let retry = false;
      for await (const event of stream(request)) {
        if (event.type === 'start') {
          if (!startYielded) yield event;
          startYielded = true;
          continue;
        }
        if (
          event.type === 'error' &&
          onlyStart &&
          attempt < delaysMs.length &&
          isTransient(event)
        ) {
          retry = true;
          break;
        }
        onlyStart = false;
        final = event.type === 'done' || event.type === 'error';
        yield event;
      }
      if (!retry) break;
      if (!(await sleep(delaysMs[attempt] ?? 0, request.signal))) {
        final = true;
        yield abortedError(request);
        return;
      }
    }
    if (!final) {
      final = true;
      yield {
        type: 'error',
        message: `${request.model.provider}: stream ended without a result`,
        aborted: false,
        kind: 'internal',
      };
    }
  } catch (error) {
    // The wrapped stream broke its contract; keep ours.
    if (!final) {
      const message = `${request.model.provider}: ${String(error)}`;
      yield request.signal.aborted
        ? { type: 'error', message, aborted: true }
        : { type: 'error', message, aborted: false, kind: 'internal' };
    }
  }
}

function abortedError(request: StreamRequest): ProviderErrorEvent {
  return { type: 'error', message: `${request.model.provider}: aborted`, aborted: true };
}

/** Resolves true after `ms`, or false as soon as `signal` aborts (Node clears the timer). */
function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  return delay(ms, true, { signal }).catch(() => false);
}
