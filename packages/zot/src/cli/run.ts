// Dispatches a command line to a subcommand or a mode and returns the exit code. The print and
// JSON path is imported statically (main.ts already answered --version and --help); RPC, auth
// and `zot ext` load on demand.
import { fstatSync } from 'node:fs';
import { writeDiagnostic, writeLine, type ModeIO } from '../modes/io.js';
import { errorMessage, UsageError } from '../util/errors.js';
import { signalExitCode } from '../util/process-group.js';
import { parseArgs, selectMode, type CliOptions, type Mode } from './args.js';
import { zotPaths } from '../config/paths.js';
import { runJsonMode } from '../modes/json.js';
import { runPrintMode } from '../modes/print.js';
import { listModels } from '../providers/index.js';
import { createRuntime, resolveProviderModel, type Runtime } from './setup.js';
import { MAIN_HELP } from './help.js';
import { zotVersion } from './version.js';

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

/**
 * The first SIGINT/SIGTERM/SIGHUP aborts the running prompt and asks the mode to stop (`stop`); the
 * normal path then shuts extensions down. A second signal, or a stop that takes too long,
 * exits at once (the host's exit hook still kills every extension process group).
 */
function handleInterrupts(stop: AbortController, abort: () => void): void {
  const onSignal = (signal: NodeJS.Signals) => {
    const code = signalExitCode(signal);
    if (stop.signal.aborted) process.exit(code);
    stop.abort(code);
    abort();
    setTimeout(() => process.exit(code), 10_000).unref();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  // A closed terminal: without a handler Node dies without its exit hooks, orphaning extensions.
  process.on('SIGHUP', onSignal);
}

async function dispatch(argv: string[]): Promise<number> {
  const options = parseArgs(argv);
  if (options.help) {
    writeLine(io.stdout, MAIN_HELP);
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
  if (options.command === 'ext') {
    const { runExtCommand } = await import('./ext/index.js');
    return runExtCommand(options.commandArgs, { ...io, stdin: process.stdin });
  }
  if (options.listModels) {
    const { provider, extra } = resolveProviderModel(options, zotPaths(), warn);
    for (const model of listModels(provider, extra)) {
      writeLine(
        io.stdout,
        `${model.id}\tcontext ${model.contextWindow}\tmax output ${model.maxTokens}` +
          `${model.reasoning ? '\treasoning' : ''}\t$${model.prices.input}/$${model.prices.output} per Mtok`,
      );
    }
    return 0;
  }
  const mode = selectMode(options);
  if (mode === 'interactive') {
    throw new UsageError(
      'the interactive TUI is not available yet; use -p/--print, --json or `zot rpc` (see zot --help)',
    );
  }
  if (mode === 'rpc' && options.prompt.length > 0) {
    throw new UsageError('zot rpc takes no prompt; send prompt requests on stdin');
  }
  const prompt = mode === 'rpc' ? '' : await readPrompt(options);
  if (mode !== 'rpc' && !prompt) {
    throw new UsageError('no prompt given (pass it as an argument or on stdin)');
  }
  if (options.noYolo && mode !== 'rpc') {
    warn(
      '--no-yolo has no effect in print and JSON modes (nobody can answer); tools run without asking',
    );
  }
  const runtime = await createRuntime(options, mode, warn);
  const stop = new AbortController();
  handleInterrupts(stop, () => runtime.session.abort());
  let code: number;
  try {
    code = await runMode(mode, runtime, prompt, options, stop.signal);
  } finally {
    await runtime.dispose();
  }
  // Interrupted runs end with the conventional 128 + signal number.
  return stop.signal.aborted ? (stop.signal.reason as number) : code;
}

async function runMode(
  mode: Mode,
  runtime: Runtime,
  prompt: string,
  options: CliOptions,
  stop: AbortSignal,
) {
  if (mode === 'rpc') {
    const { runRpcMode } = await import('../modes/rpc.js');
    const rpcIo = { ...io, stdin: process.stdin };
    const info = { version: runtime.version, confirm: options.noYolo };
    return runRpcMode(runtime.session, rpcIo, info, stop);
  }
  if (mode === 'json') {
    return runJsonMode(runtime.session, prompt, io);
  }
  return runPrintMode(runtime.session, prompt, io);
}

/** Contract: never throws; maps usage errors to exit 2 and other failures to exit 1. */
export async function runCli(argv: string[]): Promise<number> {
  try {
    return await dispatch(argv);
  } catch (error) {
    if (error instanceof UsageError) {
      writeDiagnostic(io.stderr, `zot: ${error.message}`);
      return 2;
    }
    writeDiagnostic(io.stderr, `zot: ${errorMessage(error)}`);
    return 1;
  }
}
