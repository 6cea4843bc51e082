// Slash commands outside the TUI (DECISIONS 19, 21): built-ins first, then extension commands.
import type { PanelSpec } from '@zot/protocol';
import type { ExtensionHost } from '../extensions/host.js';
import { terminalSafe } from '../util/terminal-text.js';
import type { PromptOutcome, Session, SessionEvent } from './session.js';

/** Names reserved for built-in commands; extensions can never take them (DECISIONS 9). */
export const BUILTIN_COMMANDS = [
  'help',
  'clear',
  'compact',
  'reload-ext',
  'model',
  'yolo',
  'exit',
  'quit',
  'new',
  'session',
  'login',
  'logout',
  'cost',
] as const;

export type SlashResult =
  | { kind: 'prompt'; outcome: PromptOutcome }
  | { kind: 'display'; extension?: string; text: string }
  | { kind: 'insert'; extension: string; text: string }
  | { kind: 'panel'; extension: string; panel: PanelSpec }
  | { kind: 'noop' }
  | { kind: 'error'; message: string };

export function parseSlash(text: string): { name: string; args: string } | undefined {
  const match = /^\/(\S+)(?:\s+([\s\S]*))?$/.exec(text.trim());
  return match ? { name: match[1]!, args: (match[2] ?? '').trim() } : undefined;
}

function helpText(host: ExtensionHost | undefined): string {
  const lines = [
    'Commands:',
    '  /help          this list',
    '  /clear         drop the transcript',
    '  /compact       summarise the transcript',
    '  /reload-ext    restart every extension',
    '  /yolo [on|off] stop or resume asking before tools run (with --no-yolo)',
  ];
  for (const command of host?.commands() ?? []) {
    // One line per command: a description cannot add lines or drive the terminal.
    const description = terminalSafe(command.description);
    lines.push(`  /${command.name.padEnd(12)} ${description} [${command.extension}]`);
  }
  return lines.join('\n');
}

/** The event JSON and RPC clients see for a command's result (DECISIONS 19). */
export function slashResultEvent(result: SlashResult): SessionEvent | undefined {
  switch (result.kind) {
    case 'display':
      return { type: 'ext_display', extension: result.extension ?? 'zot', text: result.text };
    case 'insert':
      return { type: 'ext_insert', extension: result.extension, text: result.text };
    case 'panel':
      return { type: 'ext_panel_open', extension: result.extension, panel: result.panel };
    case 'error':
      return { type: 'error', message: result.message };
    default:
      return undefined;
  }
}

/**
 * Runs `/name args` the way the TUI would; the caller surfaces the result.
 * Contract: never rejects; unknown commands and extension failures come back as errors.
 */
export async function runSlashCommand(session: Session, text: string): Promise<SlashResult> {
  const parsed = parseSlash(text);
  if (!parsed) return { kind: 'error', message: `not a slash command: ${text}` };
  const host = session.extensions;
  const name = parsed.name.toLowerCase();
  switch (name) {
    case 'help':
      return { kind: 'display', text: helpText(host) };
    case 'clear':
      try {
        session.clear();
        return { kind: 'display', text: 'transcript cleared' };
      } catch (error) {
        return { kind: 'error', message: (error as Error).message };
      }
    case 'compact': {
      const result = await session.compact();
      return result.error ? { kind: 'error', message: result.error } : { kind: 'noop' };
    }
    case 'yolo': {
      const gate = session.confirmation;
      if (!gate)
        return {
          kind: 'display',
          text: 'tools already run without asking (start with --no-yolo to be asked)',
        };
      const arg = parsed.args.toLowerCase();
      const on = arg === 'on' ? true : arg === 'off' ? false : !gate.isYolo;
      gate.setYolo(on);
      return {
        kind: 'display',
        text: on
          ? 'yolo on: tools run without asking'
          : 'yolo off: you are asked before each tool runs',
      };
    }
    case 'reload-ext': {
      if (!host) return { kind: 'error', message: 'extensions are not loaded in this run' };
      const reports = await session.reloadExtensions();
      const ok = reports.filter((r) => r.status === 'ready' || r.status === 'auto-ready').length;
      return {
        kind: 'display',
        text: `reloaded extensions: ${ok} ready, ${reports.length - ok} not loaded`,
      };
    }
  }
  if ((BUILTIN_COMMANDS as readonly string[]).includes(name)) {
    return { kind: 'error', message: `/${name} needs the interactive TUI` };
  }
  if (!host?.hasCommand(name))
    return { kind: 'error', message: `unknown command /${parsed.name} (try /help)` };
  const outcome = await host.runCommand(name, parsed.args);
  if (outcome.kind === 'error') return { kind: 'error', message: outcome.message };
  const { response, extension } = outcome;
  if (response.error)
    return { kind: 'error', message: `/${parsed.name} (${extension}): ${response.error}` };
  switch (response.action ?? 'noop') {
    case 'prompt':
      if (!response.prompt?.trim())
        return { kind: 'error', message: `/${parsed.name} (${extension}): empty prompt` };
      return { kind: 'prompt', outcome: await session.prompt(response.prompt) };
    case 'insert':
      return { kind: 'insert', extension, text: response.insert ?? '' };
    case 'display':
      return { kind: 'display', extension, text: response.display ?? '' };
    case 'open_panel':
      if (!response.open_panel)
        return {
          kind: 'error',
          message: `/${parsed.name} (${extension}): open_panel without a panel`,
        };
      return { kind: 'panel', extension, panel: response.open_panel };
    default:
      return { kind: 'noop' };
  }
}
