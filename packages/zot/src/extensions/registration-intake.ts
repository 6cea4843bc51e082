// What one extension registered (commands, tools, its subscription), taken from its frames
// through the same checks as every registration, within the per-extension limits.
import type { FrameFromExtension, ProtocolVersion } from '@zot/protocol';
import {
  checkCommand,
  checkSubscription,
  checkTool,
  REGISTRATION_LIMITS,
} from './registrations.js';
import type { Registrations } from './registrations.js';

/** The frames that change what an extension registered. */
export type RegistrationFrame = Extract<
  FrameFromExtension,
  { type: 'register_command' | 'register_tool' | 'subscribe' | 'unregister_tool' }
>;

export class RegistrationIntake {
  readonly commands: Registrations['commands'] = new Map();
  readonly tools: Registrations['tools'] = new Map();
  events = new Set<string>();
  intercepts = new Set<string>();
  /** Whether it registered anything in this run (it may then be auto-readied). */
  registeredAny = false;
  private readonly refusedOverCap = { tool: 0, command: 0 };
  /** What it registered in an earlier run (remembered.ts), offered until it is ready. */
  private remembered: Registrations | undefined;

  /** `warn`: a protocol problem (log and `doctor`); `log`: a log line only. */
  constructor(
    private readonly warn: (message: string) => void,
    private readonly log: (message: string) => void,
  ) {}

  /**
   * Takes one registration frame. Returns 'registered' when it registered something (a command,
   * a tool, a subscription), 'unregistered' when it removed a tool, undefined when it changed
   * nothing (refused, named in the log).
   */
  take(
    frame: RegistrationFrame,
    protocolVersion: ProtocolVersion,
  ): 'registered' | 'unregistered' | undefined {
    switch (frame.type) {
      case 'register_command': {
        const result = checkCommand(frame);
        if (typeof result === 'string') return this.refuse(result);
        const key = result.name.toLowerCase();
        if (this.overCap('command', this.commands, key)) return undefined;
        this.commands.set(key, result);
        return this.noteRegistered();
      }
      case 'register_tool': {
        const result = checkTool(frame);
        if (typeof result === 'string') return this.refuse(result);
        if (this.overCap('tool', this.tools, result.name)) return undefined;
        this.tools.set(result.name, result);
        return this.noteRegistered();
      }
      case 'subscribe': {
        const { accepted, problems } = checkSubscription(
          frame.events ?? [],
          frame.intercept ?? [],
          protocolVersion,
        );
        problems.forEach((problem) => this.warn(problem));
        this.events = accepted.events;
        this.intercepts = accepted.intercept;
        return this.noteRegistered();
      }
      case 'unregister_tool':
        if (!this.tools.delete(frame.name)) {
          this.warn(`unregister_tool: this extension registered no tool "${frame.name}"; ignored`);
          return undefined;
        }
        this.log(`unregistered tool ${frame.name}`);
        return 'unregistered';
    }
  }

  /** Offers `registrations` of an earlier run in place of its own, until forgotten. */
  remember(registrations: Registrations): void {
    this.remembered = registrations;
  }

  /** Stops offering remembered registrations; true when some were offered. */
  forgetRemembered(): boolean {
    const had = this.remembered !== undefined;
    this.remembered = undefined;
    return had;
  }

  get hasRemembered(): boolean {
    return this.remembered !== undefined;
  }

  /** The registrations offered: remembered ones when `remembered` and there are some. */
  offered(remembered: boolean): Pick<Registrations, 'tools' | 'commands'> {
    return remembered && this.remembered !== undefined ? this.remembered : this;
  }

  private noteRegistered(): 'registered' {
    this.registeredAny = true;
    return 'registered';
  }

  private refuse(problem: string): undefined {
    this.warn(`rejected: ${problem}`);
    return undefined;
  }

  /**
   * Whether registering `key` anew would pass the limit of its kind; the first refusal is a
   * warning (log and `doctor`), later ones are only counted in the log, so that a flood of
   * registrations cannot flood the log too.
   */
  private overCap(
    kind: 'tool' | 'command',
    registered: Map<string, unknown>,
    key: string,
  ): boolean {
    const limit =
      kind === 'tool'
        ? REGISTRATION_LIMITS.toolsPerExtension
        : REGISTRATION_LIMITS.commandsPerExtension;
    if (registered.has(key) || registered.size < limit) return false;
    const refused = (this.refusedOverCap[kind] += 1);
    if (refused === 1)
      this.warn(
        `rejected: register_${kind} "${key}": over the limit of ${limit} ${kind}s per extension; later ${kind}s are refused too`,
      );
    else if (refused % 1000 === 0) this.log(`${refused} ${kind}s refused so far (limit ${limit})`);
    return true;
  }
}
