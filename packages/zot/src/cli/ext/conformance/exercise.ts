// Driving a ready extension through every request the host can send it: each command once with
// empty arguments, each tool (deferred ones too) with made-up valid and then invalid arguments,
// each interception it declared, its subscribed events and an unknown frame type.
import type {
  CommandResponseFrame,
  EventInterceptResponseFrame,
  ToolResultFrame,
} from '@zot/protocol';
import type { RequestType } from '../../../extensions/peer.js';
import type { ToolRegistration } from '../../../extensions/registrations.js';
import { convertToolResult } from '../../../extensions/tool-adapter.js';
import { invalidArgs, validArgs } from './args.js';
import type { Outcome } from './child.js';
import { isBuiltinCommand, isBuiltinTool, noAnswer, notRunning, type Kit } from './kit.js';
import { cut, type Check } from './report.js';

/** Most commands and most tools exercised; the rest are named in one skip. */
const MAX_EXERCISED = 50;
const SAMPLE_COMMAND = 'echo zot ext test';

type Request = { type: RequestType } & Record<string, unknown>;

/** A request the extension answered well, repeated to see whether it still answers. */
export interface Probe {
  frame: Request;
  timeoutMs: number;
  what: string;
}

function ask(
  kit: Kit,
  frame: Request,
  timeoutMs: number,
): Promise<{ sent: string; outcome: Outcome }> {
  const { sent, outcome } = kit.child.request(frame, timeoutMs);
  return outcome.then((result) => ({ sent, outcome: result }));
}

function firstText(frame: ToolResultFrame): string {
  const block = (frame.content ?? []).find((b) => b.type === 'text') as
    | { text?: string }
    | undefined;
  return cut(block?.text ?? '(no text)', 160);
}

function tooMany(kit: Kit, check: 'command' | 'tool', count: number): void {
  if (count > MAX_EXERCISED)
    kit.checks.add({
      check,
      status: 'skip',
      message: `${count - MAX_EXERCISED} more not exercised (the kit calls at most ${MAX_EXERCISED})`,
    });
}

