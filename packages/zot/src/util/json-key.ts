// JSON equality in linear time: each value gets a key string that two values share exactly when
// they are equal as JSON (deep; the order of object keys ignored). `uniqueItems` and `enum`
// then cost one hash lookup per item, where a pairwise deep comparison costs n² (40,000 items:
// seconds of a blocked event loop). Also the runtime of the generated validators (their
// standalone code imports this module's default export).

type Json = Record<string, unknown>;

/** Sorted-key copies of objects, so that key order does not matter. */
function sortedKeys(_key: string, value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  // A null prototype: a "__proto__" key stays a key, not a prototype.
  const sorted: Json = Object.create(null) as Json;
  for (const key of Object.keys(value).sort()) sorted[key] = (value as Json)[key];
  return sorted;
}

/**
 * The key of a JSON value. Contract: equal keys exactly for values that are equal as JSON (1 and
 * 1.0, 0 and -0 are; "1" and 1 are not); never calls a method of the value (a `valueOf` or
 * `toJSON` key is data); recurses as deep as the value, whose depth its caller has bounded.
 */
export function jsonKey(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return `s${value}`;
    case 'number':
      return `n${value}`; // -0 prints as 0, as JSON.stringify writes it
    case 'boolean':
      return value ? 't' : 'f';
    default:
      if (value === null) return 'z';
      return `j${JSON.stringify(value, sortedKeys)}`;
  }
}

/** Indices [i, j] (j < i) of two equal items, or undefined when all differ. Linear. */
export function findDuplicate(items: readonly unknown[]): [number, number] | undefined {
  const seen = new Map<string, number>();
  for (let i = 0; i < items.length; i++) {
    const key = jsonKey(items[i]);
    const j = seen.get(key);
    if (j !== undefined) return [i, j];
    seen.set(key, i);
  }
  return undefined;
}

/** The keys of an `enum`'s values, for `enumHas`. */
export function enumKeys(values: readonly unknown[]): Set<string> {
  return new Set(values.map(jsonKey));
}

/** Whether `value` equals one of the values `keys` was made from. */
export function enumHas(keys: ReadonlySet<string>, value: unknown): boolean {
  return keys.has(jsonKey(value));
}

/** For generated validators: `require("../../util/json-key").findDuplicate` and so on. */
export default { jsonKey, findDuplicate, enumKeys, enumHas };
