// The permission gate every tool call passes after interception: the rules decide (deny beats
// ask beats allow), what no rule decides follows the mode (yolo: allow; --no-yolo: ask), and an
// ask with nobody to answer (print, JSON) is a deny that says how to allow the call. Every
// decision but a plain allow is a `permission` event.
import type { ConfirmAnswer, PendingToolCall, Refusal } from '../agent/hooks.js';
import type { SessionEvent } from '../contract/events.js';
import type { RuleEngine, Verdict } from '../security/rules/engine.js';
import type { Rule } from '../security/rules/parse.js';
import { suggestRule } from '../security/rules/suggest.js';
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

  constructor(
    readonly engine: RuleEngine | undefined,
    private readonly emit: (event: PermissionEvent) => void,
    private readonly cwd: string,
  ) {}

  /** Contract: never rejects. */
  async check(call: PendingToolCall, context: PermissionContext): Promise<ConfirmAnswer | Refusal> {
    const verdict: Verdict = this.engine
      ? await this.engine.decide({ tool: call.name, args: call.args }, context.defaultAllows)
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
    const answer = await gate.ask(
      call,
      context.signal,
      verdict.decision === 'default'
        ? {}
        : { ...(verdict.rule ? { rule: verdict.rule.text } : {}), reason: why },
    );
    this.record(call, answer, undefined, `answered ${answer === 'allow' ? 'yes' : 'no'}`, 'dialog');
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

async function howToAllow(call: PendingToolCall, verdict: Verdict, cwd: string): Promise<string> {
  if (verdict.decision === 'ask' && verdict.rule) {
    return `To run it, remove the ask rule "${verdict.rule.text}" or answer in the TUI or RPC mode.`;
  }
  const judge = { tool: call.name, args: call.args };
  // Without rules nothing looked inside the command: its parts are read now, for the advice.
  const seen =
    call.name === 'bash' && !verdict.unallowed && !verdict.unallowedWrites
      ? await import('../security/rules/engine.js')
          .then(({ bashParts }) => bashParts(String(call.args.command ?? ''), cwd))
          .catch(() => undefined)
      : verdict;
  const rule = seen && suggestRule(judge, seen);
  if (!rule) return 'It cannot be allowed by a rule; run it in the TUI or RPC mode to be asked.';
  return `To allow it, add --allow '${rule}' (or put the rule in "permissions.allow" of $ZOT_HOME/config.json).`;
}
