// Matching a bash pattern against a command's words, in three values: a dynamic word (known only
// when the command runs) may become any number of words with any text, so a pattern that it
// could satisfy "maybe" matches. Allow rules need "yes"; deny and ask rules act on "maybe" too.
import type { Word } from '../shell/words.js';
import type { PatternWord } from './parse.js';

export type Match = 'yes' | 'maybe' | 'no';

/** Above this many (pattern word, command word) pairs the answer is "maybe", unexamined. */
const MAX_PAIRS = 1_000_000;

const worse = (a: Match, b: Match): Match =>
  a === 'no' || b === 'no' ? 'no' : a === 'maybe' || b === 'maybe' ? 'maybe' : 'yes';
const better = (a: Match, b: Match): Match =>
  a === 'yes' || b === 'yes' ? 'yes' : a === 'maybe' || b === 'maybe' ? 'maybe' : 'no';

/** Matches `pattern` against `words` from index `start` to the end. Contract: never throws. */
export function matchWords(
  pattern: readonly PatternWord[],
  words: readonly Word[],
  start: number,
): Match {
  const n = words.length - start;
  if ((pattern.length + 1) * (n + 1) > MAX_PAIRS) return 'maybe';
  const memo = new Map<number, Match>();
  const match = (i: number, j: number): Match => {
    const key = i * (n + 1) + j;
    const known = memo.get(key);
    if (known !== undefined) return known;
    let result: Match;
    const p = pattern[i];
    if (j === n)
      result = p === undefined || (p.kind === 'rest' && i === pattern.length - 1) ? 'yes' : 'no';
    else if (p?.kind === 'rest') result = 'yes';
    else {
      const word = words[start + j]!;
      if (word.kind === 'dynamic') {
        // it may stand for pattern words i..k-1 (none included), then the rest must follow
        result = 'no';
        for (let k = i; k <= pattern.length && result === 'no'; k++) {
          result = better(result, worse('maybe', match(k, j + 1)));
        }
      } else if (p === undefined) result = 'no';
      else {
        const same = p.glob ? p.glob.test(word.value) : p.text === word.value;
        result = same ? match(i + 1, j + 1) : 'no';
      }
    }
    memo.set(key, result);
    return result;
  };
  return match(0, 0);
}
