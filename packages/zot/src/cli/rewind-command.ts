// `zot rewind --list` and `zot rewind <turn> [--code] [--force]`: the checkpointed turns of the
// newest session of this directory (or --session FILE), and restoring the files of one.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { loadCheckpointSettings } from '../config/checkpoint-settings.js';
import { zotPaths } from '../config/paths.js';
import { printFailure, printHelp, writeDiagnostic, writeLine, type ModeIO } from '../modes/io.js';
import { Checkpointer, type CheckpointTurn } from '../session/checkpoints/checkpointer.js';
import { CheckpointStore } from '../session/checkpoints/store.js';
import { leftBranch } from '../session/branches.js';
import { loadSession, newestSession, SessionWriter } from '../session/store.js';
import { UsageError } from '../util/errors.js';
import { terminalSafe } from '../util/terminal-text.js';
import type { CliOptions } from './args.js';

export const REWIND_HELP = `Usage: zot rewind --list [--session <file>] [--cwd <dir>]
       zot rewind <turn> [--code] [--force] [--session <file>] [--cwd <dir>]

Before a turn's first tool call zot records the working tree (a checkpoint; docs/checkpoints.md).

  --list            the checkpointed turns of the session, numbered from 1, with the files each
                    changed (+added -removed lines)
  <turn>            restore the files as they were before that turn: changed and deleted files
                    come back, files created since are removed. The rewind is itself a turn, so
                    rewinding to it undoes it
  --code            restore the files (the default; with --conversation: both)
  --conversation    move the conversation back to before that turn's prompt (a resumed session
                    continues from there; the later messages stay in the session file)
  --force           overwrite files changed outside zot since its last checkpoint (without it
                    zot names them, restores nothing and exits 1)
  --session <file>  the session to use (default: the newest session of the directory)
  --cwd <dir>       the directory (default: the current one)

Exit codes: 0 done, 1 nothing restored (a conflict, no such turn, a failure), 2 usage error.
`;

interface RewindArgs {
  list: boolean;
  turn?: number;
  code: boolean;
  conversation: boolean;
  force: boolean;
  session?: string;
  cwd: string;
}

function parseRewindArgs(options: CliOptions): RewindArgs | 'help' {
  const args = [...options.commandArgs];
  const parsed: RewindArgs = {
    list: false,
    code: false,
    conversation: false,
    force: false,
    cwd: resolve(options.cwd ?? process.cwd()),
  };
  const value = (flag: string, at: number) => {
    const next = args[at];
    if (next === undefined || next.startsWith('--'))
      throw new UsageError(`rewind: ${flag} needs a value (see zot rewind --help)`);
    return next;
  };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '-h' || arg === '--help') return 'help';
    else if (arg === '--list') parsed.list = true;
    else if (arg === '--code') parsed.code = true;
    else if (arg === '--conversation') parsed.conversation = true;
    else if (arg === '--force') parsed.force = true;
    else if (arg === '--session') parsed.session = resolve(value(arg, ++i));
    else if (arg === '--cwd') parsed.cwd = resolve(value(arg, ++i));
    else if (/^\d+$/.test(arg) && parsed.turn === undefined && Number(arg) >= 1)
      parsed.turn = Number(arg);
    else throw new UsageError(`rewind: unexpected argument ${arg} (see zot rewind --help)`);
  }
  if (parsed.list === (parsed.turn !== undefined))
    throw new UsageError('rewind: give either --list or a turn number (see zot rewind --help)');
  if (parsed.list && (parsed.code || parsed.conversation || parsed.force))
    throw new UsageError('rewind: --list takes no --code, --conversation or --force');
  return parsed;
}

/** A path as one safe line: quoted when it holds anything a terminal would act on. */
export function shownPath(path: string): string {
  return /^[\x20-\x7e\u00a0-\uffff]*$/u.test(path) && !/[\u202a-\u202e\u2066-\u2069]/.test(path)
    ? path
    : JSON.stringify(path);
}

function printTurns(turns: CheckpointTurn[], io: ModeIO): void {
  if (turns.length === 0) {
    writeLine(io.stdout, 'no checkpoints in this session (no turn has run a tool yet)');
    return;
  }
  for (const turn of turns) {
    const when = turn.time.replace('T', ' ').slice(0, 19);
    const skipped = turn.skipped > 0 ? `  (${turn.skipped} skipped)` : '';
    writeLine(io.stdout, terminalSafe(`${turn.turn}  ${when}  ${turn.label}${skipped}`));
    if (turn.files.length === 0) writeLine(io.stdout, '     no files changed');
    for (const file of turn.files) {
      const lines = file.added === undefined ? 'binary' : `+${file.added} -${file.removed}`;
      writeLine(io.stdout, terminalSafe(`     ${lines.padEnd(12)} ${shownPath(file.path)}`));
    }
  }
}

