// Dispatches a command line to a subcommand or a mode and returns the exit code. The print and
// JSON path is imported statically (main.ts already answered --version and --help); RPC, auth
// and `zot ext` load on demand.
import { fstatSync } from 'node:fs';
import { join } from 'node:path';
import { writeData, writeDiagnostic, writeLine, type ModeIO } from '../modes/io.js';
import { errorMessage, UsageError } from '../util/errors.js';
import { exitAfterFlush, watchStdio } from '../util/exit.js';
import { signalExitCode } from '../util/process-group.js';
import { parseArgs, selectMode, type CliOptions, type Mode } from './args.js';
import { zotPaths } from '../config/paths.js';
import { runJsonMode } from '../modes/json.js';
import { runPrintMode } from '../modes/print.js';
import type { Session } from '../session/session.js';
import { cwdKey } from '../session/store.js';
import { listModelRows } from './list-models.js';
import { createRuntime, type Runtime } from './setup.js';
import { ACP_HELP, MAIN_HELP } from './help.js';
import { zotVersion } from './version.js';
import { setSelfArgv } from '../util/self.js';

// For main.ts, which imports only cli.
export { exitAfterFlush };

const io: ModeIO = { stdout: process.stdout, stderr: process.stderr };
const warn = (message: string) => writeDiagnostic(io.stderr, `zot: ${message}`);

/**
 * The prompt from the arguments and, when stdin is not a terminal, from stdin. With a prompt
 * argument, stdin is read only when it is a pipe or a file (not an inherited socket that may
 * never close). `process.stdin` is touched only when needed: creating it costs start-up time.
 */
async function readPrompt(options: CliOptions): Promise<string> {
  let text = options.prompt.join(' ');
  let stat;
  try {
    stat = fstatSync(0);
  } catch {
    return text.trim(); // no stdin at all
  }
  const piped = stat.isFIFO() || stat.isFile();
  // A terminal (or /dev/null) is a character device: nothing to read. Checked with fstat, not
  // node:tty, which would load the net stack at start-up.
  if (!piped && (text !== '' || stat.isCharacterDevice())) return text.trim();
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const input = Buffer.concat(chunks).toString('utf8').trim();
  if (input) text = text ? `${text}\n\n${input}` : input;
  return text.trim();
}

/** How long a stop may take before zot exits anyway, and how long that exit waits for output. */
const STOP_GRACE_MS = 10_000;
const FLUSH_LIMIT_MS = 2_000;

/** Runs `fn` when `signal` aborts, or at once when it already has. */
function onAbort(signal: AbortSignal, fn: () => void): void {
  if (signal.aborted) fn();
  else signal.addEventListener('abort', fn, { once: true });
}

/**
 * One stop path for signals and a broken stdout: `stop` aborts with the exit code, which
 * aborts the session and makes the mode return; the normal path then shuts extensions down
 * and flushes. A stop that takes too long ends in a bounded flush and exit (the host's exit
 * hook still kills every extension process group).
 */
function watchStops(stop: AbortController): void {
  onAbort(stop.signal, () => {
    const code = stop.signal.reason as number;
    setTimeout(() => void exitAfterFlush(code, FLUSH_LIMIT_MS), STOP_GRACE_MS).unref();
  });
  watchStdio((error) => {
    // The reader went away (`zot --json | head`): a normal end (design D22).
    if (error.code === 'EPIPE' || error.code === 'ECONNRESET') return stop.abort(0);
    writeLine(io.stderr, `zot: cannot write to stdout: ${error.message}`);
    stop.abort(1);
  });
}

