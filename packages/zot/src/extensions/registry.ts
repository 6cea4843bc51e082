// What the running extensions offer: the catalog of commands and tools (rebuilt after any
// registration change), running a command, and the deferred tools activated so far.
import type { CommandResponseFrame } from '@zot/protocol';
import type { Tool } from '../agent/tool.js';
import { buildCatalog, type Builtins, type Catalog } from './catalog.js';
import type { RunningExtension } from './extension.js';
import { RequestError } from './peer.js';
import type { ExtensionTimeouts } from './timeouts.js';
import { REGISTRATION_LIMITS } from './registrations.js';
import { extensionTool } from './tool-adapter.js';

export type CommandOutcome =
  | { kind: 'response'; extension: string; response: CommandResponseFrame }
  | { kind: 'error'; extension: string; message: string };

export interface RegistryDeps {
  /** The spawned extensions, in load order. */
  extensions(): readonly RunningExtension[];
  builtins: Builtins;
  timeouts: ExtensionTimeouts;
  /** Every command answer, before it goes back to the caller (panels open here). */
  onCommandResponse(extension: RunningExtension, response: CommandResponseFrame): void;
  /** The commands on offer changed (after `commandsRevision` was bumped). */
  onCommandsChanged?(): void;
}

/** Contract: never throws; activated deferred tools survive reset() (a reload keeps them). */
export class ExtensionRegistry {
  private catalog: Catalog | undefined;
  private readonly conflictsLogged = new Set<string>();
  private readonly leftOutLogged = new Set<string>();
  private readonly activated = new Set<string>();
  private readonly toolCache = new WeakMap<object, Tool>();
  private commandsSeen = '[]';
  private commandsCheck: NodeJS.Immediate | undefined;
  /** Bumped each time the commands on offer change (front ends list them again). */
  commandsRevision = 0;

  constructor(private readonly deps: RegistryDeps) {}

  /** Registrations changed (or an extension went away): rebuild on the next read. */
  invalidate(): void {
    this.catalog = undefined;
    this.checkCommandsSoon();
  }

  /**
   * Compares the commands on offer with the last ones seen, once the frames being read now are
   * handled (a burst of registrations is looked at once, not once per frame).
   */
  private checkCommandsSoon(): void {
    if (this.commandsCheck || !this.deps.onCommandsChanged) return;
    this.commandsCheck = setImmediate(() => {
      this.commandsCheck = undefined;
      const seen = JSON.stringify(this.commands());
      if (seen === this.commandsSeen) return;
      this.commandsSeen = seen;
      this.commandsRevision++;
      this.deps.onCommandsChanged?.();
    });
    this.commandsCheck.unref();
  }

  /**
   * Builds the catalog now, so that conflicts, and tools left out of what the model is offered,
   * are logged (and in the reports) at once.
   */
  refresh(): void {
    this.catalog = undefined;
    this.toolSource.active();
    this.checkCommandsSoon();
  }

  /** For a new set of extensions: conflicts are logged afresh. */
  reset(): void {
    this.catalog = undefined;
    this.checkCommandsSoon();
    this.conflictsLogged.clear();
    this.leftOutLogged.clear();
  }

  private current(): Catalog {
    if (!this.catalog) {
      const live = this.deps
        .extensions()
        .filter(
          (e) =>
            e.state === 'ready' ||
            e.state === 'exited' ||
            e.state === 'handshaking' ||
            e.offersRemembered,
        );
      this.catalog = buildCatalog(live, this.deps.builtins, this.conflictsLogged);
    }
    return this.catalog;
  }

  /** Registered extension commands that won their name, in load order. */
  commands(): Array<{ name: string; description: string; extension: string }> {
    return [...this.current().commands.values()].map(({ extension, command }) => ({
      name: command.name,
      description: command.description,
      extension: extension.name,
    }));
  }

  hasCommand(name: string): boolean {
    return this.current().commands.has(name.toLowerCase());
  }

