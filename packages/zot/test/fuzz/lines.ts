// Adversarial lines built from well-formed samples: mutated fields, wrong types, prototype keys,
// nesting at and far past the depth bound, very wide objects, huge strings, broken JSON text
// and invalid UTF-8 bytes.
import { Entries, nest, Raw, record, serialize, type Tree } from './json-text.js';
import type { Rng } from './prng.js';
import {
  adversarialString,
  key,
  PROTO_KEYS,
  value,
  wide,
  wrongType,
  type Limits,
} from './values.js';

type Sample = Record<string, unknown>;

/** A deep copy of a sample as a tree, with a few random mutations applied. */
export function mutate(rng: Rng, sample: Sample, limits: Limits, fields: readonly string[]): Tree {
  const tree = copy(sample);
  const all = rng.chance(0.1); // wrong types for every field at once
  const count = all ? Infinity : rng.range(1, 3);
  const objects = containers(tree);
  for (let i = 0; i < count && i < 64; i++) {
    const target = rng.pick(objects);
    const names = Object.keys(target);
    if (all && i >= names.length) break;
    const name = all
      ? names[i]!
      : names.length > 0 && rng.chance(0.7)
        ? rng.pick(names)
        : key(rng, fields);
    rng.weighted<void>([
      [5, () => set(target, name, wrongType(rng, limits, target[name]))],
      [2, () => delete target[name]],
      [2, () => set(target, rng.pick(PROTO_KEYS), value(rng, limits, 3, fields))],
      [2, () => set(target, name, adversarialString(rng, limits))],
      [2, () => set(target, name, value(rng, limits, 4, fields))],
      [
        1,
        () =>
          set(
            target,
            name,
            new Entries([
              [name, 1],
              [name, 'dup'],
            ]),
          ),
      ],
      [
        1,
        () =>
          set(
            tree as Record<string, Tree>,
            'type',
            rng.pick(['', 'x', 'hello', 'ready', 'TYPE', 'register_tool ', 'message']),
          ),
      ],
    ]);
  }
  // A duplicated top-level key: JSON.parse keeps the last value.
  if (rng.chance(0.1)) {
    const top = tree as Record<string, Tree>;
    const name = rng.pick([...Object.keys(top), 'type', 'id']);
    return new Entries([...Object.entries(top), [name, wrongType(rng, limits, top[name])]]);
  }
  return tree;
}

function copy(value: unknown): Tree {
  if (Array.isArray(value)) return value.map(copy);
  if (value !== null && typeof value === 'object') {
    return record(Object.entries(value).map(([k, v]) => [k, copy(v)] as const));
  }
  return value as Tree;
}

/** The plain objects (not arrays) of a tree, so mutations hit every level. */
function containers(tree: Tree): Array<Record<string, Tree>> {
  const out: Array<Record<string, Tree>> = [];
  const walk = (node: Tree): void => {
    if (node === null || typeof node !== 'object' || node instanceof Raw || node instanceof Entries)
      return;
    if (Array.isArray(node)) return node.forEach(walk);
    out.push(node as Record<string, Tree>);
    Object.values(node).forEach(walk);
  };
  walk(tree);
  return out;
}

function set(target: Record<string, Tree>, name: string, value: Tree): void {
  Object.defineProperty(target, name, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}

/** Nesting depths worth trying: around the bound (128) and far past it. */
export function depth(rng: Rng, limits: Limits): number {
  return rng.chance(0.5) ? rng.range(124, 132) : rng.range(133, Math.max(133, limits.maxDepth));
}

function deepLine(rng: Rng, limits: Limits, samples: readonly Sample[]): string {
  const d = depth(rng, limits);
  const [open, close] = rng.pick([
    ['[', ']'],
    ['{"a":', '}'],
    ['{"__proto__":', '}'],
    ['[{"x":[', ']}]'],
  ] as const);
  const inner = rng.pick(['1', '"x"', '{}', '[]', 'null']);
  const body = nest(d, inner, open, close);
  if (rng.chance(0.3)) return body;
  // Inside a field of a real sample, so the frame's type and id are known.
  const sample = rng.pick(samples);
  const names = Object.keys(sample);
  const field =
    names.length > 1 && rng.chance(0.8) ? rng.pick(names.filter((n) => n !== 'type')) : 'extra';
  const rest = Object.entries(sample).filter(([k]) => k !== field);
  const head = rest.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(',');
  return `{${head}${head ? ',' : ''}${JSON.stringify(field)}:${body}}`;
}

/** Breaks JSON text: truncation, raw control characters, stray tokens, odd whitespace. */
function breakText(rng: Rng, text: string): string {
  const at = rng.int(text.length + 1);
  return rng.weighted<string>([
    [3, () => text.slice(0, at)],
    [2, () => text.slice(0, at) + String.fromCharCode(rng.range(0, 0x1f)) + text.slice(at)],
    [1, () => text.slice(0, at) + '\0' + text.slice(at)],
    [
      1,
      () =>
        text.slice(0, at) +
        rng.pick(['1e309', '-0', 'NaN', ',', '}', ']', '"', '\\', '\\u12']) +
        text.slice(at),
    ],
    [1, () => '\ufeff' + text],
    [1, () => ` \t${text}\r`],
    [1, () => text + text],
    [1, () => text.replace(/"/g, "'")],
    [1, () => text.slice(0, at) + '\u2028' + text.slice(at)],
  ]);
}

/** One adversarial line (no trailing LF) derived from `samples`. */
export function adversarialLine(
  rng: Rng,
  samples: readonly Sample[],
  limits: Limits,
  fields: readonly string[],
): string {
  return rng.weighted<string>([
    [2, () => JSON.stringify(rng.pick(samples))],
    [12, () => serialize(mutate(rng, rng.pick(samples), limits, fields))],
    [2, () => serialize(value(rng, limits, 5, fields))],
    [3, () => deepLine(rng, limits, samples)],
    [1, () => serialize(wide(rng, limits))],
    [
      1,
      () =>
        JSON.stringify({ ...rng.pick(samples), message: 'x'.repeat(rng.size(limits.maxBytes)) }),
    ],
    [4, () => breakText(rng, serialize(mutate(rng, rng.pick(samples), limits, fields)))],
    [1, () => ''],
  ]);
}

const INVALID_UTF8 = [
  [0xff],
  [0xfe, 0xff],
  [0xc0, 0x80], // overlong NUL
  [0xed, 0xa0, 0x80], // an encoded surrogate
  [0xf4, 0x90, 0x80, 0x80], // past U+10FFFF
  [0x80],
  [0xe2, 0x82], // cut short
];

/** The line's UTF-8 bytes, sometimes with invalid sequences spliced in. */
export function toBytes(rng: Rng, line: string): Buffer {
  const bytes = Buffer.from(line, 'utf8');
  if (!rng.chance(0.3)) return bytes;
  const parts: Buffer[] = [];
  let start = 0;
  for (let n = rng.range(1, 3); n > 0; n--) {
    const at = rng.range(start, bytes.length);
    parts.push(bytes.subarray(start, at), Buffer.from(rng.pick(INVALID_UTF8)));
    start = at;
  }
  parts.push(bytes.subarray(start));
  return Buffer.concat(parts);
}

/** A line as a decoder sees it: the text, or invalid bytes decoded with replacement chars. */
export function decodedLine(
  rng: Rng,
  samples: readonly Sample[],
  limits: Limits,
  fields: readonly string[],
): string {
  const line = adversarialLine(rng, samples, limits, fields);
  return rng.chance(0.2) ? toBytes(rng, line).toString('utf8') : line;
}
