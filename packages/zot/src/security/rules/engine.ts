// Judges a tool call against the rules: deny beats ask beats allow; what no rule decides is
// left to the mode ("default"). docs/security.md explains the semantics to users.
import { homedir } from 'node:os';
import {
  analyzeCommand,
  type PathAccess,
  type ShellAnalysis,
  type SimpleCommand,
} from '../shell/analyze.js';
import { loadShellParser } from '../shell/parser.js';
import { showWord } from '../shell/words.js';
import type { Rule } from './parse.js';
import { absolutePath, HARMLESS_DEVICES, realPath } from './paths.js';
import { RuleSet, type CommandHit } from './rule-set.js';

export type Decision = 'allow' | 'ask' | 'deny' | 'default';

export interface Verdict {
  decision: Decision;
  /** The rule that decided (absent for "default" and for asks about undecidable commands). */
  rule?: Rule;
  /** Why, in words: what matched, or what could not be decided. */
  reason: string;
  /** For a bash call: the commands no rule allowed (what "always allow" would add). */
  unallowed?: SimpleCommand[];
  /** For a bash call: files it writes that no rule allows, as written (static ones only). */
  unallowedWrites?: string[];
}

export interface CallToJudge {
  tool: string;
  args: Record<string, unknown>;
}

export interface EngineOptions {
  cwd: string;
  home?: string;
}

/** Tools whose path rules apply to a call of each file tool (deny and ask). */
const RESTRICTING: Record<string, readonly string[]> = {
  read: ['read'],
  write: ['write', 'edit'],
  // edit shows what it changed, so a rule against reading a file holds for edit too
  edit: ['write', 'edit', 'read'],
};

export class RuleEngine {
  readonly set: RuleSet;
  private readonly home: string;

  constructor(
    rules: readonly Rule[],
    private readonly options: EngineOptions,
  ) {
    this.set = new RuleSet(rules);
    this.home = options.home ?? homedir();
  }

  get rules(): readonly Rule[] {
    return this.set.rules;
  }

  /**
   * Judges one call. `defaultAllows` is the mode's answer for what no rule decides (false with
   * --no-yolo): an undecidable command is asked about when the default would not allow it or
   * when a deny or ask rule could be walked around. Contract: never rejects.
   */
  async decide(call: CallToJudge, defaultAllows: boolean): Promise<Verdict> {
    try {
      if (call.tool === 'bash') return await this.decideBash(call, defaultAllows);
      if (call.tool in RESTRICTING && typeof call.args.path === 'string') {
        return this.decidePath(call.tool, call.args.path);
      }
      return this.decideTool(call);
    } catch (error) {
      return { decision: 'ask', reason: `the rules could not be checked: ${String(error)}` };
    }
  }

  private decideTool(call: CallToJudge): Verdict {
    const name =
      call.tool === 'skill' && typeof call.args.name === 'string' ? call.args.name : undefined;
    for (const action of ['deny', 'ask', 'allow'] as const) {
      for (const rule of this.set.forTool(action, call.tool)) {
        const target = rule.target;
        if (
          target.kind === 'tool' ||
          (target.kind === 'name' && name !== undefined && target.glob.test(name))
        ) {
          return { decision: action, rule, reason: `rule "${rule.text}"` };
        }
      }
    }
    return { decision: 'default', reason: 'no rule matches' };
  }

  private decidePath(tool: string, path: string): Verdict {
    const absolute = absolutePath(this.options.cwd, path, this.home);
    const real = realPath(absolute);
    for (const action of ['deny', 'ask'] as const) {
      const wide = this.set.toolWide(action, tool);
      if (wide) return { decision: action, rule: wide, reason: `rule "${wide.text}"` };
      const rule = this.pathRule(action, RESTRICTING[tool]!, absolute, real);
      if (rule) return { decision: action, rule, reason: pathReason(rule, path, real) };
    }
    const wide = this.set.toolWide('allow', tool);
    if (wide) return { decision: 'allow', rule: wide, reason: `rule "${wide.text}"` };
    // An allow rule must hold for where the call really goes: the real path alone.
    const rule = this.set.pathCandidates('allow', [tool], real).find((r) => pathMatches(r, real));
    if (rule) return { decision: 'allow', rule, reason: pathReason(rule, path, real) };
    return { decision: 'default', reason: 'no rule matches' };
  }

