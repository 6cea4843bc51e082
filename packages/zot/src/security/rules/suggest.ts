// The narrowest rules that would allow a call: what a refusal suggests, and what the TUI's
// "always allow this" writes.
import type { CallToJudge, Verdict } from './engine.js';
import { PATH_TOOLS } from './parse.js';

/** A word of a bash pattern, quoted so that the pattern parser reads it back exactly. */
export function quotePatternWord(word: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replaceAll("'", `'"'"'`)}'`;
}

/**
 * Rules that would allow `call` (several for a bash call with several unallowed commands), or
 * undefined when no rule can (a command that cannot be checked, a path with glob characters).
 */
export function suggestRules(call: CallToJudge, verdict: Verdict): string[] | undefined {
  if (call.tool === 'bash') {
    const parts = verdict.unallowed ?? [];
    const writes = verdict.unallowedWrites ?? [];
    if (parts.length === 0 && writes.length === 0) return undefined;
    const rules: string[] = [];
    for (const path of writes) {
      if (/[*?()]/.test(path) || path.trim() === '') return undefined;
      rules.push(`write(${path})`);
    }
    for (const part of parts) {
      if (part.undecidable || part.words.length === 0) return undefined;
      const words: string[] = [];
      for (const word of part.words) {
        if (word.kind !== 'static') return undefined;
        words.push(quotePatternWord(word.value));
      }
      const rule = `bash(${words.join(' ')})`;
      if (!rules.includes(rule)) rules.push(rule);
    }
    return rules;
  }
  if (PATH_TOOLS.has(call.tool)) {
    const path = call.args.path;
    if (typeof path !== 'string' || /[*?()]/.test(path) || path.trim() === '') return undefined;
    return [`${call.tool}(${path})`];
  }
  if (
    call.tool === 'skill' &&
    typeof call.args.name === 'string' &&
    !/[*()]/.test(call.args.name)
  ) {
    return [`skill(${call.args.name})`];
  }
  return [call.tool];
}

/** One suggestion as text (rules joined for a message), or undefined. */
export function suggestRule(call: CallToJudge, verdict: Verdict): string | undefined {
  return suggestRules(call, verdict)?.join("' --allow '");
}
