// The bash tool: run a command, stream progress, return the tail of its merged output.
import { statSync } from 'node:fs';
import { join } from 'node:path';
import type { Tool, ToolContext, ToolOutput } from '../agent/tool.js';
import { resolveToolOutputDir } from '../config/paths.js';
import type { BashDetails } from '../contract/tool-details.js';
import { formatBytes } from '../util/truncate.js';
import { OutputSink, ProgressLines, type SinkResult } from './bash-output.js';
import { defaultShell, runShell, type RunOutcome } from './bash-run.js';
import { errorOutput, stringArg, type FileRoute } from './common.js';
import { terminalAttempt } from './bash-terminal.js';
import { argsValidator } from './arg-validators.js';
import { nodeCrypto } from '../util/builtins.js';
import type { ProcessPolicy } from '../security/launcher.js';
import type { SandboxController } from '../security/sandbox/controller.js';
import { describeNetwork } from '../security/sandbox/settings.js';

export interface BashToolOptions {
  /** Shell to run commands with (default bash, or sh when there is no bash). */
  shell?: string;
  /** Timeout when the call gives none, in seconds (default 120). */
  defaultTimeoutSec?: number;
  /** Where full outputs of truncated results are saved (default: resolveToolOutputDir()). */
  outputDir?: string;
  /** The output returned is the tail within these limits (default 2000 lines / 50 KB). */
  maxLines?: number;
  maxBytes?: number;
  /** Between SIGTERM and SIGKILL on timeout or abort (default 1000 ms). */
  killGraceMs?: number;
  /** Minimum time between progress reports (default 100 ms). */
  progressIntervalMs?: number;
  /** Environment of the commands (default this process's), before scrubbing. */
  env?: NodeJS.ProcessEnv;
  /** Removes what commands must not inherit (provider keys, zot's tokens). */
  scrubEnv?(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv;
  /** The run's sandbox: each command is planned by it (sandboxed, unsandboxed or refused). */
  sandbox?: SandboxController;
  /** Commands run in the editor's terminal when one is connected (and the sandbox is off). */
  route?: FileRoute;
}

export function createBashTool(options: BashToolOptions = {}): Tool {
  const defaultTimeoutSec = options.defaultTimeoutSec ?? 120;
  const maxLines = options.maxLines ?? 2000;
  const maxBytes = options.maxBytes ?? 50 * 1024;
  return {
    name: 'bash',
    limitsOwnOutput: true,
    description:
      `Run a shell command in the working directory (bash -c). stdout and stderr come back ` +
      `merged; long output is cut to its last ${maxLines} lines or ${formatBytes(maxBytes)}, ` +
      `with the full output saved to a file. stdin is closed, so nothing interactive. ` +
      `Times out after ${defaultTimeoutSec} s unless timeout (seconds) says otherwise; the ` +
      `whole process group is then killed. Start long-running servers in the background with ` +
      `their output redirected to a file (cmd > log 2>&1 &).`,
    argsValidator: argsValidator('bash'),
    parameters: {
      type: 'object',
      properties: {
        command: { type: 'string', description: 'The command line to run' },
        timeout: {
          type: 'number',
          exclusiveMinimum: 0,
          description: `Timeout in seconds (default ${defaultTimeoutSec})`,
        },
      },
      required: ['command'],
      additionalProperties: false,
    },
    preview: (args) => stringArg(args, 'command').replace(/\s*\n\s*/g, ' ↵ '),
    detail: (args) => stringArg(args, 'command'),
    execute: (args, context) => bashTool(args, context, { ...options, maxLines, maxBytes }),
  };
}

type Settings = BashToolOptions & { maxLines: number; maxBytes: number };

async function bashTool(
  args: Record<string, unknown>,
  context: ToolContext,
  settings: Settings,
): Promise<ToolOutput> {
  const command = stringArg(args, 'command');
  if (command.trim() === '') return errorOutput('bash: command is empty');
  const timeout = args.timeout ?? settings.defaultTimeoutSec ?? 120;
  if (typeof timeout !== 'number' || !Number.isFinite(timeout) || timeout <= 0) {
    return errorOutput(
      `bash: timeout must be a positive number of seconds, got ${JSON.stringify(timeout)}`,
    );
  }
  if (!isDirectory(context.cwd)) {
    return errorOutput(`bash: the working directory does not exist: ${context.cwd}`);
  }
  if (context.signal.aborted) return errorOutput('bash: aborted');

  const terminal = settings.route?.terminal;
  if (terminal) {
    // The editor's terminal is outside the sandbox: never a silent way around it.
    if (settings.sandbox && settings.sandbox.mode !== 'off') {
      return errorOutput(
        `bash: not run: the editor's terminal cannot be sandboxed and the sandbox is ${settings.sandbox.mode}; ` +
          'turn client terminals off (drop --client-terminal / acp.client_terminal) or the sandbox off (--sandbox off)',
      );
    }
    const sink = outputSink(context, settings);
    const run = await terminalAttempt(terminal, command, timeout, context, {
      shell: settings.shell ?? defaultShell(),
      sink,
      outputByteLimit: settings.maxBytes * 4,
    });
    return resultOf(run, timeout, [], []);
  }

  const plan = settings.sandbox
    ? await settings.sandbox.plan()
    : ({ kind: 'unsandboxed' } as const);
  if (plan.kind === 'refused') return errorOutput(`bash: ${plan.message}`);
  const scrub = settings.scrubEnv ? { scrubEnv: settings.scrubEnv } : {};
  let run: Attempt;
  try {
    run = await attempt(command, timeout, context, settings, {
      ...scrub,
      ...(plan.kind === 'sandboxed' ? { sandbox: plan.launch } : {}),
    });
  } finally {
    if (plan.kind === 'sandboxed') await plan.release();
  }
  // Notes before the output (how it ran) and after it (what the sandbox refused).
  const before: string[] = [];
  const after: string[] = [];
  if (run.outcome.kind === 'exited' && run.outcome.sandboxFailed && settings.sandbox) {
    // The command never ran: bwrap's own error is all the output there is.
    const problem = settings.sandbox.setupFailed(run.result.text);
    const why = `the sandbox failed to start: ${problem.message}`;
    if (settings.sandbox.mode === 'required')
      return errorOutput(
        `bash: not run: ${why}.\nFix: ${problem.fix}${problem.detail ? `\n${problem.detail}` : ''}` +
          `\nbwrap said: ${run.result.text.trim()}`,
      );
    before.push(`[${why}; this command ran WITHOUT the sandbox]`);
    run = await attempt(command, timeout, context, settings, scrub);
  } else if (plan.kind === 'sandboxed') {
    const launch = plan.launch;
    for (const denial of launch.proxy?.denials ?? []) after.push(`[${denial.text}]`);
    if (run.outcome.kind === 'exited' && run.outcome.code !== 0)
      after.push(`[${sandboxSummary(launch.policy.project, launch.policy.network)}]`);
    if (run.outcome.kind === 'spawn-error')
      return errorOutput(
        `bash: cannot start the sandbox (${launch.program}): ${run.outcome.message}`,
      );
  }
  return resultOf(run, timeout, before, after);
}

/** The tool's result as the model sees it: notes, the output's tail, then the exit status. */
function resultOf(run: Attempt, timeout: number, before: string[], after: string[]): ToolOutput {
  const { outcome, result } = run;
  if (outcome.kind === 'spawn-error') {
    return errorOutput(`bash: cannot start ${run.shell}: ${outcome.message}`);
  }
  const parts: string[] = [...before];
  if (result.note) parts.push(result.note);
  parts.push(result.text === '' ? '(no output)' : result.text);
  if (outcome.pipeHeld) {
    parts.push(
      '[stopped reading output: a background process still holds it open; ' +
        'redirect its output to a file (cmd > log 2>&1 &)]',
    );
  }
  parts.push(...after);
  const status = statusLine(outcome, timeout);
  if (status) parts.push(status);
  return {
    content: [{ type: 'text', text: parts.join('\n\n') }],
    isError: status !== undefined,
    details: bashDetails(outcome, result),
  };
}

export interface Attempt {
  shell: string;
  outcome: RunOutcome;
  result: SinkResult;
}

/** Where a command's output is collected: its tail kept, all of it saved once it is long. */
function outputSink(context: ToolContext, settings: Settings): OutputSink {
  const outputDir = settings.outputDir ?? resolveToolOutputDir();
  const id = context.toolCallId.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 40) || 'call';
  return new OutputSink({
    maxLines: settings.maxLines,
    maxBytes: settings.maxBytes,
    filePath: join(outputDir, `${id}-${nodeCrypto().randomUUID().slice(0, 8)}.log`),
  });
}