  /** A deny or ask rule holds when the path as written or the real path matches. */
  private pathRule(
    action: 'deny' | 'ask',
    tools: readonly string[],
    absolute: string,
    real: string,
  ): Rule | undefined {
    const set = this.set;
    const matching = (path: string) =>
      set.pathCandidates(action, tools, path).find((rule) => pathMatches(rule, path));
    return matching(absolute) ?? (real === absolute ? undefined : matching(real));
  }

  private async decideBash(call: CallToJudge, defaultAllows: boolean): Promise<Verdict> {
    const set = this.set;
    const denyAll = set.toolWide('deny', 'bash');
    if (denyAll) return { decision: 'deny', rule: denyAll, reason: `rule "${denyAll.text}"` };
    const restricts =
      set.hasCommandRules('deny') ||
      set.hasCommandRules('ask') ||
      set.pathRules('deny', ['read', 'write', 'edit']).length > 0 ||
      set.pathRules('ask', ['read', 'write', 'edit']).length > 0;
    const askAll = set.toolWide('ask', 'bash');
    const allowAll = set.toolWide('allow', 'bash');
    if (!restricts && !set.hasCommandRules('allow')) {
      // Nothing looks inside commands: no parse needed.
      if (askAll) return { decision: 'ask', rule: askAll, reason: `rule "${askAll.text}"` };
      if (allowAll) return { decision: 'allow', rule: allowAll, reason: `rule "${allowAll.text}"` };
      return { decision: 'default', reason: 'no rule matches' };
    }
    const command = typeof call.args.command === 'string' ? call.args.command : '';
    const parser = await loadShellParser();
    const analysis = analyzeCommand(parser, command);
    if (!analysis.ok) {
      return { decision: 'ask', reason: `the command cannot be checked: ${analysis.reason}` };
    }
    return this.judgeCommands(analysis, defaultAllows);
  }

  /** The matching half of a bash call's judgement (the bench times it apart from parsing). */
  judgeCommands(analysis: ShellAnalysis & { ok: true }, defaultAllows: boolean): Verdict {
    const set = this.set;
    const restricts =
      set.hasCommandRules('deny') ||
      set.hasCommandRules('ask') ||
      set.pathRules('deny', ['read', 'write', 'edit']).length > 0 ||
      set.pathRules('ask', ['read', 'write', 'edit']).length > 0;
    const judge = new BashJudgement(this, analysis.changesDirectory, restricts || !defaultAllows);
    for (const part of analysis.commands) judge.command(part);
    for (const access of analysis.accesses) judge.access(access);
    return judge.verdict(set.toolWide('ask', 'bash'), set.toolWide('allow', 'bash'));
  }

  /** For BashJudgement: a path access's rule, as for the file tools. */
  judgePath(access: PathAccess, changesDirectory: boolean, cache: Map<string, string>): Verdict {
    const tools = access.kind === 'write' ? ['write', 'edit'] : ['read'];
    const text = access.path.kind === 'static' ? access.path.value : undefined;
    const relative = text !== undefined && !text.startsWith('/') && !text.startsWith('~');
    // bash expands `~name`, `~+` and `~-` to directories only known when it runs
    const otherTilde = text !== undefined && /^~[^/]/.test(text);
    if (text === undefined || otherTilde || (changesDirectory && relative)) {
      for (const action of ['deny', 'ask'] as const) {
        const rule = this.set.pathRules(action, tools)[0];
        if (rule) {
          return {
            decision: 'ask',
            rule,
            reason: `"${access.source}" ${access.kind}s a path only known when it runs, and rule "${rule.text}" may cover it`,
          };
        }
      }
      return { decision: 'default', reason: 'no rule matches' };
    }
    const absolute = absolutePath(this.options.cwd, text, this.home);
    if (HARMLESS_DEVICES.test(absolute)) return { decision: 'allow', reason: 'a device' };
    const real = realPath(absolute, cache);
    for (const action of ['deny', 'ask'] as const) {
      const rule = this.pathRule(action, tools, absolute, real);
      if (rule)
        return {
          decision: action,
          rule,
          reason: `"${access.source}": ${pathReason(rule, text, real)}`,
        };
    }
    if (access.kind === 'write') {
      const rule = this.set
        .pathCandidates('allow', ['write'], real)
        .find((r) => pathMatches(r, real));
      if (rule) return { decision: 'allow', rule, reason: pathReason(rule, text, real) };
    }
    return { decision: 'default', reason: 'no rule matches' };
  }
}

/**
 * A bash call's parts as a rule set without rules sees them (what a refusal suggests allowing
 * when no engine judged the call). Undefined when the command does not parse.
 */
