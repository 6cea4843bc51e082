// What every phase of `zot ext test` shares: the extension under test, the checks so far, the
// host's timeouts, and the registrations the host would have accepted.
import type { ProtocolVersion } from '@zot/protocol';
import type { Manifest } from '../ext-setup/manifest.js';
import {
  checkCommand,
  checkSubscription,
  checkTool,
  type Registrations,
} from '../extensions/registrations.js';
import type { ExtensionTimeouts } from '../extensions/timeouts.js';
import { BUILTIN_COMMANDS } from '../session/commands.js';
import { RESERVED_TOOL_NAMES } from '../tools/index.js';
import type { ExtensionChild, Line, Outcome } from './child.js';
import type { Check, Checks } from './report.js';
import type { V2Observer } from './v2-observer.js';

export interface HostInfo {
  zot_version: string;
  provider: string;
  model: string;
  cwd: string;
  data_dir: string;
}

export interface Kit {
  child: ExtensionChild;
  checks: Checks;
  timeouts: ExtensionTimeouts;
  manifest: Manifest;
  host: HostInfo;
  registry: Registrations;
  /** How many of child.registrations have been checked. */
  checkedRegistrations: number;
  /** The version negotiated in hello (1 until then, and when hello named none). */
  protocolVersion: ProtocolVersion;
  /** Watches what a version-2 extension sends on its own (set once hello negotiated 2). */
  v2?: V2Observer;
  /**
   * A remote extension (`zot ext test --url`): reached over the network, named by its hello
   * (`manifest` is the one zot makes for an --ext-url); process checks do not apply to it.
   */
  remote?: { transport: 'websocket' | 'http'; url: string };
}

/** The start of a skip's message for a check only a process can pass (a remote's). */
export const NOT_FOR_REMOTE = 'not applicable to a remote extension:';

const BUILTIN_COMMAND_SET = new Set(BUILTIN_COMMANDS.map((name) => name.toLowerCase()));
const BUILTIN_TOOL_SET = new Set(RESERVED_TOOL_NAMES);

export function emptyRegistry(): Registrations {
  return { commands: new Map(), tools: new Map(), events: new Set(), intercepts: new Set() };
}

export function isBuiltinCommand(name: string): boolean {
  return BUILTIN_COMMAND_SET.has(name.toLowerCase());
}
export function isBuiltinTool(name: string): boolean {
  return BUILTIN_TOOL_SET.has(name);
}

/** The failed check of a registration zot refuses (`problem` says why), with its line. */
function rejected(
  frame: { type: 'register_command' | 'register_tool'; name: string },
  problem: string,
  text: string,
): Check {
  return {
    check: frame.type,
    target: frame.name,
    status: 'fail',
    message: `zot rejects it: ${problem}`,
    frame: text,
  };
}

/**
 * Checks the registrations received since the last call with the host's own validation
 * (names, schema meta-validation and lint, subscription names) and records those it accepts.
 * `late` marks registrations sent after the kit began exercising the extension.
 */
export function checkRegistrations(kit: Kit, late = false): void {
  const { child, checks, registry } = kit;
  const when = late ? ' (registered late, while being exercised)' : '';
  for (const line of child.registrations.slice(kit.checkedRegistrations)) {
    const frame = line.frame!;
    if (frame.type === 'register_command') {
      const result = checkCommand(frame);
      if (typeof result === 'string') {
        checks.add(rejected(frame, result, line.text));
        continue;
      }
      registry.commands.set(result.name.toLowerCase(), result);
      if (isBuiltinCommand(result.name))
        checks.add({
          check: 'register_command',
          target: result.name,
          status: 'warn',
          message: `shadowed: zot keeps its built-in /${result.name}, so this command never runs${when}`,
          frame: line.text,
        });
      else
        checks.add({
          check: 'register_command',
          target: result.name,
          status: 'pass',
          message: `/${result.name} accepted${when}`,
        });
    } else if (frame.type === 'register_tool') {
      const result = checkTool(frame);
      if (typeof result === 'string') {
        checks.add(rejected(frame, result, line.text));
        continue;
      }
      registry.tools.set(result.name, result);
      const kind = result.deferred ? 'deferred tool' : 'tool';
      if (isBuiltinTool(result.name))
        checks.add({
          check: 'register_tool',
          target: result.name,
          status: 'warn',
          message: `shadowed: zot keeps its built-in tool ${result.name}, so this one is never called${when}`,
          frame: line.text,
        });
      else if (result.description.trim() === '')
        checks.add({
          check: 'register_tool',
          target: result.name,
          status: 'warn',
          message: `${kind} accepted, but without a description the model cannot tell when to call it${when}`,
          frame: line.text,
        });
      else
        checks.add({
          check: 'register_tool',
          target: result.name,
          status: 'pass',
          message: `${kind} accepted${when}`,
        });
    } else if (frame.type === 'subscribe') {
      const { accepted, problems } = checkSubscription(
        frame.events ?? [],
        frame.intercept ?? [],
        kit.protocolVersion,
      );
      registry.events = accepted.events;
      registry.intercepts = accepted.intercept;
      const what = `events [${[...accepted.events].join(', ')}], intercept [${[...accepted.intercept].join(', ')}]`;
      if (problems.length > 0)
        checks.add({
          check: 'subscribe',
          status: 'warn',
          message: `${problems.join('; ')}; accepted ${what}${when}`,
          frame: line.text,
        });
      else checks.add({ check: 'subscribe', status: 'pass', message: `${what}${when}` });
    }
  }
  kit.checkedRegistrations = child.registrations.length;
  if (child.droppedRegistrations > 0) {
    checks.add({
      check: 'register_tool',
      status: 'warn',
      message: `${child.droppedRegistrations} more registration frames were not checked (over ${child.registrations.length})`,
    });
    child.droppedRegistrations = 0;
  }
}

/**
 * A check for the answer to one request: the failure when there was none in time, or none
 * well-formed; otherwise undefined, and the caller judges the reply.
 */
export function noAnswer(
  base: Pick<Check, 'check' | 'target'>,
  sent: string,
  outcome: Outcome,
  expected: string,
  timeoutMs: number,
): Check | undefined {
  switch (outcome.kind) {
    case 'reply':
      return undefined;
    case 'malformed':
      return {
        ...base,
        status: 'fail',
        message: `malformed ${expected}: ${outcome.error}`,
        ms: outcome.ms,
        frame: outcome.line,
        sent,
      };
    case 'timeout':
      return {
        ...base,
        status: 'fail',
        message: `no ${expected} within ${timeoutMs} ms (zot's timeout)`,
        ms: outcome.ms,
        sent,
      };
    case 'exited':
      return {
        ...base,
        status: 'fail',
        message: `the extension ${outcome.how} instead of answering`,
        ms: outcome.ms,
        sent,
      };
    case 'aborted':
      return {
        ...base,
        status: 'fail',
        message: `not answered when the overall deadline ran out`,
        ms: outcome.ms,
        sent,
      };
  }
}

/** A skip for a check that cannot run because the extension is no longer running. */
export function notRunning(kit: Kit, base: Pick<Check, 'check' | 'target'>): Check | undefined {
  if (!kit.child.ended) return undefined;
  return kit.checks.skip(base, `not run: the extension ${kit.child.exitText ?? 'is gone'}`);
}

export type { Line };
