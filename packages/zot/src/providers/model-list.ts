// What an OpenAI-compatible server serves: `GET /v1/models`, the list ollama, LM Studio, vLLM
// and llama.cpp all answer. Used by --list-models and to pick a local server's model.
import { parseBoundedJson } from '@zot/protocol/bounds';
import { apiUrl, displayBaseUrl } from '../util/base-url.js';
import { describeError, httpErrorMessage } from './http.js';
import { send, streamIdleMs } from './transport.js';

/**
 * Bounds on what a server may send: the body, the ids kept, one id's length, the whole call
 * (a server that drips bytes never reaches the idle timeout).
 */
export const MODEL_LIST_LIMITS = {
  bodyChars: 4_000_000,
  ids: 1000,
  idChars: 256,
  totalMs: 180_000,
} as const;

export type ServerModels = { ok: true; ids: string[] } | { ok: false; error: string };

/**
 * The model ids `baseUrl` lists, in its order. Ids with control characters or over the length
 * bound are left out (the list comes from a server and is shown in a terminal).
 * Contract: never throws; gives up after `idleMs` without a byte (the stream idle timeout unless
 * given), after the total bound, or when `signal` aborts; an error names the server (without any credentials in its URL) and what went
 * wrong.
 */
export async function listServerModels(
  baseUrl: string,
  apiKey: string | undefined,
  options: { signal?: AbortSignal; idleMs?: number } = {},
): Promise<ServerModels> {
  const where = displayBaseUrl(apiUrl(baseUrl, 'models'));
  try {
    const reply = await send({
      method: 'GET',
      url: apiUrl(baseUrl, 'models'),
      headers: apiKey ? { authorization: `Bearer ${apiKey}` } : {},
      signal: AbortSignal.any([
        AbortSignal.timeout(MODEL_LIST_LIMITS.totalMs),
        ...(options.signal ? [options.signal] : []),
      ]),
      idleMs: options.idleMs ?? streamIdleMs(),
    });
    const body = await reply.text(MODEL_LIST_LIMITS.bodyChars + 1);
    reply.close();
    if (reply.status < 200 || reply.status > 299) {
      return {
        ok: false,
        error: `${where}: ${httpErrorMessage(reply.status, body, reply.headers)}`,
      };
    }
    if (body.length > MODEL_LIST_LIMITS.bodyChars) {
      return {
        ok: false,
        error: `${where}: the list is over ${MODEL_LIST_LIMITS.bodyChars} characters`,
      };
    }
    const parsed = parseBoundedJson(body);
    const data = parsed.ok ? (parsed.value as { data?: unknown } | null)?.data : undefined;
    if (!Array.isArray(data)) {
      return { ok: false, error: `${where}: expected JSON with a "data" list of models` };
    }
    const ids = new Set<string>();
    for (const entry of data) {
      const id = (entry as { id?: unknown } | null)?.id;
      if (typeof id !== 'string' || id === '' || id.length > MODEL_LIST_LIMITS.idChars) continue;
      if (/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(id)) continue;
      ids.add(id);
      if (ids.size >= MODEL_LIST_LIMITS.ids) break;
    }
    return { ok: true, ids: [...ids] };
  } catch (error) {
    return { ok: false, error: `${where}: ${describeError(error)}` };
  }
}
