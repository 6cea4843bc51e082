// Dispatches a command line to a subcommand or a mode and returns the exit code.
import { writeLine, type ModeIO } from '../modes/io.js';
import { errorMessage, UsageError } from '../util/errors.js';
import { parseArgs, selectMode, type CliOptions, type Mode } from './args.js';
import type { Runtime } from './setup.js';
import { MAIN_HELP } from './help.js';
import { zotVersion } from './version.js';

const io: ModeIO = { stdout: process.stdout, stderr: process.stderr };
const warn = (message: string) => writeLine(io.stderr, `zot: ${message}`);

async function readPrompt(options: CliOptions): Promise<string> {
  let text = options.prompt.join(' ');
  const stdin = process.stdin;
  if (!stdin.isTTY) {
    const { fstatSync } = await import('node:fs');
    let readable = text === '';
    try {
      const stat = fstatSync(0);
      readable ||= stat.isFIFO() || stat.isFile();
    } catch {
      readable = false;
    }
    if (readable) {
      const chunks: Buffer[] = [];
      for await (const chunk of stdin) chunks.push(chunk as Buffer);
      const piped = Buffer.concat(chunks).toString('utf8').trim();
      if (piped) text = text ? `${text}\n\n${piped}` : piped;
    }
  }
  return text.trim();
}

/**
 * The first SIGINT/SIGTERM aborts the running prompt and asks the mode to stop (`stop`); the
 * normal path then shuts extensions down. A second signal, or a stop that takes too long,
 * exits at once (the host's exit hook still kills every extension process group).
 */
function handleInterrupts(stop: AbortController, abort: () => void): void {
  const onSignal = (signal: NodeJS.Signals) => {
    const code = signal === 'SIGINT' ? 130 : 143;
    if (stop.signal.aborted) process.exit(code);
    stop.abort(code);
    abort();
    setTimeout(() => process.exit(code), 10_000).unref();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
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
  const { createRuntime, resolveProviderModel } = await import('./setup.js');
  if (options.listModels) {
    const { zotPaths } = await import('../config/paths.js');
    const { listModels } = await import('../providers/index.js');
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
    const { runJsonMode } = await import('../modes/json.js');
    return runJsonMode(runtime.session, prompt, io);
  }
  const { runPrintMode } = await import('../modes/print.js');
  return runPrintMode(runtime.session, prompt, io);
}

/** Contract: never throws; maps usage errors to exit 2 and other failures to exit 1. */
export async function runCli(argv: string[]): Promise<number> {
  try {
    return await dispatch(argv);
  } catch (error) {
    if (error instanceof UsageError) {
      writeLine(io.stderr, `zot: ${error.message}`);
      return 2;
    }
    writeLine(io.stderr, `zot: ${errorMessage(error)}`);
    return 1;
  }
}
