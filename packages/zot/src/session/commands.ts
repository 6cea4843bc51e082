// Slash commands outside the TUI (design D19, D21): built-ins first, then extension commands.
import type { ExtensionHost } from '../extensions/host.js';
import { twoColumns } from '../util/columns.js';
import { terminalSafe } from '../util/terminal-text.js';
import { saveSandboxMode } from '../config/settings.js';
import { isSandboxMode } from '../security/sandbox/settings.js';
import { BRANCH_RUNNERS } from './branch-commands.js';
import { findBuiltin, listCommands, type CommandMode } from './command-registry.js';
import { resolve } from 'node:path';
export { BUILTIN_COMMANDS, listCommands, type CommandInfo } from './command-registry.js';
import type { SessionEvent } from '../contract/events.js';
import type { Session } from './session.js';
import { errorKindOf } from '../contract/errors.js';
import type { RequestId, SlashResult } from '../contract/front-end.js';

export type { SlashResult };

export function parseSlash(text: string): { name: string; args: string } | undefined {
  const match = /^\/(\S+)(?:\s+([\s\S]*))?$/.exec(text.trim());
  return match ? { name: match[1]!, args: (match[2] ?? '').trim() } : undefined;
}

function helpText(host: ExtensionHost | undefined, mode: CommandMode): string {
  const rows: Array<[string, string]> = [];
  for (const command of listCommands(host)) {
    if (!command.modes.includes(mode)) continue;
    // One line per command: a name or description cannot add lines or drive the terminal.
    const name = terminalSafe(
      `/${command.name}${command.argumentHint ? ` ${command.argumentHint}` : ''}`,
    );
    const source = command.source === 'builtin' ? '' : ` [${terminalSafe(command.source)}]`;
    rows.push([name, `${terminalSafe(command.description)}${source}`]);
  }
  return ['Commands:', ...twoColumns(rows)].join('\n');
}

/** `unknown command /x`, with the commands whose names start the same way (a name cut short). */
function unknownCommand(host: ExtensionHost | undefined, name: string, mode: CommandMode): string {
  const near = listCommands(host)
    .filter((command) => command.modes.includes(mode) && command.name.startsWith(name))
    .slice(0, 3)
    .map((command) => `/${command.name}`);
  const hint = near.length > 0 ? `; did you mean ${near.join(' or ')}?` : '';
  return `unknown command /${terminalSafe(name)}${hint} (try /help)`;
}

function formatUsd(value: number): string {
  return `$${value.toFixed(value < 1 ? 4 : 2)}`;
}

/** The built-ins that need no terminal UI, by name. */
/** `/permissions`: the rules (numbered for `remove`) and the recent decisions. */
function permissionsText(
  rules: Session['permissions']['rules'],
  recent: Session['permissions']['recent'],
): string {
  // rule texts come from a project's file and previews from the model: one line each, no controls
  const flat = (text: string) => text.replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ');
  const lines = ['rules (deny beats ask beats allow; what none decides follows /yolo):'];
  if (rules.length === 0) lines.push('  none');
  rules.forEach((rule, i) => {
    const from = rule.file ? `${rule.source}: ${rule.file}` : rule.source;
    lines.push(flat(`  ${i + 1}. ${rule.action.padEnd(5)} ${rule.text}  (${from})`));
  });
  lines.push('', 'recent decisions:');
  if (recent.length === 0) lines.push('  none');
  for (const event of recent.slice(-15)) {
    const rule = event.rule ? ` by ${event.rule} (${event.source})` : ` (${event.source})`;
    lines.push(
      flat(`  ${event.decision.padEnd(5)} ${event.tool}: ${event.args.slice(0, 80)}${rule}`),
    );
  }
  lines.push('', '/permissions remove <n> removes rule n (from its file)');
  return lines.join('\n');
}

const BUILTIN_RUNNERS: Record<
  string,
  (
    session: Session,
    args: string,
    mode: CommandMode,
    requestId?: RequestId,
  ) => Promise<SlashResult> | SlashResult