/** One run of the command under `policy`, its output collected and streamed as progress. */
async function attempt(
  command: string,
  timeout: number,
  context: ToolContext,
  settings: Settings,
  policy: ProcessPolicy,
): Promise<Attempt> {
  const sink = outputSink(context, settings);
  const progress = new ProgressLines(
    (text) => context.onProgress(text),
    settings.progressIntervalMs ?? 100,
  );
  const shell = settings.shell ?? defaultShell();
  const outcome = await runShell({
    shell,
    command,
    cwd: context.cwd,
    env: settings.env,
    policy,
    timeoutMs: timeout * 1000,
    signal: context.signal,
    graceMs: settings.killGraceMs ?? 1000,
    drainMs: 200,
    onData: (chunk) => {
      sink.write(chunk);
      progress.push(chunk);
    },
  });
  progress.close();
  return { shell, outcome, result: sink.finish() };
}

/** What the sandbox allowed, for a command that failed in it (the reason may be the sandbox). */
function sandboxSummary(project: string, network: boolean | string[]): string {
  return (
    `ran in the sandbox: writable are ${project} and a private /tmp (plus sandbox.allow_write); ` +
    `network: ${describeNetwork(network)}`
  );
}

function bashDetails(
  outcome: Exclude<RunOutcome, { kind: 'spawn-error' }>,
  result: SinkResult,
): BashDetails {
  const exited = outcome.kind === 'exited' ? outcome : undefined;
  return {
    kind: 'bash',
    ...(exited && exited.code !== null ? { exit_code: exited.code } : {}),
    ...(exited?.signal ? { signal: exited.signal } : {}),
    timed_out: outcome.kind === 'timeout',
    aborted: outcome.kind === 'aborted',
    truncated: result.truncated,
    ...(result.savedPath !== undefined ? { full_output_path: result.savedPath } : {}),
  };
}

/** The last line of the result; undefined for a clean exit 0. */
function statusLine(
  outcome: Exclude<RunOutcome, { kind: 'spawn-error' }>,
  timeout: number,
): string | undefined {
  switch (outcome.kind) {
    case 'timeout':
      return `bash: timed out after ${timeout}s; process group killed`;
    case 'aborted':
      return 'bash: aborted';
    case 'exited':
      if (outcome.signal) return `killed by signal ${outcome.signal}`;
      return outcome.code === 0 ? undefined : `exit code ${outcome.code ?? 'unknown'}`;
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
