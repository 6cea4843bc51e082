// Adversarial JSON values: hostile strings and numbers, prototype keys at every level, wrong
// types, wide objects. Shallow trees only; deep nesting is built as text (json-text.ts).
import { Entries, Raw, record, type Tree } from './json-text.js';
import type { Rng } from './prng.js';

/** Keys that reach Object.prototype or shadow its methods when code is careless. */
export const PROTO_KEYS = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'valueOf',
  'hasOwnProperty',
  'toJSON',
  '__defineGetter__',
  'then',
];

/** Numbers as raw text: some are not JSON at all (NaN), some overflow (1e309), some are -0. */
const RAW_NUMBERS = ['1e309', '-1e309', '-0', '-0.0', '0e0', '1E+2', 'NaN', 'Infinity', '-', '01'];
const STRANGE_STRINGS = [
  'NaN',
  'Infinity',
  '-0',
  '1e309',
  'null',
  'true',
  '__proto__',
  '[object Object]',
];
const NUMBERS = [0, -1, 1, 0.5, -1.5, 2 ** 31, 2 ** 53 + 2, -(2 ** 63), 1e308, 5e-324, 1e21];

export interface Limits {
  /** Longest single string or line body the generators produce, in characters. */
  maxBytes: number;
  /** Deepest text-built nesting. */
  maxDepth: number;
}

export function adversarialString(rng: Rng, limits: Limits): string {
  return rng.weighted<string>([
    [3, () => ''],
    [4, () => rng.pick(STRANGE_STRINGS)],
    [4, () => rng.pick(PROTO_KEYS)],
    [6, () => randomChars(rng, rng.size(40))],
    [2, () => 'x'.repeat(rng.size(limits.maxBytes))],
    [2, () => randomChars(rng, rng.size(Math.min(limits.maxBytes, 4096)))],
    [1, () => '\u2028\u2029\n\r\t\0'],
  ]);
}

/** Characters from every troublesome class: controls, NUL, separators, surrogates, emoji. */
function randomChars(rng: Rng, length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) {
    out += rng.weighted<string>([
      [8, () => String.fromCharCode(rng.range(0x20, 0x7e))],
      [2, () => String.fromCharCode(rng.range(0, 0x1f))],
      [1, () => rng.pick(['\u2028', '\u2029', '\u0085', '\ufeff', '\ufffd', '\u202e'])],
      [1, () => String.fromCharCode(rng.range(0xd800, 0xdfff))], // a lone surrogate
      [1, () => '😀'],
      [1, () => String.fromCharCode(rng.range(0x80, 0xffff))],
    ]);
  }
  return out;
}

export function scalar(rng: Rng, limits: Limits): Tree {
  return rng.weighted<Tree>([
    [2, () => null],
    [2, () => rng.chance(0.5)],
    [3, () => rng.pick(NUMBERS)],
    [2, () => new Raw(rng.pick(RAW_NUMBERS))],
    [6, () => adversarialString(rng, limits)],
  ]);
}

/** A key: usually a plain or field-like name, often a prototype key. */
export function key(rng: Rng, fields: readonly string[] = []): string {
  return rng.weighted<string>([
    [3, () => rng.pick(PROTO_KEYS)],
    [fields.length > 0 ? 4 : 0, () => rng.pick(fields)],
    [3, () => randomChars(rng, rng.range(0, 8))],
    [1, () => ''],
  ]);
}

/** A random value up to `depth` levels, with prototype keys likely at every level. */
export function value(rng: Rng, limits: Limits, depth = 4, fields: readonly string[] = []): Tree {
  if (depth <= 0 || rng.chance(0.4)) return scalar(rng, limits);
  return rng.weighted<Tree>([
    [3, () => Array.from({ length: rng.size(6) }, () => value(rng, limits, depth - 1, fields))],
    [4, () => object(rng, limits, depth, fields)],
    [1, () => duplicated(rng, limits, depth, fields)],
  ]);
}

function object(rng: Rng, limits: Limits, depth: number, fields: readonly string[]): Tree {
  const count = rng.size(6);
  const entries: Array<[string, Tree]> = [];
  for (let i = 0; i < count; i++)
    entries.push([key(rng, fields), value(rng, limits, depth - 1, fields)]);
  if (rng.chance(0.3)) entries.push([rng.pick(PROTO_KEYS), value(rng, limits, depth - 1, fields)]);
  return record(entries);
}

/** The same key twice or more: JSON.parse keeps the last, other parsers the first. */
function duplicated(rng: Rng, limits: Limits, depth: number, fields: readonly string[]): Tree {
  const name = key(rng, fields);
  const entries: Array<[string, Tree]> = [];
  for (let i = rng.range(2, 4); i > 0; i--)
    entries.push([name, value(rng, limits, depth - 1, fields)]);
  return new Entries(entries);
}

/** An object with very many keys (say 1000 to 50000), names colliding with prototype keys. */
export function wide(rng: Rng, limits: Limits): Tree {
  const count = Math.min(rng.size(50_000), Math.floor(limits.maxBytes / 8));
  const entries: Array<[string, Tree]> = [];
  for (let i = 0; i < count; i++) entries.push([i % 97 === 0 ? rng.pick(PROTO_KEYS) : `k${i}`, i]);
  return rng.chance(0.5) ? record(entries) : entries.map(([, v]) => v);
}

/** A value of a different kind than `current` (the "wrong type for this field" mutation). */
export function wrongType(rng: Rng, limits: Limits, current: unknown): Tree {
  for (;;) {
    const candidate = rng.weighted<Tree>([
      [2, () => null],
      [2, () => rng.chance(0.5)],
      [2, () => rng.pick(NUMBERS)],
      [2, () => new Raw(rng.pick(RAW_NUMBERS))],
      [3, () => adversarialString(rng, limits)],
      [2, () => []],
      [2, () => record([])],
      [2, () => value(rng, limits, 3)],
    ]);
    if (kind(candidate) !== kind(current) || rng.chance(0.2)) return candidate;
  }
}

function kind(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (value instanceof Raw) return 'raw';
  return typeof value;
}
