// The permission gate every tool call passes after interception: the rules decide (deny beats
// ask beats allow), what no rule decides follows the mode (yolo: allow; --no-yolo: ask), and an
// ask with nobody to answer (print, JSON) is a deny that says how to allow the call. Every
// decision but a plain allow is a `permission` event.
import type { ConfirmAnswer, PendingToolCall, Refusal } from '../agent/hooks.js';
import type { SessionEvent } from '../contract/events.js';
import type { RuleEngine, Verdict } from '../security/rules/engine.js';
import type { Rule } from '../security/rules/parse.js';
import { suggestRules } from '../security/rules/suggest.js';
import { errorMessage } from '../util/errors.js';
import { addRuleToFile, removeRuleFromFile, type RuleFiles } from './permission-files.js';
import type { ConfirmGate } from './confirm.js';

type PermissionEvent = Extract<SessionEvent, { type: 'permission' }>;

/** How many decisions `/permissions` keeps. */
const RECENT = 50;

export interface PermissionContext {
  /** The person to ask (RPC client, TUI), when there is one. */
  gate: ConfirmGate | undefined;
  /** Whether what no rule decides runs (no --no-yolo, or /yolo on). */
  defaultAllows: boolean;
  /** The mode's name for messages ("print mode"). */
  nobody: string;
  signal: AbortSignal;
}

export class PermissionGate {
  readonly recent: PermissionEvent[] = [];
  private current: RuleEngine | undefined;

  constructor(
    engine: RuleEngine | undefined,
    private readonly emit: (event: PermissionEvent) => void,
    private readonly cwd: string,
    private readonly files?: RuleFiles,
  ) {
    this.current = engine;
  }

  /** The rules in force, in the order `/permissions` numbers them (from 1). */
  get rules(): readonly Rule[] {
    return this.current?.rules ?? [];
  }

  /**
   * Removes rule `index` (from 1): from the file it came from (locked, atomic) and from this
   * run; a flag's rule from this run only. Returns what was done. Contract: never rejects.
   */
  async remove(index: number): Promise<string> {
    const rule = this.rules[index - 1];
    if (!rule) return `no rule ${index} (see /permissions)`;
    if (rule.file) {
      try {
        if (!removeRuleFromFile(rule.file, rule.action, rule.text)) {
          return `rule ${index} stands for an entry of ${rule.file} that is not valid: fix the file`;
        }
        if (rule.source === 'project' && rule.action === 'allow') {
          await this.files?.repinProjectAllow?.();
        }
      } catch (error) {
        return `could not remove "${rule.text}": ${errorMessage(error)}`;
      }
    }
    await this.replaceRules(this.rules.filter((_, i) => i !== index - 1));
    return rule.file
      ? `removed ${rule.action} rule "${rule.text}" from ${rule.file}`
      : `removed ${rule.action} rule "${rule.text}" for this run (it came from --${rule.action})`;
  }

  private async replaceRules(rules: readonly Rule[]): Promise<void> {
    const { RuleEngine } = await import('../security/rules/engine.js');
    this.current = rules.length > 0 ? new RuleEngine(rules, { cwd: this.cwd }) : undefined;
  }

  /**
   * "Always allow this": writes the narrowest allow rules for `call` to the user's or the
   * project's file and adds them to this run. Returns what was done (or why not).
   */
  private async allowAlways(
    call: PendingToolCall,
    verdict: Verdict,
    where: 'user' | 'project',
  ): Promise<string> {
    const texts = await narrowestRules(call, verdict, this.cwd);
    const file = where === 'user' ? this.files?.user : this.files?.project;
    if (!texts || texts.length === 0) return 'allowed once: no rule can allow this call';
    if (!file) return 'allowed once: there is no settings file to write to';
    const { parseRule } = await import('../security/rules/parse.js');
    const added: Rule[] = [];
    try {
      for (const text of texts) {
        added.push({ ...parseRule(text, 'allow', where, { root: this.cwd }), file });
        addRuleToFile(file, 'allow', text);
      }
    } catch (error) {
      return `allowed once: could not write ${file}: ${errorMessage(error)}`;
    }
    const pinned = where === 'project' ? await this.files?.repinProjectAllow?.() : undefined;
    await this.replaceRules([...this.rules, ...added]);
    return `added ${texts.map((t) => `"${t}"`).join(', ')} to ${file}${pinned ? `; ${pinned}` : ''}`;
  }