> = {
  ...BRANCH_RUNNERS,
  help: (session, _args, mode) => ({ kind: 'display', text: helpText(session.extensions, mode) }),
  clear: (session) => {
    session.clear();
    return { kind: 'display', text: 'transcript cleared' };
  },
  new: (session) => {
    session.startNew();
    const file = session.sessionFile;
    return {
      kind: 'display',
      text: file ? `new session: ${file}` : 'new session (not recorded: --no-session)',
    };
  },
  // The compaction's `done` carries no request id: the command ends with its command_done.
  compact: async (session) => {
    const result = await session.compact();
    if (result.error === undefined) return { kind: 'noop' };
    return {
      kind: 'error',
      message: result.error,
      ...(result.errorKind ? { errorKind: result.errorKind } : {}),
      // A failed compaction published its own error event (an aborted one is no failure).
      reported: result.errorKind !== undefined,
    };
  },
  model: (session, args) => {
    if (args === '') {
      const current = session.currentModel;
      const others = session
        .models()
        .map((m) => {
          const mark = m.id === current.id && m.provider === current.provider ? '* ' : '  ';
          return `${mark}${m.provider}/${m.id}`;
        })
        .join('\n');
      return { kind: 'display', text: `model: ${current.provider}/${current.id}\n${others}` };
    }
    const model = session.setModel(args);
    return { kind: 'display', text: `model: ${model.provider}/${model.id}` };
  },
  cost: (session) => {
    const u = session.usageTotals;
    return {
      kind: 'display',
      text:
        `tokens: ${u.input} in, ${u.output} out, ${u.cache_read} cache read, ` +
        `${u.cache_write} cache write; cost ${formatUsd(u.cost_usd)}`,
    };
  },
  session: (session) => ({
    kind: 'display',
    text: session.sessionFile ?? 'this session is not recorded (--no-session)',
  }),
  name: (session, args) => nameCommand(session, args),
  export: (session, args) => exportCommand(session, args),
  yolo: (session, args) => {
    const gate = session.confirmation;
    if (!gate)
      return {
        kind: 'display',
        text: 'tools already run without asking (start with --no-yolo to be asked)',
      };
    const arg = args.toLowerCase();
    const on = arg === 'on' ? true : arg === 'off' ? false : !gate.isYolo;
    gate.setYolo(on);
    session.refreshState();
    return {
      kind: 'display',
      text: on
        ? 'yolo on: tools run without asking'
        : 'yolo off: you are asked before each tool call no rule allows',
    };
  },
  sandbox: (session, args) => sandboxCommand(session, args),
  permissions: async (session, args) => {
    const gate = session.permissions;
    const remove = /^remove\s+(\d+)$/.exec(args.trim());
    if (remove) return { kind: 'display', text: await gate.remove(Number(remove[1])) };
    if (args.trim() !== '') return { kind: 'error', message: 'usage: /permissions [remove <n>]' };
    return { kind: 'display', text: permissionsText(gate.rules, gate.recent) };
  },
  skills: async (session) => {
    const catalog = await session.skills();
    if (!catalog) return { kind: 'display', text: 'skills are off (--no-skill)' };
    const lines = twoColumns(
      catalog.skills.map((skill) => {
        const tools = skill.allowedTools ? ` (tools: ${skill.allowedTools.join(', ')})` : '';
        const about = `${terminalSafe(skill.description)}${tools} [${skill.source}]`;
        return [terminalSafe(skill.name), about] as const;
      }),
    );
    const warnings = catalog.warnings.map((warning) => `  ! ${terminalSafe(warning)}`);
    return {
      kind: 'display',
      text: [`Skills (${catalog.skills.length}):`, ...lines, ...warnings].join('\n'),
    };
  },
  'reload-ext': async (session) => {
    const reports = await session.reloadExtensions();
    const ok = reports.filter((r) => r.status === 'ready' || r.status === 'auto-ready').length;
    return {
      kind: 'display',
      text: `reloaded extensions: ${ok} ready, ${reports.length - ok} not loaded`,
    };
  },
};

/** `/name [name]`: shows the session's name, or names it (in its file, for /sessions). */
function nameCommand(session: Session, args: string): SlashResult {
  const current = session.state().session_name;
  if (args === '')
    return {
      kind: 'display',
      text: current
        ? `session name: ${terminalSafe(current)}`
        : 'this session has no name (/name <name> gives it one)',
    };
  const file = session.sessionFile;
  if (!file) return { kind: 'error', message: 'this session is not recorded (--no-session)' };
  // Before the first prompt there is no file yet: the name is written with its first entry.
  session.renameSession(file, args);
  return {
    kind: 'display',
    text: `session name: ${terminalSafe(session.state().session_name ?? args)}`,
  };
}

/** `/export [file] [--md|--html]`: the session as a page or Markdown, in the session's directory. */
async function exportCommand(session: Session, args: string): Promise<SlashResult> {
  const words = args.split(/\s+/).filter((word) => word !== '');
  const isFlag = (word: string) => word === '--md' || word === '--html';
  const flags = words.filter(isFlag);
  const files = words.filter((word) => !isFlag(word));
  if (files.length > 1 || new Set(flags).size > 1)
    return { kind: 'error', message: 'usage: /export [file] [--md|--html]' };
  // Loaded when used: a run that exports nothing does not load the renderers.
  const {
    defaultExportName,
    documentOfSession,
    formatOfPath,
    messageCount,
    renderExport,
    writeExport,
  } = await import('./export/export-file.js');
  const flag = flags[0] === '--md' ? 'md' : flags[0] === '--html' ? 'html' : undefined;
  const format = flag ?? (files[0] !== undefined ? formatOfPath(files[0]) : 'html');
  const file = session.sessionFile;
  const doc = documentOfSession({
    file,
    messages: session.messages,
    cwd: session.cwd,
    model: `${session.currentModel.provider}/${session.currentModel.id}`,
    ...(session.state().session_name !== undefined ? { name: session.state().session_name } : {}),
  });
  const target = resolve(session.cwd, files[0] ?? defaultExportName(file, format));
  writeExport(target, renderExport(doc, format));
  const problems =
    doc.warnings.length > 0 ? ` (${doc.warnings.length} unreadable lines left out)` : '';
  return {
    kind: 'display',
    text: terminalSafe(`exported ${messageCount(doc)} messages to ${target}${problems}`),
  };
}

