// Which extension owns each command and tool name: built-ins always win, then the first
// extension in load order (design D9). Losers hear about it once, in their own log.
import type { RunningExtension } from './extension.js';
import type { CommandRegistration, ToolRegistration } from './registrations.js';

export interface CommandEntry {
  extension: RunningExtension;
  command: CommandRegistration;
}
export interface ToolEntry {
  extension: RunningExtension;
  tool: ToolRegistration;
}

export interface Catalog {
  /** Keyed by lower-case name. */
  commands: Map<string, CommandEntry>;
  tools: Map<string, ToolEntry>;
}

export interface Builtins {
  commands: ReadonlySet<string>;
  tools: ReadonlySet<string>;
}

/** Builds the winners for `extensions` (in load order), logging each new conflict once. */
export function buildCatalog(
  extensions: RunningExtension[],
  builtins: Builtins,
  logged: Set<string>,
): Catalog {
  const commands = new Map<string, CommandEntry>();
  const tools = new Map<string, ToolEntry>();
  const note = (extension: RunningExtension, key: string, message: string) => {
    const id = `${extension.name}\u0000${key}`;
    if (logged.has(id)) return;
    logged.add(id);
    extension.log.write(message);
    extension.warnings.push(message);
  };
  for (const extension of extensions) {
    for (const [key, command] of extension.offeredCommands) {
      if (builtins.commands.has(key)) {
        note(
          extension,
          `command:${key}`,
          `command /${command.name} is shadowed by the built-in /${key}; not registered`,
        );
        continue;
      }
      const owner = commands.get(key);
      if (owner) {
        note(
          extension,
          `command:${key}`,
          `command /${command.name} conflicts with /${owner.command.name} of extension ${owner.extension.name}, which loaded first and keeps it`,
        );
        continue;
      }
      commands.set(key, { extension, command });
    }
    for (const [name, tool] of extension.offeredTools) {
      if (builtins.tools.has(name)) {
        note(
          extension,
          `tool:${name}`,
          `tool ${name} is shadowed by the built-in tool ${name}; not registered`,
        );
        continue;
      }
      const owner = tools.get(name);
      if (owner) {
        note(
          extension,
          `tool:${name}`,
          `tool ${name} conflicts with the tool of extension ${owner.extension.name}, which loaded first and keeps it`,
        );
        continue;
      }
      tools.set(name, { extension, tool });
    }
  }
  return { commands, tools };
}
