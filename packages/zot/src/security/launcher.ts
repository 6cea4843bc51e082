// The one way zot starts a process (bash commands, extensions, MCP servers through them, git
// for installs): the environment is scrubbed, and when a sandbox is given the program runs
// inside it (bubblewrap on Linux, sandbox-exec on macOS). Nothing else calls spawn.
import type { ChildProcess, IOType } from 'node:child_process';
import { createRequire } from 'node:module';
import { childEnvironment } from './child-env.js';
import { PROXY_DIR_INSIDE, bwrapArgs } from './sandbox/bwrap.js';
import { forwardedArgv, proxyVariables } from './sandbox/forwarder.js';
import type { SandboxPolicy } from './sandbox/policy.js';
import type { NetworkProxy } from './sandbox/proxy.js';
import { seatbeltProfile } from './sandbox/seatbelt.js';
import { scopedCommand, type ScopeLaunch } from './scope/launch.js';

// node:child_process brings node:dgram and more: loaded at the first spawn, so a print run whose
// extensions are held back until its first request is out does not load it before.
const require = createRequire(import.meta.url);
let childProcess: typeof import('node:child_process') | undefined;
const nodeChildProcess = () => (childProcess ??= require('node:child_process'));

/** How a process is confined: by which program, under which policy, with which proxy. */
export interface SandboxLaunch {
  kind: 'bwrap' | 'sandbox-exec';
  /** The program's path. */
  program: string;
  policy: SandboxPolicy;
  /** Running, when the policy's network is a host list. */
  proxy?: NetworkProxy;
  /** Real paths of the temporary directories (sandbox-exec: writable; bwrap: /tmp is private). */
  tempDirs?: string[];
}

/**
 * What applies to a process: the sandbox (absent: none; today extensions run unsandboxed) and
 * the environment filter. A policy object is all a caller passes: the same for bash, extensions
 * and anything later.
 */
