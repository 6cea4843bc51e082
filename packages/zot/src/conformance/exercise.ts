// Commands and tools: each command once with empty arguments, each tool (deferred ones too) with
// made-up valid and then invalid arguments.
import type { CommandResponseFrame, ToolResultFrame } from '@zot/protocol';
import type { ToolRegistration } from '../extensions/registrations.js';
import { convertToolResult } from '../extensions/tool-adapter.js';
import { invalidArgs, validArgs } from './args.js';
import { judgeDetails } from './details.js';
import { ask, type Probe, type Request } from './probe.js';
import { isBuiltinCommand, isBuiltinTool, noAnswer, notRunning, type Kit } from './kit.js';
import { cut, type Check } from './report.js';

/** Most commands and most tools exercised; the rest are named in one skip. */
const MAX_EXERCISED = 50;

function firstText(frame: ToolResultFrame): string {
  const block = (frame.content ?? []).find((b) => b.type === 'text') as
    | { text?: string }
    | undefined;
  return cut(block?.text ?? '(no text)', 160);
}

function tooMany(kit: Kit, check: 'command' | 'tool', count: number): void {
  if (count > MAX_EXERCISED)
    kit.checks.skip(
      { check },
      `${count - MAX_EXERCISED} more not exercised (the kit calls at most ${MAX_EXERCISED})`,
    );
}

export async function commands(kit: Kit, probes: Probe[]): Promise<void> {
  const all = [...kit.registry.commands.values()];
  const ms = kit.timeouts.commandMs;
  for (const command of all.slice(0, MAX_EXERCISED)) {
    const base = { check: 'command', target: command.name } as const;
    if (isBuiltinCommand(command.name)) {
      kit.checks.skip(base, 'shadowed by a built-in: zot never sends it');
      continue;
    }
    if (notRunning(kit, base)) continue;
    const frame: Request = { type: 'command_invoked', name: command.name, args: '' };
    const { sent, outcome } = await ask(kit, frame, ms);
    const failed = noAnswer(base, sent, outcome, 'command_response', ms);
    if (failed || outcome.kind !== 'reply') {
      kit.checks.add(failed!);
      continue;
    }
    const reply = outcome.frame as CommandResponseFrame;
    probes.push({ frame, timeoutMs: ms, what: `/${command.name}` });
    kit.checks.add(judgeCommand(kit, base, reply, outcome.line, outcome.ms, sent));
  }
  tooMany(kit, 'command', all.length);
}

function judgeCommand(
  kit: Kit,
  base: Pick<Check, 'check' | 'target'>,
  reply: CommandResponseFrame,
  line: string,
  ms: number,
  sent: string,
): Check {
  const done = { ...base, ms };
  if (typeof reply.error === 'string' && reply.error !== '')
    return {
      ...done,
      status: 'pass',
      message: `answered in ${ms} ms with an error (shown in red): ${cut(reply.error, 120)}`,
    };
  const action = reply.action ?? 'noop';
  if (action === 'open_panel') {
    const panel = reply.open_panel;
    if (!panel)
      return {
        ...done,
        status: 'warn',
        message: 'action open_panel without "open_panel": zot has no panel to open',
        frame: line,
        sent,
      };
    kit.child.send({ type: 'panel_close', panel_id: panel.id });
    return {
      ...done,
      status: 'pass',
      message: `answered in ${ms} ms: opened panel "${panel.id}" (closed again)`,
    };
  }
  if (action !== 'noop') {
    const field = (reply as Record<string, unknown>)[action];
    if (typeof field !== 'string' || field.trim() === '')
      return {
        ...done,
        status: 'warn',
        message: `action ${action} without "${action}" text: zot has nothing to ${action}`,
        frame: line,
        sent,
      };
  }
  return { ...done, status: 'pass', message: `answered in ${ms} ms (action ${action})` };
}

export async function tools(kit: Kit, probes: Probe[]): Promise<void> {
  const all = [...kit.registry.tools.values()];
  for (const tool of all.slice(0, MAX_EXERCISED)) {
    if (isBuiltinTool(tool.name)) {
      kit.checks.skip(
        { check: 'tool', target: tool.name },
        'shadowed by a built-in tool: zot never calls it',
      );
      continue;
    }
    await exerciseTool(kit, tool, probes);
  }
  tooMany(kit, 'tool', all.length);
}

