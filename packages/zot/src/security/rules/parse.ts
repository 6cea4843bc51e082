// The rule language: `TOOL` or `TOOL(PATTERN)`. docs/security.md describes it for users.
import { homedir } from 'node:os';
import { isAbsolute, resolve } from 'node:path';
import { hasWildcard, literalPrefix, nameGlob, pathGlob, wordGlob, type Glob } from './glob.js';

export type RuleAction = 'allow' | 'ask' | 'deny';
/** Where a rule came from: a flag, the user's config.json, the project's settings, a dialog. */
export type RuleSource = 'cli' | 'user' | 'project' | 'dialog';

/** One word of a bash pattern: `*` alone is "any further words"; otherwise a word glob. */
export type PatternWord = { kind: 'rest' } | { kind: 'word'; text: string; glob?: Glob };

export type RuleTarget =
  | { kind: 'tool' }
  | { kind: 'command'; words: PatternWord[] }
  | { kind: 'path'; glob: Glob; base: string; absolute: string }
  | { kind: 'name'; glob: Glob };

export interface Rule {
  /** The rule as written (what messages and `/permissions` show). */
  text: string;
  action: RuleAction;
  source: RuleSource;
  /** The file it came from (user and project rules). */
  file?: string;
  /** The tool name, or a glob over tool names (`mcp__github__*`). */
  tool: string;
  toolGlob?: Glob;
  target: RuleTarget;
}

export const PATH_TOOLS = new Set(['read', 'write', 'edit']);
const TOOL_NAME = /^[A-Za-z0-9_.*-]+$/;
const MAX_RULE_CHARS = 4096;

export interface RuleContext {
  /** The project root, against which relative path globs resolve. */
  root: string;
  home?: string;
}

/** Contract: throws an Error whose message says what is wrong with `text` (not where from). */
export function parseRule(
  text: string,
  action: RuleAction,
  source: RuleSource,
  context: RuleContext,
): Rule {
  if (text.length > MAX_RULE_CHARS) throw new Error(`longer than ${MAX_RULE_CHARS} characters`);
  const trimmed = text.trim();
  const open = trimmed.indexOf('(');
  const tool = open < 0 ? trimmed : trimmed.slice(0, open);
  if (!TOOL_NAME.test(tool)) {
    throw new Error(
      'expected TOOL or TOOL(PATTERN), where TOOL is a tool name (letters, digits, _ . - and * globs)',
    );
  }
  const rule: Rule = { text: trimmed, action, source, tool, target: { kind: 'tool' } };
  if (hasWildcard(tool)) rule.toolGlob = nameGlob(tool);
  if (open < 0) return rule;
  if (!trimmed.endsWith(')')) throw new Error('a pattern must end with ")"');
  const pattern = trimmed.slice(open + 1, -1);
  if (pattern.trim() === '') {
    throw new Error(`empty pattern; write "${tool}" alone for every ${tool} call`);
  }
  if (rule.toolGlob) throw new Error('a tool glob takes no pattern');
  if (tool === 'bash') rule.target = { kind: 'command', words: commandPattern(pattern) };
  else if (PATH_TOOLS.has(tool)) rule.target = pathPattern(pattern, context);
  else if (tool === 'skill') rule.target = { kind: 'name', glob: nameGlob(pattern.trim()) };
  else throw new Error('only bash, read, write, edit and skill take a pattern');
  return rule;
}

/** Splits a bash pattern into words as the shell would (quotes group, backslash escapes). */
function commandPattern(pattern: string): PatternWord[] {
  const words: PatternWord[] = [];
  let current = '';
  let stars = new Set<number>(); // positions of unquoted * in `current`
  let started = false;
  let quote: '"' | "'" | undefined;
  const finish = () => {
    if (!started) return;
    if (current === '*' && stars.size === 1) words.push({ kind: 'rest' });
    else if (stars.size > 0)
      words.push({ kind: 'word', text: current, glob: wordGlob(current, stars) });
    else words.push({ kind: 'word', text: current });
    current = '';
    stars = new Set();
    started = false;
  };
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
      else current += c;
      continue;
    }
    if (c === '"' || c === "'") {
      quote = c;
      started = true;
    } else if (c === '\\' && i + 1 < pattern.length) {
      current += pattern[++i];
      started = true;
    } else if (/\s/.test(c)) finish();
    else if (/[;&|<>()`$]/.test(c)) {
      throw new Error(
        `"${c}" in a bash pattern: a rule matches one simple command; quote it to match it literally`,
      );
    } else {
      if (c === '*') stars.add(current.length);
      current += c;
      started = true;
    }
  }
  if (quote) throw new Error(`unclosed ${quote} in the pattern`);
  finish();
  const rest = words.findIndex((word) => word.kind === 'rest');
  if (rest >= 0 && rest !== words.length - 1) {
    throw new Error('a lone * (any further words) may only end a bash pattern');
  }
  return words;
}

function pathPattern(pattern: string, context: RuleContext): RuleTarget {
  const home = context.home ?? homedir();
  let glob = pattern.trim();
  if (glob === '~') glob = home;
  else if (glob.startsWith('~/')) glob = `${home}/${glob.slice(2)}`;
  else if (glob.startsWith('~')) throw new Error('only ~ and ~/ are expanded (not ~user)');
  if (!isAbsolute(glob)) glob = `${context.root}/${glob}`;
  const segments = glob.split('/');
  const wild = segments.findIndex(hasWildcard);
  if (wild >= 0 && segments.slice(wild).includes('..')) {
    throw new Error('".." after a wildcard would match outside what the glob names');
  }
  // `..` and `.` before the first wildcard are resolved as written (`../shared/**` is the
  // sibling directory): the glob then names exactly the paths it spells out.
  const head = wild < 0 ? glob : segments.slice(0, wild).join('/') || '/';
  const tail = wild < 0 ? '' : segments.slice(wild).join('/');
  const absolute = tail === '' ? resolve(head) : `${resolve(head).replace(/\/$/, '')}/${tail}`;
  return { kind: 'path', glob: pathGlob(absolute), base: literalPrefix(absolute), absolute };
}