export async function bashParts(command: string, cwd: string): Promise<Verdict | undefined> {
  const analysis = analyzeCommand(await loadShellParser(), command);
  return analysis.ok ? new RuleEngine([], { cwd }).judgeCommands(analysis, false) : undefined;
}

function pathMatches(rule: Rule, path: string): boolean {
  return rule.target.kind === 'path' && rule.target.glob.test(path);
}

function pathReason(rule: Rule, path: string, real: string): string {
  return `rule "${rule.text}" matches ${path}${real !== path ? ` (${real})` : ''}`;
}

/** The verdicts of a bash call's parts, combined: deny, then ask, then default, then allow. */
class BashJudgement {
  private deny: Verdict | undefined;
  private ask: Verdict | undefined;
  private undecided: Verdict | undefined;
  private readonly unallowed: SimpleCommand[] = [];
  private unmatchedWrite = false;
  private readonly unallowedWrites: string[] = [];
  /** Real paths of the directories met in this judgement. */
  private readonly realPaths = new Map<string, string>();

  constructor(
    private readonly engine: RuleEngine,
    private readonly changesDirectory: boolean,
    /** Whether an undecidable part must be asked about (a rule could be walked around). */
    private readonly strict: boolean,
  ) {}

  command(part: SimpleCommand): void {
    const set = this.engine.set;
    // Deny and ask rules are tried from the first word, after the prefix assignments, and for
    // a command that runs another (sudo, xargs...) from every later word.
    const starts = new Set([0, part.nameIndex]);
    if (part.undecidable)
      for (let i = part.nameIndex + 1; i < part.words.length; i++) starts.add(i);
    const shown = part.source;
    for (const action of ['deny', 'ask'] as const) {
      let hit: CommandHit | undefined;
      for (const start of starts) {
        const found = set.matchCommand(action, part.words, start);
        if (found && (!hit || found.match === 'yes')) hit = found;
        if (hit?.match === 'yes') break;
      }
      if (!hit) continue;
      const sure = hit.match === 'yes';
      const decision = action === 'deny' && sure ? 'deny' : 'ask';
      const how = sure ? 'matches' : 'may match';
      const verdict = {
        decision,
        rule: hit.rule,
        reason: `"${shown}" ${how} rule "${hit.rule.text}"`,
      } as const;
      if (decision === 'deny') this.deny ??= verdict;
      else this.ask ??= verdict;
      return;
    }
    if (part.undecidable) {
      this.unallowed.push(part);
      this.undecided ??= {
        decision: 'ask',
        reason: `"${shown}" cannot be checked: ${part.undecidable}`,
      };
      return;
    }
    const allowed =
      part.words.length === 0 || set.matchCommand('allow', part.words, 0)?.match === 'yes';
    if (!allowed) this.unallowed.push(part);
  }

  access(access: PathAccess): void {
    const verdict = this.engine.judgePath(access, this.changesDirectory, this.realPaths);
    if (verdict.decision === 'deny') this.deny ??= verdict;
    else if (verdict.decision === 'ask') this.ask ??= verdict;
    else if (verdict.decision === 'default' && access.kind === 'write') {
      this.unmatchedWrite = true;
      if (access.path.kind === 'static') this.unallowedWrites.push(access.path.value);
    }
  }

  verdict(askAll: Rule | undefined, allowAll: Rule | undefined): Verdict {
    if (this.deny) return this.deny;
    if (this.ask) return this.ask;
    if (askAll) return { decision: 'ask', rule: askAll, reason: `rule "${askAll.text}"` };
    const unallowed = this.unallowed;
    if (this.undecided && (this.strict || !allowAll)) {
      // Without a rule to protect and with a mode that allows, there is nothing to ask about.
      if (this.strict) return { ...this.undecided, unallowed };
      return { decision: 'default', reason: this.undecided.reason, unallowed };
    }
    if (allowAll) return { decision: 'allow', rule: allowAll, reason: `rule "${allowAll.text}"` };
    if (unallowed.length > 0) {
      const first = unallowed[0]!;
      return {
        decision: 'default',
        reason: `no rule allows "${first.words.map(showWord).join(' ')}"`,
        unallowed,
      };
    }
    if (this.unmatchedWrite) {
      return {
        decision: 'default',
        reason: 'no rule allows its writes',
        unallowedWrites: this.unallowedWrites,
      };
    }
    return { decision: 'allow', reason: 'every command is allowed by a rule' };
  }
}