  /** Contract: never rejects. */
  async check(call: PendingToolCall, context: PermissionContext): Promise<ConfirmAnswer | Refusal> {
    const verdict: Verdict = this.current
      ? await this.current.decide({ tool: call.name, args: call.args }, context.defaultAllows)
      : { decision: 'default', reason: 'no rule matches' };
    const { gate } = context;
    switch (verdict.decision) {
      case 'allow':
        return 'allow';
      case 'deny':
        this.record(call, 'deny', verdict.rule, verdict.reason);
        return { answer: 'deny', reason: `denied: ${verdict.reason}${ruleOrigin(verdict.rule)}` };
      case 'ask':
        return this.askPerson(call, verdict, context);
      case 'default':
        if (context.defaultAllows || gate?.approved(call)) return 'allow';
        return this.askPerson(call, verdict, context);
    }
  }

  private async askPerson(
    call: PendingToolCall,
    verdict: Verdict,
    context: PermissionContext,
  ): Promise<ConfirmAnswer | Refusal> {
    const why =
      verdict.decision === 'default'
        ? `${verdict.reason}, and --no-yolo asks before such a call`
        : `${verdict.reason}${ruleOrigin(verdict.rule)}`;
    const { gate } = context;
    if (!gate) {
      const how = await howToAllow(call, verdict, this.cwd);
      const reason = `${why}; nobody can answer in ${context.nobody}. ${how}`;
      this.record(call, 'deny', verdict.rule, reason);
      return { answer: 'deny', reason };
    }
    this.record(call, 'ask', verdict.rule, why);
    // A question of the mode (--no-yolo) is asked as it always was; a rule's says which rule.
    const decision = await gate.ask(
      call,
      context.signal,
      verdict.decision === 'default'
        ? {}
        : { ...(verdict.rule ? { rule: verdict.rule.text } : {}), reason: why },
    );
    const answer = decision === 'deny' ? 'deny' : 'allow';
    let note = `answered ${answer === 'allow' ? 'yes' : 'no'}`;
    if (decision === 'allow_always_user' || decision === 'allow_always_project') {
      const where = decision === 'allow_always_user' ? 'user' : 'project';
      note += `, always: ${await this.allowAlways(call, verdict, where).catch((e) => errorMessage(e))}`;
    }
    this.record(call, answer, undefined, note, 'dialog');
    return answer;
  }

  private record(
    call: PendingToolCall,
    decision: PermissionEvent['decision'],
    rule: Rule | undefined,
    reason: string,
    source?: PermissionEvent['source'],
  ): void {
    const event: PermissionEvent = {
      type: 'permission',
      tool_id: call.id,
      tool: call.name,
      args: call.preview,
      decision,
      rule: rule?.text ?? null,
      source: source ?? rule?.source ?? 'mode',
      ...(rule?.file ? { file: rule.file } : {}),
      reason,
    };
    this.recent.push(event);
    if (this.recent.length > RECENT) this.recent.shift();
    this.emit(event);
  }
}

function ruleOrigin(rule: Rule | undefined): string {
  if (!rule) return '';
  return rule.file
    ? ` (${rule.source}: ${rule.file})`
    : ` (${rule.source === 'cli' ? '--' + rule.action : rule.source})`;
}

/** The narrowest allow rules for a call; bash parts are read now when no rule looked inside. */
async function narrowestRules(
  call: PendingToolCall,
  verdict: Verdict,
  cwd: string,
): Promise<string[] | undefined> {
  const judge = { tool: call.name, args: call.args };
  const seen =
    call.name === 'bash' && !verdict.unallowed && !verdict.unallowedWrites
      ? await import('../security/rules/engine.js')
          .then(({ bashParts }) => bashParts(String(call.args.command ?? ''), cwd))
          .catch(() => undefined)
      : verdict;
  return seen && suggestRules(judge, seen);
}

async function howToAllow(call: PendingToolCall, verdict: Verdict, cwd: string): Promise<string> {
  if (verdict.decision === 'ask' && verdict.rule) {
    return `To run it, remove the ask rule "${verdict.rule.text}" or answer in the TUI or RPC mode.`;
  }
  const rules = await narrowestRules(call, verdict, cwd);
  if (!rules) return 'It cannot be allowed by a rule; run it in the TUI or RPC mode to be asked.';
  return `To allow it, add --allow '${rules.join("' --allow '")}' (or put the rule in "permissions.allow" of $ZOT_HOME/config.json).`;
}