export async function runRewindCommand(options: CliOptions, io: ModeIO): Promise<number> {
  const args = parseRewindArgs(options);
  if (args === 'help') return printHelp(io, REWIND_HELP);
  const fail = (message: string) => printFailure(io, message);
  const paths = zotPaths();
  const file = args.session ?? newestSession(paths.sessions, args.cwd);
  if (!file) return fail(`no session of ${args.cwd} to rewind (give one with --session FILE)`);
  if (!existsSync(file)) return fail(`session file ${file} does not exist`);
  const loaded = loadSession(file);
  const { settings, warnings } = loadCheckpointSettings(paths.config);
  for (const warning of [...warnings, ...loaded.warnings])
    writeDiagnostic(io.stderr, `zot: warning: ${warning}`);
  const store = CheckpointStore.for(args.cwd, paths.home, {
    maxFileBytes: settings.maxFileBytes,
    maxTotalBytes: settings.maxTotalBytes,
    maxFiles: settings.maxFiles,
  });
  const writer = new SessionWriter(
    file,
    () => {
      throw new Error(`${file} is not a session file zot can append to`);
    },
    paths.sessions,
  );
  const checkpointer = new Checkpointer({
    store,
    sessionKey: file.replace(/^.*[\\/]/, '').replace(/\.jsonl$/, ''),
    record: (entry) => writer.append(entry),
    warn: (message) => writeDiagnostic(io.stderr, `zot: ${message}`),
    ...(loaded.checkpoints ? { recorded: loaded.checkpoints } : {}),
    prune: { keepDays: settings.keepDays, maxStoreBytes: settings.maxStoreBytes },
  });
  try {
    if (args.list) {
      printTurns(await checkpointer.list(), io);
      return 0;
    }
    const turn = args.turn!;
    const code = args.code || !args.conversation;
    // The conversation point is checked first: a rewind that cannot do both does neither.
    let messages: number | undefined;
    if (args.conversation) {
      if (!checkpointer.has(turn)) return fail(`there is no turn ${turn} in ${file}`);
      messages = checkpointer.conversationPoint(turn);
      if (messages === undefined || messages > loaded.messages.length) {
        return fail(
          `the conversation of ${file} was compacted or cleared after turn ${turn}; only its files can be rewound (leave out --conversation)`,
        );
      }
    }
    if (code) {
      const outcome = await checkpointer.rewind(turn, args.force);
      if (!outcome.ok) {
        if (outcome.conflicts) {
          return fail(
            `not rewound: ${outcome.conflicts.map(shownPath).join(', ')} changed outside zot since its last checkpoint; nothing was restored (--force overwrites)`,
          );
        }
        return fail(outcome.message);
      }
      for (const path of outcome.restored)
        writeLine(io.stdout, terminalSafe(`restored ${shownPath(path)}`));
      for (const path of outcome.removed)
        writeLine(io.stdout, terminalSafe(`removed  ${shownPath(path)}`));
      for (const { path, reason } of outcome.kept)
        writeLine(io.stdout, terminalSafe(`kept     ${shownPath(path)} (${reason})`));
      writeLine(
        io.stdout,
        `rewound the files to before turn ${outcome.turn}; \`zot rewind ${outcome.undoTurn}\` undoes it`,
      );
    }
    if (messages !== undefined) {
      // The branch left gets its plain summary at once, as a rewind in the TUI or RPC writes.
      const left = loaded.tree.branches().find((branch) => branch.active);
      const time = new Date().toISOString();
      writer.append({ type: 'rewind', time, turn, messages });
      const plain = left ? leftBranch(loaded.tree, left).plain : '';
      if (left && plain !== '')
        writer.append({ type: 'branch_summary', time, leaf: left.leaf, summary: plain, by: 'zot' });
      writeLine(
        io.stdout,
        `moved the conversation back to before turn ${turn} (${messages} messages kept); zot -c continues from there`,
      );
    }
    return 0;
  } catch (error) {
    return fail((error as Error).message);
  } finally {
    await checkpointer.settle();
  }
}