export async function commands(kit: Kit, probes: Probe[]): Promise<void> {
  const all = [...kit.registry.commands.values()];
  const ms = kit.timeouts.commandMs;
  for (const command of all.slice(0, MAX_EXERCISED)) {
    const base = { check: 'command', target: command.name } as const;
    if (isBuiltinCommand(command.name)) {
      kit.checks.add({
        ...base,
        status: 'skip',
        message: 'shadowed by a built-in: zot never sends it',
      });
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
      kit.checks.add({
        check: 'tool',
        target: tool.name,
        status: 'skip',
        message: 'shadowed by a built-in tool: zot never calls it',
      });
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
    kit.checks.add({
      ...base,
      status: 'skip',
      message: `not called: could not make up valid arguments: ${valid.reason}; call it yourself`,
    });
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
    kit.checks.add({
      ...base,
      status: 'skip',
      message: 'not run: the call with valid arguments got no answer',
    });
    return;
  }
  const invalid = await invalidArgs(tool.name, tool.schema, valid);
  if (!invalid.ok) {
    kit.checks.add({ ...base, status: 'skip', message: `not run: ${invalid.reason}` });
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

const INTERCEPT_FRAMES: Record<string, Record<string, unknown>> = {
  tool_call: {
    event: 'tool_call',
    tool_id: 'zot-ext-test-1',
    tool_name: 'bash',
    tool_args: { command: SAMPLE_COMMAND },
  },
  turn_start: { event: 'turn_start', step: 1 },
  assistant_message: {
    event: 'assistant_message',
    text: 'zot ext test: a harmless assistant message.',
  },
};

export async function intercepts(kit: Kit, probes: Probe[]): Promise<void> {
  const ms = kit.timeouts.interceptMs;
  for (const event of kit.registry.intercepts) {
    const base = { check: 'intercept', target: event } as const;
    if (notRunning(kit, base)) continue;
    const frame: Request = { type: 'event_intercept', ...INTERCEPT_FRAMES[event] };
    const { sent, outcome } = await ask(kit, frame, ms);
    const failed = noAnswer(base, sent, outcome, 'event_intercept_response', ms);
    if (failed || outcome.kind !== 'reply') {
      kit.checks.add({
        ...failed!,
        message: `${failed!.message}; zot treats a missing answer as allow`,
      });
      continue;
    }
    probes.push({ frame, timeoutMs: ms, what: `intercept ${event}` });
    const reply = outcome.frame as EventInterceptResponseFrame;
    const done = { ...base, ms: outcome.ms };
    const args = reply.modified_args;
    if (reply.block === true)
      kit.checks.add({
        ...done,
        status: 'pass',
        message: `answered in ${outcome.ms} ms: blocked (${cut(reply.reason ?? 'no reason', 120)})`,
      });
    else if (
      event === 'tool_call' &&
      args !== undefined &&
      (args === null || typeof args !== 'object' || Array.isArray(args))
    )
      kit.checks.add({
        ...done,
        status: 'warn',
        message: 'modified_args is not a JSON object: zot ignores it',
        frame: outcome.line,
        sent,
      });
    else kit.checks.add({ ...done, status: 'pass', message: `answered in ${outcome.ms} ms` });
  }
}

const EVENT_FRAMES: Record<string, Record<string, unknown>> = {
  session_start: {},
  turn_start: { step: 1 },
  tool_call: {
    tool_id: 'zot-ext-test-1',
    tool_name: 'bash',
    tool_args: { command: SAMPLE_COMMAND },
  },
  tool_confirmation_requested: {
    tool_id: 'zot-ext-test-1',
    tool_name: 'bash',
    tool_preview: SAMPLE_COMMAND,
  },
  assistant_message: { text: 'zot ext test: a harmless assistant message.' },
  turn_end: { stop: 'end_turn' },
};

/** Sends each subscribed event once, then checks that the extension still answers. */
export async function events(kit: Kit, probes: Probe[]): Promise<void> {
  const names = [...kit.registry.events];
  if (names.length === 0 || notRunning(kit, { check: 'events' })) return;
  for (const event of names) kit.child.send({ type: 'event', event, ...EVENT_FRAMES[event] });
  await stillAnswers(kit, probes, { check: 'events' }, `after the events ${names.join(', ')}`);
}

/** Sends a frame type no host sends, then checks that the extension still answers. */
export async function unknownFrame(kit: Kit, probes: Probe[]): Promise<void> {
  const base = { check: 'unknown_frame' } as const;
  if (notRunning(kit, base)) return;
  kit.child.send({
    type: 'zot_ext_test_unknown_frame',
    id: 'zot-ext-test',
    data: { future: [1, 'two', null] },
  });
  await stillAnswers(kit, probes, base, 'after a frame of an unknown type');
}

async function stillAnswers(
  kit: Kit,
  probes: Probe[],
  base: Pick<Check, 'check' | 'target'>,
  when: string,
): Promise<void> {
  const probe = probes[0];
  if (!probe) {
    // Nothing it answered before to ask again: it must at least stay up for a moment.
    await kit.child.waitUntil(() => false, Math.min(300, kit.timeouts.autoReadyMs));
    if (kit.child.ended)
      kit.checks.add({
        ...base,
        status: 'fail',
        message: `the extension ${kit.child.exitText} ${when}`,
      });
    else
      kit.checks.add({
        ...base,
        status: 'pass',
        message: `still running ${when} (it answered no request the kit could repeat)`,
      });
    return;
  }
  const { sent, outcome } = await ask(kit, probe.frame, probe.timeoutMs);
  const failed = noAnswer(base, sent, outcome, 'answer', probe.timeoutMs);
  if (failed) kit.checks.add({ ...failed, message: `${when}: ${failed.message}` });
  else
    kit.checks.add({
      ...base,
      status: 'pass',
      ms: outcome.ms,
      message: `still answers ${when} (${probe.what} in ${outcome.ms} ms)`,
    });
}
