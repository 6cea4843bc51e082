// The bubblewrap command line for a scoped extension: an empty root holding only the scope's
// mounts (nothing of the host is there unless the scope names it), a private /tmp, minimal /dev
// and /proc, every namespace unshared (the network too, unless the scope's is `true`), no
// capabilities, a new session, and gone with its parent.
import { bwrapLayoutArgs } from '../sandbox/bwrap.js';
import type { ScopePolicy } from './scope-policy.js';

export interface ScopeBwrapCommand {
  scope: ScopePolicy;
  /** The working directory (the extension's own directory). */
  cwd: string;
  /** The host directory holding the proxy's socket, when the network is a host list. */
  proxyDir?: string;
  argv: readonly string[];
  /**
   * bwrap's --json-status-fd: a `{"exit-code": N}` line there when the program ends means its
   * sandbox was set up and it ran (bwrap writes none when setup or exec failed).
   */
  statusFd?: number;
}

/**
 * The arguments after `bwrap`. The root is bwrap's own tmpfs, holding the directories it made
 * for the mounts: read-only at the end, so nothing can be written but the writable mounts and
 * /tmp.
 */
export function scopeBwrapArgs(command: ScopeBwrapCommand): string[] {
  const { scope } = command;
  const head = ['--die-with-parent', '--new-session', '--unshare-all', '--cap-drop', 'ALL'];
  if (scope.network === true) head.push('--share-net');
  if (command.statusFd !== undefined) head.push('--json-status-fd', String(command.statusFd));
  return bwrapLayoutArgs({
    head,
    fixed: [
      { depth: 1, args: ['--dev', '/dev'] },
      { depth: 1, args: ['--proc', '/proc'] },
      { depth: 1, args: ['--tmpfs', '/tmp'] },
    ],
    mounts: scope.mounts,
    links: scope.links,
    ...(command.proxyDir !== undefined ? { proxyDir: command.proxyDir } : {}),
    tail: ['--remount-ro', '/'],
    cwd: command.cwd,
    argv: command.argv,
  });
}