async function exerciseTool(kit: Kit, tool: ToolRegistration, probes: Probe[]): Promise<void> {
  const ms = kit.timeouts.toolMs;
  const kind = tool.deferred ? ' (deferred: called as if activated)' : '';
  const base = { check: 'tool', target: tool.name } as const;
  const valid = await validArgs(tool.name, tool.schema);
  let answered = true;
  if (!valid.ok) {
    kit.checks.skip(
      base,
      `not called: could not make up valid arguments: ${valid.reason}; call it yourself`,
    );
  } else if (!notRunning(kit, base)) {
    const frame: Request = { type: 'tool_call', name: tool.name, args: valid.value };
    const { sent, outcome } = await ask(kit, frame, ms);
    const failed = noAnswer(base, sent, outcome, 'tool_result', ms);
    answered = outcome.kind === 'reply' || outcome.kind === 'malformed';
    if (failed || outcome.kind !== 'reply') kit.checks.add(failed!);
    else {
      const reply = outcome.frame as ToolResultFrame;
      const check = judgeResult(kit, tool, reply, outcome.line, sent);
      if (check) kit.checks.add({ ...check, ms: outcome.ms });
      else if (reply.is_error === true)
        kit.checks.add({
          ...base,
          status: 'warn',
          ms: outcome.ms,
          message: `returned an error for arguments its schema accepts${kind}: ${firstText(reply)}`,
          frame: outcome.line,
          sent,
        });
      else {
        probes.push({ frame, timeoutMs: ms, what: `tool ${tool.name}` });
        kit.checks.add({
          ...base,
          status: 'pass',
          ms: outcome.ms,
          message: `answered in ${outcome.ms} ms${kind}, arguments ${cut(JSON.stringify(valid.value), 120)}`,
        });
      }
      if (kit.protocolVersion >= 2 && reply.details !== undefined) {
        const verdict = judgeDetails(reply.details);
        const shown = verdict.status === 'pass' ? {} : { frame: outcome.line };
        kit.checks.add({ check: 'details', target: tool.name, ...verdict, ...shown });
      }
    }
  }
  await invalidCall(kit, tool, valid.ok ? valid.value : {}, answered);
}

/** A result zot would not pass on as it is (bad images, unknown activations), or undefined. */
function judgeResult(
  kit: Kit,
  tool: ToolRegistration,
  reply: ToolResultFrame,
  line: string,
  sent: string,
): Check | undefined {
  const base = { check: 'tool', target: tool.name } as const;
  const output = convertToolResult(kit.manifest.name, tool.name, reply);
  if (output.isError && reply.is_error !== true) {
    const text = output.content[0]?.type === 'text' ? output.content[0].text : 'an error';
    return {
      ...base,
      status: 'fail',
      message: `zot replaces this result with an error: ${text}`,
      frame: line,
      sent,
    };
  }
  const unknown = (reply.activate_tools ?? []).filter(
    (name) => kit.registry.tools.get(name)?.deferred !== true,
  );
  if (unknown.length > 0)
    return {
      ...base,
      status: 'warn',
      message: `activate_tools names ${unknown.map((n) => JSON.stringify(n)).join(', ')}, not deferred tools of this extension (zot ignores what it does not know)`,
      frame: line,
      sent,
    };
  return undefined;
}

async function invalidCall(
  kit: Kit,
  tool: ToolRegistration,
  valid: Record<string, unknown>,
  answered: boolean,
): Promise<void> {
  const ms = kit.timeouts.toolMs;
  const base = { check: 'tool_invalid_args', target: tool.name } as const;
  if (notRunning(kit, base)) return;
  if (!answered) {
    kit.checks.skip(base, 'not run: the call with valid arguments got no answer');
    return;
  }
  const invalid = await invalidArgs(tool.name, tool.schema, valid);
  if (!invalid.ok) {
    kit.checks.skip(base, `not run: ${invalid.reason}`);
    return;
  }
  const { sent, outcome } = await ask(
    kit,
    { type: 'tool_call', name: tool.name, args: invalid.value },
    ms,
  );
  const why = invalid.why ?? 'invalid';
  if (outcome.kind === 'exited') {
    kit.checks.add({
      ...base,
      status: 'fail',
      ms: outcome.ms,
      message: `crashed: the extension ${outcome.how} when called with invalid arguments (${why}); answer with "is_error": true instead`,
      sent,
    });
    return;
  }
  const failed = noAnswer(base, sent, outcome, 'tool_result', ms);
  if (failed || outcome.kind !== 'reply') {
    kit.checks.add({ ...failed!, message: `${failed!.message} (arguments: ${why})` });
    return;
  }
  const reply = outcome.frame as ToolResultFrame;
  if (reply.is_error === true)
    kit.checks.add({
      ...base,
      status: 'pass',
      ms: outcome.ms,
      message: `error result in ${outcome.ms} ms for ${why}`,
    });
  else
    kit.checks.add({
      ...base,
      status: 'warn',
      ms: outcome.ms,
      message: `accepted arguments its schema refuses (${why}) without "is_error"; zot checks arguments first, other callers may not`,
      frame: outcome.line,
      sent,
    });
}