/** `/sandbox [off|on|required] [--save]`: shows the sandbox, or switches it. */
async function sandboxCommand(session: Session, args: string): Promise<SlashResult> {
  const sandbox = session.sandbox;
  if (!sandbox) return { kind: 'display', text: 'this session has no sandbox settings' };
  if (args === '') return { kind: 'display', text: sandbox.describe() };
  const words = args.split(/\s+/);
  const save = words.includes('--save');
  const modes = words.filter((word) => word !== '--save');
  const mode = modes[0];
  if (modes.length !== 1 || !isSandboxMode(mode))
    return { kind: 'error', message: 'usage: /sandbox [off|on|required] [--save]' };
  const refusal = sandbox.setMode(mode);
  if (refusal) return { kind: 'error', message: `/sandbox: ${refusal}` };
  let saved = ' (for this run; /sandbox ' + mode + ' --save keeps it in config.json)';
  if (save) {
    const path = session.configPath;
    if (!path)
      return { kind: 'error', message: '/sandbox: this session has no config.json to save to' };
    try {
      saveSandboxMode(path, mode);
      saved = `; saved in ${path}`;
    } catch (error) {
      return {
        kind: 'error',
        message: `/sandbox: switched for this run, but ${(error as Error).message}`,
      };
    }
  }
  if (mode !== 'off') await sandbox.check();
  session.refreshState();
  const state = sandbox.state();
  const how =
    state.status === 'active'
      ? 'bash commands run in the sandbox'
      : state.status === 'unavailable'
        ? mode === 'required'
          ? 'it cannot start here, so bash commands are refused'
          : 'it cannot start here, so bash commands run without it'
        : 'bash commands run unsandboxed';
  const problem = state.problem ? `\n${state.problem}` : '';
  return { kind: 'display', text: `sandbox ${mode}${saved}: ${how}${problem}` };
}

/** The event JSON and RPC clients see for a command's result (design D19). */
export function slashResultEvent(result: SlashResult): SessionEvent | undefined {
  switch (result.kind) {
    case 'display':
      return { type: 'ext_display', extension: result.extension ?? 'zot', text: result.text };
    case 'insert':
      return { type: 'ext_insert', extension: result.extension, text: result.text };
    case 'panel':
      return { type: 'ext_panel_open', extension: result.extension, panel: result.panel };
    case 'error':
      if (result.reported) return undefined;
      return { type: 'error', message: result.message, kind: result.errorKind ?? 'command' };
    default:
      return undefined;
  }
}

/**
 * Runs `/name args` the way the TUI would; the caller surfaces the result.
 * Contract: never rejects; unknown commands and extension failures come back as errors.
 */
export async function runSlashCommand(
  session: Session,
  text: string,
  mode: CommandMode,
  requestId?: RequestId,
): Promise<SlashResult> {
  const parsed = parseSlash(text);
  if (!parsed) return { kind: 'error', message: `not a slash command: ${text}` };
  const host = session.extensions;
  const name = parsed.name.toLowerCase();
  const builtin = findBuiltin(name);
  if (builtin) {
    const run = BUILTIN_RUNNERS[name];
    if (!run || !builtin.modes.includes(mode))
      return { kind: 'error', message: `/${name} needs the interactive TUI` };
    try {
      return await run(session, parsed.args, mode, requestId);
    } catch (error) {
      return {
        kind: 'error',
        message: (error as Error).message,
        errorKind: errorKindOf(error, 'command'),
      };
    }
  }
  if (!host?.hasCommand(name)) return { kind: 'error', message: unknownCommand(host, name, mode) };
  const outcome = await host.runCommand(name, parsed.args);
  if (outcome.kind === 'error') return { kind: 'error', message: outcome.message };
  const { response, extension } = outcome;
  if (response.error)
    return { kind: 'error', message: `/${parsed.name} (${extension}): ${response.error}` };
  switch (response.action ?? 'noop') {
    case 'prompt':
      if (!response.prompt?.trim())
        return { kind: 'error', message: `/${parsed.name} (${extension}): empty prompt` };
      return {
        kind: 'prompt',
        outcome: await session.prompt(response.prompt, [], 'follow_up', requestId, 'extension'),
      };
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
