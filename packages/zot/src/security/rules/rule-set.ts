// The rules in force, indexed for matching: per action, per tool name, and bash rules per
// command name, so that thousands of rules cost a lookup per command, not a scan.
import type { Word } from '../shell/words.js';
import { matchWords, type Match } from './match.js';
import type { Rule, RuleAction } from './parse.js';

export interface CommandHit {
  rule: Rule;
  match: Match;
}

class ActionRules {
  readonly byTool = new Map<string, Rule[]>();
  readonly toolGlobs: Rule[] = [];
  readonly commandsByName = new Map<string, Rule[]>();
  readonly commandsAnyName: Rule[] = [];
  readonly paths: Rule[] = [];

  add(rule: Rule): void {
    if (rule.toolGlob) this.toolGlobs.push(rule);
    else push(this.byTool, rule.tool, rule);
    const target = rule.target;
    if (target.kind === 'command') {
      const first = target.words[0];
      if (first?.kind === 'word' && !first.glob) push(this.commandsByName, first.text, rule);
      else this.commandsAnyName.push(rule);
    } else if (target.kind === 'path') this.paths.push(rule);
  }
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

export class RuleSet {
  private readonly actions: Record<RuleAction, ActionRules> = {
    allow: new ActionRules(),
    ask: new ActionRules(),
    deny: new ActionRules(),
  };

  constructor(readonly rules: readonly Rule[]) {
    for (const rule of rules) this.actions[rule.action].add(rule);
  }

  /** Rules of `action` that name `tool` (exactly or by glob), with or without a pattern. */
  forTool(action: RuleAction, tool: string): Rule[] {
    const rules = this.actions[action];
    const exact = rules.byTool.get(tool) ?? [];
    const globbed = rules.toolGlobs.filter((rule) => rule.toolGlob!.test(tool));
    return globbed.length === 0 ? exact : [...exact, ...globbed];
  }

  /** The tool-wide rule of `action` for `tool` (`bash`, `mcp__x__*`), if any. */
  toolWide(action: RuleAction, tool: string): Rule | undefined {
    return this.forTool(action, tool).find((rule) => rule.target.kind === 'tool');
  }

  /** Path rules of `action` for any of `tools`. */
  pathRules(action: RuleAction, tools: readonly string[]): Rule[] {
    return this.actions[action].paths.filter((rule) => tools.includes(rule.tool));
  }

  hasCommandRules(action?: RuleAction): boolean {
    const actions = action ? [action] : (['allow', 'ask', 'deny'] as const);
    return actions.some((a) => {
      const rules = this.actions[a];
      return rules.commandsByName.size > 0 || rules.commandsAnyName.length > 0;
    });
  }

  /**
   * The best bash rule of `action` for `words` from `start`: a "yes" beats a "maybe".
   * Contract: never throws.
   */
  matchCommand(action: RuleAction, words: readonly Word[], start: number): CommandHit | undefined {
    const hit = this.matchFrom(action, words, start);
    const first = words[start];
    // `/bin/rm x` is `rm x` to a deny or ask rule (never to an allow rule: a path names any program)
    if (action === 'allow' || hit?.match === 'yes' || first?.kind !== 'static') return hit;
    const slash = first.value.lastIndexOf('/');
    if (slash < 0 || slash === first.value.length - 1) return hit;
    const renamed = [...words];
    renamed[start] = { kind: 'static', value: first.value.slice(slash + 1) };
    return this.matchFrom(action, renamed, start) ?? hit;
  }

  private matchFrom(
    action: RuleAction,
    words: readonly Word[],
    start: number,
  ): CommandHit | undefined {
    const rules = this.actions[action];
    const first = words[start];
    let candidates: Rule[];
    if (first === undefined) candidates = rules.commandsAnyName;
    else if (first.kind === 'dynamic') {
      candidates = [...rules.commandsAnyName, ...[...rules.commandsByName.values()].flat()];
    } else {
      const named = rules.commandsByName.get(first.value) ?? [];
      candidates =
        named.length === 0 ? rules.commandsAnyName : [...named, ...rules.commandsAnyName];
    }
    let maybe: CommandHit | undefined;
    for (const rule of candidates) {
      if (rule.target.kind !== 'command') continue;
      const match = matchWords(rule.target.words, words, start);
      if (match === 'yes') return { rule, match };
      if (match === 'maybe') maybe ??= { rule, match };
    }
    return maybe;
  }
}
