// JSON text that JSON.stringify cannot write: duplicated keys, raw tokens such as 1e309, -0 or
// NaN, raw control characters. A tree of plain values plus two node kinds, serialised by hand.

/** Emitted verbatim (may be invalid JSON on purpose). */
export class Raw {
  constructor(readonly text: string) {}
}

/** An object written with these entries in order, duplicates included. */
export class Entries {
  constructor(readonly entries: ReadonlyArray<readonly [string, Tree]>) {}
}

export type Tree =
  | null
  | boolean
  | number
  | string
  | Raw
  | Entries
  | readonly Tree[]
  | { readonly [key: string]: Tree };

/** Serialises a tree. Recursive: trees stay shallow; deep nesting is built as text instead. */
export function serialize(tree: Tree): string {
  if (tree instanceof Raw) return tree.text;
  if (tree instanceof Entries) {
    return `{${tree.entries.map(([k, v]) => `${JSON.stringify(k)}:${serialize(v)}`).join(',')}}`;
  }
  if (Array.isArray(tree)) return `[${tree.map(serialize).join(',')}]`;
  if (tree !== null && typeof tree === 'object') {
    // Own keys, `__proto__` included (JSON.parse makes it an own property too).
    const keys = Object.keys(tree);
    const record = tree as { readonly [key: string]: Tree };
    return `{${keys.map((k) => `${JSON.stringify(k)}:${serialize(record[k]!)}`).join(',')}}`;
  }
  return JSON.stringify(tree) ?? 'null';
}

/** An object whose keys may include `__proto__` as an own key (a literal would set the prototype). */
export function record(entries: ReadonlyArray<readonly [string, Tree]>): Record<string, Tree> {
  const out: Record<string, Tree> = {};
  for (const [key, value] of entries) {
    Object.defineProperty(out, key, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

/**
 * `depth` levels of nesting around `inner`, as text (no recursion at any depth): each level is
 * `open` ... `close`, e.g. `{"a":` and `}`, or `[` and `]`.
 */
export function nest(depth: number, inner: string, open: string, close: string): string {
  return open.repeat(depth) + inner + close.repeat(depth);
}
