// Structural bounds for parsed JSON from untrusted peers. JSON.parse itself is iterative, but
// almost everything after it (JSON.stringify, validators, schema walkers) recurses: a value is
// checked here, without recursion, before any of that code sees it.
import { Buffer } from 'node:buffer';
import { MAX_FRAME_BYTES } from './constants.js';

/**
 * Deepest nesting accepted in a frame, an RPC request or a session line. Generous for real
 * data (a tool schema nesting objects ten levels deep is about 30 levels of JSON) and far
 * below the depth at which recursive code in Node runs out of stack (a few thousand).
 */
export const MAX_JSON_DEPTH = 128;

/**
 * True when `value` nests arrays/objects more than `maxDepth` levels (a scalar is depth 0,
 * `[]` and `{}` are depth 1). Contract: never recurses, never throws, stops at the first
 * level past the limit; linear in the size of the value.
 */
export function exceedsJsonDepth(value: unknown, maxDepth: number = MAX_JSON_DEPTH): boolean {
  if (value === null || typeof value !== 'object') return false;
  const stack: Array<{ value: object; depth: number }> = [{ value, depth: 1 }];
  while (stack.length > 0) {
    const { value: node, depth } = stack.pop()!;
    if (depth > maxDepth) return true;
    const children: unknown[] = Array.isArray(node) ? node : Object.values(node);
    for (const child of children) {
      if (child !== null && typeof child === 'object')
        stack.push({ value: child, depth: depth + 1 });
    }
  }
  return false;
}

/**
 * Bounds on tool-call arguments (from the model, or rewritten by an interceptor), checked before
 * any frame, validator or session line is built from them. Arguments travel a few levels down
 * inside frames (`tool_args`, `args`, `modified_args`), events and session lines, so their depth
 * leaves room under MAX_JSON_DEPTH; the count of values bounds what validation walks; the size
 * keeps every frame that carries them well under the frame limit.
 */
export const MAX_TOOL_ARGS_DEPTH = 64;
export const MAX_TOOL_ARGS_VALUES = 100_000;
export const MAX_TOOL_ARGS_BYTES = 16 * 1024 * 1024;

export interface JsonLimits {
  maxDepth: number;
  /** Most values (objects, arrays and scalars, the root included). */
  maxValues?: number;
  /** Most UTF-8 bytes of the value as JSON (without whitespace). */
  maxBytes?: number;
}

/**
 * The key of the one property that stands in for tool arguments refused at parse time for
 * passing the bounds above; its value says which bound.
 */
export const ARGS_REFUSED_KEY = '__args_refused__';

/** What every frame keeps within, either way: a receiver drops a frame past these. */
export const FRAME_LIMITS: JsonLimits = { maxDepth: MAX_JSON_DEPTH, maxBytes: MAX_FRAME_BYTES };

/** The tool-argument bounds above, as limits for jsonLimitProblem. */
export const TOOL_ARGS_LIMITS: JsonLimits = {
  maxDepth: MAX_TOOL_ARGS_DEPTH,
  maxValues: MAX_TOOL_ARGS_VALUES,
  maxBytes: MAX_TOOL_ARGS_BYTES,
};

function sizeInWords(bytes: number): string {
  if (bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  return bytes % 1024 === 0 ? `${bytes / 1024} KiB` : `${bytes} bytes`;
}

/**
 * What about `value` is past `limits`, in words ("nested deeper than 64 levels", "made of more
 * than 100000 values", "larger than 16 MiB as JSON"), or undefined when it is within them.
 * Contract: never throws, never recurses (JSON.stringify runs only once the depth is known to be
 * within the limit, and only when a cheap upper bound of the size, every character escaped, is
 * over maxBytes); linear in the size of the value; stops at the first limit passed.
 */
export function jsonLimitProblem(value: unknown, limits: JsonLimits): string | undefined {
  const { maxDepth, maxValues = Infinity, maxBytes = Infinity } = limits;
  let values = 1;
  // An upper bound of the encoded size: 6 characters per string character (\u001f), 3 UTF-8
  // bytes at most per character, 24 per number; quotes, colons and commas counted.
  let bound = 0;
  const scalar = (item: unknown) =>
    typeof item === 'string' ? item.length * 6 + 2 : typeof item === 'number' ? 24 : 5;
  if (value === null || typeof value !== 'object') bound = scalar(value);
  else {
    const stack: Array<{ node: object; depth: number }> = [{ node: value, depth: 1 }];
    while (stack.length > 0) {
      const { node, depth } = stack.pop()!;
      if (depth > maxDepth) return `nested deeper than ${maxDepth} levels`;
      const isArray = Array.isArray(node);
      const keys = isArray ? undefined : Object.keys(node);
      const children: unknown[] = isArray ? node : Object.values(node);
      values += children.length;
      if (values > maxValues) return `made of more than ${maxValues} values`;
      bound += 2 + children.length;
      if (keys) for (const key of keys) bound += key.length * 6 + 3;
      for (const child of children) {
        if (child !== null && typeof child === 'object')
          stack.push({ node: child, depth: depth + 1 });
        else bound += scalar(child);
      }
    }
  }
  if (bound <= maxBytes) return undefined;
  let bytes: number;
  try {
    bytes = Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');
  } catch {
    return 'not encodable as JSON';
  }
  return bytes > maxBytes ? `larger than ${sizeInWords(maxBytes)} as JSON` : undefined;
}

/**
 * Fast pre-check on the raw text: each level needs an opening bracket, so a text with no more
 * than `maxDepth` of them (strings' included) cannot nest deeper, and needs no walk. Counted
 * with indexOf, which costs far less than walking the parsed value.
 */
export function mayExceedJsonDepth(text: string, maxDepth: number = MAX_JSON_DEPTH): boolean {
  if (text.length <= 2 * maxDepth) return false;
  let brackets = 0;
  for (const bracket of ['{', '[']) {
    for (let at = text.indexOf(bracket); at !== -1; at = text.indexOf(bracket, at + 1)) {
      if (++brackets > maxDepth) return true;
    }
  }
  return false;
}

/** Parses JSON and rejects values nested past the limit, with a message naming the limit. */
export function parseBoundedJson(
  text: string,
  maxDepth: number = MAX_JSON_DEPTH,
): { ok: true; value: unknown } | { ok: false; error: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, error: `invalid JSON: ${(error as Error).message}` };
  }
  if (mayExceedJsonDepth(text, maxDepth) && exceedsJsonDepth(value, maxDepth)) {
    return { ok: false, error: `JSON nested deeper than ${maxDepth} levels` };
  }
  return { ok: true, value };
}
