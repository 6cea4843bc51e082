// The bash tool: run a command, stream progress, return the tail of its merged output.
import { statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Tool, ToolContext, ToolOutput } from '../agent/tool.js';
import type { BashDetails } from '../contract/tool-details.js';
import { formatBytes } from '../util/truncate.js';
import { OutputSink, ProgressLines, type SinkResult } from './bash-output.js';
import { defaultShell, runShell, type RunOutcome } from './bash-run.js';
import { errorOutput, stringArg } from './common.js';
import { argsValidator } from './arg-validators.js';
import { nodeCrypto } from '../util/builtins.js';

export interface BashToolOptions {
  /** Shell to run commands with (default bash, or sh when there is no bash). */
  shell?: string;
  /** Timeout when the call gives none, in seconds (default 120). */
  defaultTimeoutSec?: number;
  /** Where full outputs of truncated results are saved (default `<tmpdir>/zot-bash`). */
  outputDir?: string;
  /** The output returned is the tail within these limits (default 2000 lines / 50 KB). */
  maxLines?: number;
  maxBytes?: number;
  /** Between SIGTERM and SIGKILL on timeout or abort (default 1000 ms). */
  killGraceMs?: number;
  /** Minimum time between progress reports (default 100 ms). */
  progressIntervalMs?: number;
  /** Environment of the commands (default this process's). */
  env?: NodeJS.ProcessEnv;
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

  const outputDir = settings.outputDir ?? join(tmpdir(), 'zot-bash');
  const id = context.toolCallId.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 40) || 'call';
  const sink = new OutputSink({
    maxLines: settings.maxLines,
    maxBytes: settings.maxBytes,
    filePath: join(outputDir, `${id}-${nodeCrypto().randomUUID().slice(0, 8)}.log`),
  });
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
  if (outcome.kind === 'spawn-error') {
    return errorOutput(`bash: cannot start ${shell}: ${outcome.message}`);
  }
  const result = sink.finish();
  const parts: string[] = [];
  if (result.note) parts.push(result.note);
  parts.push(result.text === '' ? '(no output)' : result.text);
  if (outcome.pipeHeld) {
    parts.push(
      '[stopped reading output: a background process still holds it open; ' +
        'redirect its output to a file (cmd > log 2>&1 &)]',
    );
  }
  const status = statusLine(outcome, timeout);
  if (status) parts.push(status);
  return {
    content: [{ type: 'text', text: parts.join('\n\n') }],
    isError: status !== undefined,
    details: bashDetails(outcome, result),
  };
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
