// The rules in force, indexed for matching: per action, per tool name, and bash rules per
// command name, so that thousands of rules cost a lookup per command, not a scan.
import type { Word } from '../shell/words.js';
import { matchWords, type Match } from './match.js';
import type { Rule, RuleAction } from './parse.js';

export interface CommandHit {
  rule: Rule;
  match: Match;
}

/** Command names whose candidate rules are remembered (a session uses far fewer). */
const MAX_CACHED_NAMES = 4096;

class ActionRules {
  readonly byTool = new Map<string, Rule[]>();
  readonly toolGlobs: Rule[] = [];
  readonly commandsByName = new Map<string, Rule[]>();
  readonly commandsAnyName: Rule[] = [];
  readonly paths: Rule[] = [];
  /** Per command name, the rules of `commandsAnyName` whose first word can match it. */
  private readonly anyNameFor = new Map<string, Rule[]>();

  /** The glob-headed rules that may match a command named `name` (cached per name). */
  anyName(name: string): Rule[] {
    let rules = this.anyNameFor.get(name);
    if (rules) return rules;
    rules = this.commandsAnyName.filter((rule) => {
      const head = rule.target.kind === 'command' ? rule.target.words[0] : undefined;
      return !(head?.kind === 'word' && head.glob && !head.glob.test(name));
    });
    if (this.anyNameFor.size >= MAX_CACHED_NAMES) this.anyNameFor.clear();
    this.anyNameFor.set(name, rules);
    return rules;
  }

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

  private readonly pathCache = new Map<string, Rule[]>();
  private readonly pathIndexes = new Map<string, Map<string, Rule[]>>();

  /**
   * Path rules of `action` for `tools` that may match `path`: a glob matches only below its
   * literal directories, so only the rules whose base is `path` or one of its ancestors.
   */
  pathCandidates(action: RuleAction, tools: readonly string[], path: string): Rule[] {
    const key = `${action}:${tools.join(',')}`;
    let index = this.pathIndexes.get(key);
    if (!index) {
      index = new Map();
      for (const rule of this.pathRules(action, tools)) {
        if (rule.target.kind === 'path') push(index, rule.target.base, rule);
      }
      this.pathIndexes.set(key, index);
    }
    if (index.size === 0) return [];
    const found: Rule[] = [];
    let current = path;
    for (;;) {
      const rules = index.get(current);
      if (rules) found.push(...rules);
      if (current === '/' || current === '') break;
      const slash = current.lastIndexOf('/');
      current = slash <= 0 ? '/' : current.slice(0, slash);
    }
    return found;
  }

  /** Path rules of `action` for any of `tools` (computed once per combination). */
  pathRules(action: RuleAction, tools: readonly string[]): Rule[] {
    const key = `${action}:${tools.join(',')}`;
    let rules = this.pathCache.get(key);
    if (!rules) {
      rules = this.actions[action].paths.filter((rule) => tools.includes(rule.tool));
      this.pathCache.set(key, rules);
    }
    return rules;
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
    let maybe: CommandHit | undefined;
    const lists =
      first?.kind === 'static'
        ? [rules.commandsByName.get(first.value) ?? [], rules.anyName(first.value)]
        : first === undefined
          ? [rules.commandsAnyName]
          : [rules.commandsAnyName, ...rules.commandsByName.values()];
    for (const list of lists) {
      for (const rule of list) {
        if (rule.target.kind !== 'command') continue;
        const match = matchWords(rule.target.words, words, start);
        if (match === 'yes') return { rule, match };
        if (match === 'maybe') maybe ??= { rule, match };
      }
    }
    return maybe;
  }
}
