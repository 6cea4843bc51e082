// A seeded PRNG (mulberry32) and the choices the fuzzers make with it: the same seed gives the
// same inputs on every machine, so a failure is reproduced from its seed alone.
import { randomInt } from 'node:crypto';

export class Rng {
  #state: number;

  constructor(readonly seed: number) {
    this.#state = seed >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    let t = (this.#state = (this.#state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** An integer in [lo, hi]. */
  range(lo: number, hi: number): number {
    return lo + this.int(hi - lo + 1);
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(list: readonly T[]): T {
    return list[this.int(list.length)]!;
  }

  /** A size skewed towards small values, up to `max`: most inputs small, some huge. */
  size(max: number): number {
    return Math.min(max, Math.floor(Math.pow(max + 1, this.next())) - 1 + this.int(2));
  }

  /** Runs one of `choices`, chosen with probability proportional to its weight. */
  weighted<T>(choices: ReadonlyArray<readonly [number, () => T]>): T {
    let total = 0;
    for (const [weight] of choices) total += weight;
    let roll = this.next() * total;
    for (const [weight, make] of choices) {
      roll -= weight;
      if (roll < 0) return make();
    }
    return choices.at(-1)![1]();
  }
}

/** Case `index` of a run: case 0 uses the run's seed itself, so `--seed <case seed>` replays it. */
export function caseSeed(runSeed: number, index: number): number {
  return (runSeed + Math.imul(index, 0x9e3779b9)) >>> 0;
}

export function randomSeed(): number {
  return randomInt(0, 2 ** 32);
}