  /** Runs a slash command. Contract: never rejects; failures come back as `kind: 'error'`. */
  async runCommand(name: string, args: string): Promise<CommandOutcome> {
    const entry = this.current().commands.get(name.toLowerCase());
    if (!entry) return { kind: 'error', extension: '', message: `unknown command /${name}` };
    const { extension, command } = entry;
    // Offered from what it registered in an earlier run: wait for its start (bounded by its
    // hello and ready deadlines), then run it if it registered the command again.
    if (!extension.settled) {
      await extension.release(`its command /${command.name} was run`);
      if (extension.running && !extension.commands.has(name.toLowerCase()))
        return {
          kind: 'error',
          extension: extension.name,
          message: `/${command.name}: extension ${extension.name} no longer registers this command; see ${extension.logPath}`,
        };
    }
    if (!extension.running) {
      return {
        kind: 'error',
        extension: extension.name,
        message: `/${command.name}: ${extension.unavailable}`,
      };
    }
    const timeoutMs = this.deps.timeouts.commandMs;
    try {
      const response = await extension.peer.request(
        { type: 'command_invoked', name: command.name, args: args.trim() },
        `/${command.name}`,
        timeoutMs,
      );
      this.deps.onCommandResponse(extension, response);
      return { kind: 'response', extension: extension.name, response };
    } catch (error) {
      const message =
        error instanceof RequestError && error.reason === 'timeout'
          ? `/${command.name}: extension ${extension.name} did not answer within ${timeoutMs} ms; see ${extension.logPath}`
          : `/${command.name}: ${(error as Error).message}`;
      extension.log.write(message);
      return { kind: 'error', extension: extension.name, message };
    }
  }

  /**
   * The tool source the session's registry reads before every model request. What is offered
   * is bounded (REGISTRATION_LIMITS: count and bytes), in load order; a tool past the bounds is
   * left out of the request, with a warning once in its extension's log and `doctor`.
   */
  readonly toolSource = {
    active: (): Tool[] => {
      const tools: Tool[] = [];
      const { offeredTools, offeredBytes } = REGISTRATION_LIMITS;
      const leftOut = new Map<RunningExtension, { first: string; count: number; limit: string }>();
      let bytes = 0;
      for (const [name, entry] of this.current().tools) {
        if (entry.tool.deferred && !this.activated.has(name)) continue;
        if (tools.length >= offeredTools || bytes + entry.tool.bytes > offeredBytes) {
          const limit =
            tools.length >= offeredTools
              ? `${offeredTools} extension tools`
              : `${offeredBytes / (1024 * 1024)} MiB of extension tool definitions`;
          const seen = leftOut.get(entry.extension);
          if (seen) seen.count++;
          else leftOut.set(entry.extension, { first: name, count: 1, limit });
          continue;
        }
        bytes += entry.tool.bytes;
        tools.push(this.toolFor(entry.extension, entry.tool));
      }
      for (const [extension, { first, count, limit }] of leftOut) {
        if (this.leftOutLogged.has(extension.name)) continue;
        this.leftOutLogged.add(extension.name);
        extension.warn(
          `${count} of its tools, from ${first} on, are not offered to the model: one request offers at most ${limit} (zot's limit), taken in load order`,
        );
      }
      return tools;
    },
    find: (name: string): Tool | undefined => {
      const entry = this.current().tools.get(name);
      return entry ? this.toolFor(entry.extension, entry.tool) : undefined;
    },
  };

  private toolFor(
    extension: RunningExtension,
    registration: object & Parameters<typeof extensionTool>[1],
  ): Tool {
    let tool = this.toolCache.get(registration);
    if (!tool) {
      tool = extensionTool(extension, registration, {
        toolTimeoutMs: this.deps.timeouts.toolMs,
        activate: (from, names) => this.activate(from, names),
      });
      this.toolCache.set(registration, tool);
    }
    return tool;
  }

  /** activate_tools: deferred tools become visible from the next model request on. */
  private activate(from: RunningExtension, names: string[]): void {
    const tools = this.current().tools;
    for (const name of names) {
      const entry = tools.get(name);
      if (!entry) from.log.write(`activate_tools: unknown tool "${name}" ignored`);
      else if (!entry.tool.deferred)
        from.log.write(`activate_tools: "${name}" is not deferred; it is always offered`);
      else this.activated.add(name);
    }
  }
}