/** The first SIGINT/SIGTERM/SIGHUP stops the run; a second one exits at once. */
function handleInterrupts(stop: AbortController): void {
  const onSignal = (signal: NodeJS.Signals) => {
    const code = signalExitCode(signal);
    if (stop.signal.aborted) void exitAfterFlush(code, FLUSH_LIMIT_MS);
    else stop.abort(code);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  // A closed terminal: without a handler Node dies without its exit hooks, orphaning extensions.
  process.on('SIGHUP', onSignal);
}

/** `zot --list-models`: the provider's models, one per line; exit 1 when its server cannot say. */
async function listModelsCommand(options: CliOptions): Promise<number> {
  const { rows, error } = await listModelRows(options, zotPaths(), warn);
  for (const row of rows) writeData(io.stdout, row);
  if (error === undefined) return 0;
  writeDiagnostic(io.stderr, `zot: ${error}`);
  return 1;
}

async function dispatch(argv: string[], stop: AbortController): Promise<number> {
  const options = parseArgs(argv);
  if (options.help) {
    writeLine(io.stdout, options.command === 'acp' ? ACP_HELP : MAIN_HELP);
    return 0;
  }
  if (options.version) {
    writeLine(io.stdout, `zot ${zotVersion()}`);
    return 0;
  }
  if (options.command === 'auth') {
    const { runAuthCommand } = await import('./auth.js');
    return runAuthCommand(options.commandArgs, { ...io, stdin: process.stdin });
  }
  if (options.command === 'permissions') {
    const { runPermissionsCommand } = await import('./permissions-command.js');
    return runPermissionsCommand(options, io);
  }
  if (options.command === 'doctor') {
    const { runDoctorCommand } = await import('./doctor.js');
    return runDoctorCommand(options.commandArgs, io);
  }
  if (options.command === 'rewind') {
    const { runRewindCommand } = await import('./rewind-command.js');
    return runRewindCommand(options, io);
  }
  if (options.command === 'export') {
    const { runExportCommand } = await import('./export-command.js');
    return runExportCommand(options, io);
  }
  if (options.command === 'ext') {
    const { runExtCommand } = await import('./ext/index.js');
    return runExtCommand(options.commandArgs, { ...io, stdin: process.stdin });
  }
  if (options.listModels) return listModelsCommand(options);
  const mode = selectMode(options);
  if (mode === 'acp') {
    if (options.prompt.length > 0) {
      throw new UsageError('zot acp takes no prompt; the editor sends prompts over ACP');
    }
    handleInterrupts(stop);
    const { runAcp } = await import('./acp.js');
    return runAcp(options, { ...io, stdin: process.stdin }, stop.signal, warn);
  }
  if (mode === 'interactive' && !(process.stdin.isTTY && process.stdout.isTTY)) {
    throw new UsageError(
      'the interactive mode needs a terminal (stdin and stdout); use -p/--print, --json or `zot rpc` (see zot --help)',
    );
  }
  if (options.resume && mode !== 'interactive') {
    throw new UsageError(
      '-r/--resume picks a session in the interactive UI; here use --continue or --session <path>',
    );
  }
  if (mode === 'rpc' && options.prompt.length > 0) {
    throw new UsageError('zot rpc takes no prompt; send prompt requests on stdin');
  }
  // The interactive mode's prompt (`zot "text"`) is only its first one, and may be absent.
  const prompt =
    mode === 'rpc'
      ? ''
      : mode === 'interactive'
        ? options.prompt.join(' ').trim()
        : await readPrompt(options);
  if (mode !== 'rpc' && mode !== 'interactive' && !prompt) {
    throw new UsageError('no prompt given (pass it as an argument or on stdin)');
  }
  handleInterrupts(stop);
  let runtime: Runtime | undefined;
  // The TUI shows start-up warnings in its chat, wrapped at words: printed before it starts,
  // the terminal would break them anywhere. They go to stderr if it never starts.
  const early: string[] = [];
  const startWarn = mode === 'interactive' ? (message: string) => void early.push(message) : warn;
  // Created on demand: RPC with a token starts nothing before the hello that carries it.
  const open = async () => {
    runtime = await createRuntime(options, mode, startWarn);
    const { session } = runtime;
    onAbort(stop.signal, () => void session.close());
    return session;
  };
  try {
    if (mode === 'interactive') {
      await open().catch((error: unknown) => {
        for (const message of early.splice(0)) warn(message);
        throw error;
      });
      return await runInteractive(runtime!, prompt, options, stop.signal, early);
    }
    return await runMode(mode, open, prompt, options, stop.signal);
  } finally {
    await runtime?.dispose();
  }
}

/** The TUI, loaded on demand: no other mode pays for pi-tui. */
async function runInteractive(
  runtime: Runtime,
  prompt: string,
  options: CliOptions,
  stop: AbortSignal,
  warnings: string[],
): Promise<number> {
  if (stop.aborted) {
    for (const message of warnings) warn(message);
    return 1;
  }
  const { runInteractiveMode } = await import('../modes/interactive/app.js');
  const { loadThemes } = await import('./themes.js');
  const { userPrograms } = await import('./user-programs.js');
  const { loadSettings, saveSettings } = await import('../config/settings.js');
  const { session, paths, version } = runtime;
  const themes = await loadThemes(options, session.cwd, paths);
  return runInteractiveMode(session, {
    themes,
    version,
    keybindingsFile: paths.keybindings,
    programs: userPrograms(session.cwd),
    thinking: {
      shown: loadSettings(paths.config).settings.show_thinking ?? true,
      save: (shown) => saveSettings(paths.config, { show_thinking: shown }),
    },
    ...(prompt ? { firstPrompt: prompt } : {}),
    historyFile: join(paths.home, 'history', `${cwdKey(session.cwd)}.jsonl`),
    confirm: options.noYolo,
    ...(options.resume ? { pickSession: true } : {}),
    stop,
    warnings,
  });
}

async function runMode(
  mode: Mode,
  open: () => Promise<Session>,
  prompt: string,
  options: CliOptions,
  stop: AbortSignal,
): Promise<number> {
  if (mode === 'rpc') {
    const { runRpcMode } = await import('../modes/rpc.js');
    const rpcIo = { ...io, stdin: process.stdin };
    const info = { version: zotVersion(), confirm: options.noYolo };
    return runRpcMode(open, rpcIo, info, stop);
  }
  const session = await open();
  if (stop.aborted) return 1; // stopped while starting: run nothing
  if (mode === 'json') return runJsonMode(session, prompt, io, stop);
  return runPrintMode(session, prompt, io, stop);
}

/**
 * Contract: never throws; maps usage errors to exit 2 and other failures to exit 1. A stopped
 * run ends with the stop's code: 128 + signal number, or 0 when the reader of stdout went away.
 */
export async function runCli(argv: string[]): Promise<number> {
  // How extensions can run this zot again (`zot sandbox exec`): main.ts's own command line.
  setSelfArgv([process.execPath, ...process.execArgv, process.argv[1]!]);
  const stop = new AbortController();
  watchStops(stop);
  let code: number;
  try {
    code = await dispatch(argv, stop);
  } catch (error) {
    code = error instanceof UsageError ? 2 : 1;
    writeDiagnostic(io.stderr, `zot: ${errorMessage(error)}`);
  }
  return stop.signal.aborted ? (stop.signal.reason as number) : code;
}
