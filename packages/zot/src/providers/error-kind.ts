// What kind of failure a provider reported, from its HTTP status or its error's type, code and
// text: the words differ between providers and servers, so the patterns cover the ones seen
// (Anthropic, OpenAI, Moonshot, vLLM, llama.cpp, Ollama, LM Studio).
import type { ErrorKind } from '../contract/errors.js';

const CONTEXT_OVERFLOW =
  /context_length_exceeded|context[ _-]?(length|window|size)|maximum context|prompt is too long|too many tokens|input is too long|exceeds? the (?:model'?s? )?(?:available )?context|context.{0,20}overflow/i;
const RATE_LIMIT = /rate[ _-]?limit|too many requests|quota/i;
const AUTH =
  /authentication_error|permission_error|invalid[ _-]api[ _-]key|incorrect api key|unauthori[sz]ed/i;

/** Reads only this much of a body: the words that say what went wrong come first. */
const CLASSIFY_CHARS = 4096;

/** An error the provider reported inside its stream (its type or code and its message). */
export function reportedErrorKind(text: string): ErrorKind {
  const head = text.slice(0, CLASSIFY_CHARS);
  if (CONTEXT_OVERFLOW.test(head)) return 'context_overflow';
  if (RATE_LIMIT.test(head)) return 'rate_limit';
  if (AUTH.test(head)) return 'auth';
  return 'provider';
}

/** An HTTP error response: the status decides, and the body tells a context overflow apart. */
export function httpErrorKind(status: number, body: string): ErrorKind {
  if (status === 401 || status === 403) return 'auth';
  if (status === 429) return 'rate_limit';
  if (status >= 400 && status < 500 && CONTEXT_OVERFLOW.test(body.slice(0, CLASSIFY_CHARS)))
    return 'context_overflow';
  return 'provider';
}
