// One registry of slash commands, built-in and from extensions: it feeds /help, RPC
// get_commands and the TUI's autocomplete, and says in which modes each command works.
import type { ExtensionHost } from '../extensions/host.js';

import type { CommandInfo, CommandMode } from '../contract/front-end.js';

export type { CommandInfo, CommandMode };
export const ALL_MODES: readonly CommandMode[] = ['print', 'json', 'rpc', 'tui'];

/** The built-in commands; extensions can never take these names (design D9). */
export const BUILTIN_COMMAND_INFO: readonly CommandInfo[] = [
  { name: 'help', description: 'list commands' },
  { name: 'clear', description: 'drop the transcript' },
  { name: 'compact', description: 'summarise the transcript' },
  { name: 'new', description: 'start a new session (new transcript and session file)' },
  { name: 'model', description: 'show or switch the model', argumentHint: '[model id]' },
  { name: 'cost', description: 'tokens and cost of this session' },
  { name: 'session', description: 'the session file' },
  { name: 'name', description: 'show or set the name of this session', argumentHint: '[name]' },
  { name: 'reload-ext', description: 'restart every extension' },
  { name: 'yolo', description: 'stop or resume asking before tools run', argumentHint: '[on|off]' },
  {
    name: 'sandbox',
    description: 'show the bash sandbox, or switch it for this run (--save keeps it)',
    argumentHint: '[off|on|required] [--save]',
  },
  {
    name: 'permissions',
    description: 'the permission rules in force and recent decisions; remove a rule',
    argumentHint: '[remove <n>]',
  },
  { name: 'skills', description: 'list the skills the model can load (re-reads them)' },
  {
    name: 'export',
    description: 'write the session as an HTML page (or Markdown: a .md file or --md)',
    argumentHint: '[file] [--md]',
  },
  { name: 'sessions', description: "resume one of this directory's sessions", tui: true },
  {
    name: 'rewind',
    description: 'restore the files or the conversation to before a turn',
    tui: true,
  },
  {
    name: 'tree',
    description: "the session's branches; with a number, switch to that branch",
    argumentHint: '[branch]',
  },
  {
    name: 'fork',
    description: 'continue in a new session file holding this conversation (up to prompt N)',
    argumentHint: '[prompt number]',
  },
  { name: 'clone', description: 'continue in a copy of this session file (every branch)' },
  {
    name: 'merge',
    description: "bring a branch's summary (and its last N messages) into this branch",
    argumentHint: '<branch> [--messages N]',
  },
  { name: 'theme', description: 'choose the colour theme (previewed live)', tui: true },
  { name: 'trust', description: "review this project's extensions and trust them", tui: true },
  {
    name: 'settings',
    description: 'thinking level, shown thinking, theme, model, keys',
    tui: true,
  },
  { name: 'hotkeys', description: 'the keys in force and how to change them', tui: true },
  { name: 'copy', description: 'copy the last answer to the clipboard', tui: true },
  { name: 'login', description: 'store an API key', tui: true },
  { name: 'logout', description: 'remove a stored API key', tui: true },
  { name: 'exit', description: 'quit zot', tui: true },
  { name: 'quit', description: 'quit zot', tui: true },
].map(({ tui, ...info }) => ({
  ...info,
  source: 'builtin',
  modes: tui ? (['tui'] as const) : ALL_MODES,
}));

export const BUILTIN_COMMANDS: readonly string[] = BUILTIN_COMMAND_INFO.map((c) => c.name);

/** Every command available now: built-ins first, then extensions' in load order. */
export function listCommands(host: ExtensionHost | undefined): CommandInfo[] {
  const fromExtensions = (host?.commands() ?? []).map((command) => ({
    name: command.name,
    description: command.description,
    source: command.extension,
    modes: ALL_MODES,
  }));
  return [...BUILTIN_COMMAND_INFO, ...fromExtensions];
}

export function findBuiltin(name: string): CommandInfo | undefined {
  return BUILTIN_COMMAND_INFO.find((command) => command.name === name);
}
