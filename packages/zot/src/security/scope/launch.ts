// The command line and environment that start a program inside a scoped extension's sandbox:
// bubblewrap on Linux (with zot's network forwarder in front when the network is a host list),
// sandbox-exec with the generated profile on macOS.
import { PROXY_DIR_INSIDE } from '../sandbox/bwrap.js';
import { forwardedArgv, proxyVariables } from '../sandbox/forwarder.js';
import type { NetworkProxy } from '../sandbox/proxy.js';
import { scopeBwrapArgs } from './scope-bwrap.js';
import { scopedEnvironment, type ScopePolicy } from './scope-policy.js';
import { scopeSeatbeltProfile } from './scope-seatbelt.js';

/** How a scoped process is confined. */
export interface ScopeLaunch {
  kind: 'bwrap' | 'sandbox-exec';
  /** bwrap's or sandbox-exec's path. */
  program: string;
  scope: ScopePolicy;
  /** Running, when the scope's network is a host list. */
  proxy?: NetworkProxy;
  /** sandbox-exec: the private temporary directory (TMPDIR). */
  tempDir?: string;
  /** The Node that runs the forwarder inside (default this one). */
  node?: string;
}

export interface ScopedRequest {
  argv: readonly string[];
  /** The same command behind the start marker (one byte on fd 3 as it starts). */
  markedArgv: readonly string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  /**
   * Whether the program ran is asked only once it has ended: bwrap may say it on `statusFd`
   * (see ScopedCommand.statusFd) instead of a marker in front of the program.
   */
  statusFd?: number;
}

export interface ScopedCommand {
  argv: string[];
  env: NodeJS.ProcessEnv;
  /**
   * Set when bwrap reports on this fd (the request's statusFd) instead of the start marker:
   * bwrap without the network forwarder (which writes the marker itself).
   */
  statusFd?: number;
}

/** Contract: throws only what scopeSeatbeltProfile throws (a path a profile cannot hold). */
export function scopedCommand(request: ScopedRequest, launch: ScopeLaunch): ScopedCommand {
  const { scope } = launch;
  const env = scopedEnvironment(request.env, scope.env, scope.dataDir);
  if (launch.kind === 'bwrap') {
    env.TMPDIR = '/tmp';
    const forwarded = Boolean(launch.proxy?.socketPath);
    // No shell exec'd in front of the program when bwrap itself can say it ran.
    const statusFd = forwarded ? undefined : request.statusFd;
    const inner = forwarded
      ? forwardedArgv(
          launch.node ?? process.execPath,
          PROXY_DIR_INSIDE,
          scope.network,
          request.argv,
        )
      : statusFd !== undefined
        ? [...request.argv]
        : [...request.markedArgv];
    const args = scopeBwrapArgs({
      scope,
      cwd: request.cwd,
      argv: inner,
      ...(launch.proxy?.dir ? { proxyDir: launch.proxy.dir } : {}),
      ...(statusFd !== undefined ? { statusFd } : {}),
    });
    return {
      argv: [launch.program, ...args],
      env,
      ...(statusFd !== undefined ? { statusFd } : {}),
    };
  }
  const tempDir = launch.tempDir ?? scope.dataDir;
  env.TMPDIR = tempDir;
  const port = launch.proxy?.port;
  if (port !== undefined) Object.assign(env, proxyVariables(port));
  const profile = scopeSeatbeltProfile({
    scope,
    tempDir,
    ...(port !== undefined ? { proxyPort: port } : {}),
  });
  return { argv: [launch.program, '-p', profile, ...request.markedArgv], env };
}
