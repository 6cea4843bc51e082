// Structural bounds for parsed JSON from untrusted peers. JSON.parse itself is iterative, but
// almost everything after it (JSON.stringify, validators, schema walkers) recurses: a value is
// checked here, without recursion, before any of that code sees it.

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
 * Fast pre-check on the raw text: a line shorter than this many characters cannot nest deeper
 * than the limit (each level needs an opening and a closing bracket), so it needs no walk.
 */
export function mayExceedJsonDepth(text: string, maxDepth: number = MAX_JSON_DEPTH): boolean {
  return text.length > 2 * maxDepth;
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