export interface ProcessPolicy {
  sandbox?: SandboxLaunch;
  /** A scoped extension's sandbox (its permissions); wins over `sandbox`. */
  scope?: ScopeLaunch;
  /**
   * Removes what the process must not inherit (provider keys, zot's own tokens); default: the
   * secrets child-env.ts knows by name and value, without a run's env_passthrough.
   */
  scrubEnv?(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv;
}

type Stdio = IOType | 'inherit' | number;

export interface LaunchRequest {
  argv: readonly [string, ...string[]];
  /**
   * Under a sandbox, run this instead: the same program, which writes one byte to fd 3 and
   * closes it as it starts (so the launcher need not put a shell in front to do it).
   */
  markingArgv?: readonly [string, ...string[]];
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** stdin, stdout, stderr. */
  stdio: [Stdio, Stdio, Stdio];
  /** Its own process group, so the whole tree can be signalled. */
  detached: boolean;
  policy: ProcessPolicy;
  /**
   * When the caller needs `started`: 'at-start' (the default: as the program starts, e.g. to
   * tell the sandbox's messages from the program's), or 'at-exit' (only to describe its end).
   * With 'at-exit' a scoped bwrap sandbox reports it itself, on its status fd, and no shell is
   * exec'd in front of the program to write the start byte.
   */
  startKnown?: 'at-start' | 'at-exit';
}

export interface Launched {
  child: ChildProcess;
  sandboxed: boolean;
  /**
   * True once the program is about to run inside the sandbox; false when the sandbox ended
   * before that (it failed to start: bwrap's message is on the child's stderr). Unsandboxed:
   * true at once. With `startKnown: 'at-exit'` it may settle only once the process has exited.
   */
  started: Promise<boolean>;
}

/** Signals on fd 3 that the sandbox is up, closes it, and runs the program. */
const MARK_AND_EXEC = 'printf . >&3; exec 3>&-; exec "$@"';

/** The program and arguments that run `argv` under `sandbox`, with the environment it needs. */
export function sandboxedCommand(
  request: Pick<LaunchRequest, 'argv' | 'markingArgv' | 'cwd' | 'env'>,
  sandbox: SandboxLaunch,
): { argv: string[]; env: NodeJS.ProcessEnv } {
  const env: NodeJS.ProcessEnv = { ...request.env };
  if (sandbox.kind === 'bwrap') {
    // The host's TMPDIR may lie outside what the sandbox can write; /tmp is its own.
    env.TMPDIR = '/tmp';
    const inner = sandbox.proxy?.socketPath
      ? forwardedArgv(process.execPath, PROXY_DIR_INSIDE, sandbox.policy.network, request.argv)
      : marked(request);
    const args = bwrapArgs({
      policy: sandbox.policy,
      cwd: request.cwd,
      argv: inner,
      ...(sandbox.proxy?.dir ? { proxyDir: sandbox.proxy.dir } : {}),
    });
    return { argv: [sandbox.program, ...args], env };
  }
  const port = sandbox.proxy?.port;
  if (port !== undefined) Object.assign(env, proxyVariables(port));
  const profile = seatbeltProfile({
    policy: sandbox.policy,
    tempDirs: sandbox.tempDirs ?? [],
    ...(port !== undefined ? { proxyPort: port } : {}),
  });
  return {
    argv: [sandbox.program, '-p', profile, ...marked(request)],
    env,
  };
}

/** The command with the start byte on fd 3: its own marking form, or behind a small shell. */
function marked(request: Pick<LaunchRequest, 'argv' | 'markingArgv'>): string[] {
  return request.markingArgv
    ? [...request.markingArgv]
    : ['/bin/sh', '-c', MARK_AND_EXEC, 'zot-sandbox', ...request.argv];
}

/**
 * Starts a process under `request.policy`. Contract: throws what spawn throws (and a profile
 * that cannot be written, see seatbeltProfile); otherwise spawn errors arrive as the child's
 * 'error' event, as with spawn.
 */
export function launchProcess(request: LaunchRequest): Launched {
  // Never zot's own secrets: the caller's filter (a run's, with env_passthrough), else the
  // secrets by name and value.
  const scrubbed = request.policy.scrubEnv
    ? request.policy.scrubEnv(request.env)
    : childEnvironment({ env: request.env });
  const sandbox = request.policy.sandbox;
  const scope = request.policy.scope;
  if (!sandbox && !scope) {
    const child = nodeChildProcess().spawn(request.argv[0], request.argv.slice(1), {
      cwd: request.cwd,
      env: scrubbed,
      detached: request.detached,
      stdio: request.stdio,
      windowsHide: true,
    });
    return { child, sandboxed: false, started: Promise.resolve(true) };
  }
  const atExit = request.startKnown === 'at-exit' && !request.markingArgv;
  const { argv, env, statusFd } = scope
    ? scopedCommand(
        {
          ...request,
          markedArgv: marked(request),
          env: scrubbed,
          ...(atExit ? { statusFd: STATUS_FD } : {}),
        },
        scope,
      )
    : { ...sandboxedCommand({ ...request, env: scrubbed }, sandbox!), statusFd: undefined };
  const child = nodeChildProcess().spawn(argv[0]!, argv.slice(1), {
    cwd: request.cwd,
    env,
    detached: request.detached,
    stdio: [...request.stdio, 'pipe'],
    windowsHide: true,
  });
  const started = statusFd === undefined ? startSignal(child) : ranSignal(child);
  return { child, sandboxed: true, started };
}

/** The extra pipe after stdin, stdout and stderr: the start byte, or bwrap's status. */
const STATUS_FD = 3;

/** Most of bwrap's status read (two short JSON lines). */
const STATUS_BYTES = 4096;

/**
 * Whether the program ran, from bwrap's status (--json-status-fd): a `{"child-pid": N}` line
 * once it has made the sandbox's process, an `{"exit-code": N}` line when the program ends, only
 * if the sandbox was set up and the program exec'd (bwrap 0.3.2 and later; a bwrap that fails
 * to start writes its reason on stderr and no exit line). bwrap ended by a signal after making
 * the process (stopped by zot) had the sandbox up or being set up: that is the signal, not a
 * failure to start. Settles once both the process has exited and the pipe has closed.
 */
function ranSignal(child: ChildProcess): Promise<boolean> {
  const status = child.stdio[STATUS_FD] as NodeJS.ReadableStream | null | undefined;
  if (!status) return Promise.resolve(false);
  let text = '';
  const closed = new Promise<void>((resolve) => {
    status.on('data', (chunk: Buffer) => {
      if (text.length < STATUS_BYTES) text += chunk.toString('latin1');
    });
    status.once('end', resolve);
    status.once('error', resolve);
    status.once('close', resolve);
  });
  const exited = new Promise<{ signal: NodeJS.Signals | null } | undefined>((resolve) => {
    child.once('exit', (_code, signal) => resolve({ signal }));
    child.once('error', () => resolve(undefined));
  });
  return Promise.all([closed, exited]).then(([, exit]) => {
    (status as unknown as { destroy(): void }).destroy();
    if (!exit) return false;
    if (text.includes('"exit-code"')) return true;
    return exit.signal !== null && text.includes('"child-pid"');
  });
}

function startSignal(child: ChildProcess): Promise<boolean> {
  const marker = child.stdio[3] as NodeJS.ReadableStream | null | undefined;
  if (!marker) return Promise.resolve(false);
  return new Promise((resolve) => {
    marker.once('data', () => resolve(true));
    marker.once('end', () => resolve(false));
    marker.once('error', () => resolve(false));
    // bwrap keeps fd 3 until it exits, so 'end' comes after the byte whenever there is one.
    marker.once('close', () => resolve(false));
    child.once('error', () => resolve(false));
  }).finally(() => {
    (marker as unknown as { destroy(): void }).destroy();
  }) as Promise<boolean>;
}
