// The bubblewrap command line for a scoped extension: an empty root holding only the scope's
// mounts (nothing of the host is there unless the scope names it), a private /tmp, minimal /dev
// and /proc, every namespace unshared (the network too, unless the scope's is `true`), no
// capabilities, a new session, and gone with its parent.
import { sep } from 'node:path';
import { PROXY_DIR_INSIDE } from '../sandbox/bwrap.js';
import type { ScopePolicy } from './scope-policy.js';

export interface ScopeBwrapCommand {
  scope: ScopePolicy;
  /** The working directory (the extension's own directory). */
  cwd: string;
  /** The host directory holding the proxy's socket, when the network is a host list. */
  proxyDir?: string;
  argv: readonly string[];
}

/** File systems bwrap makes itself; a mount below them means nothing inside. */
const SPECIAL = ['/dev', '/proc'];

const depth = (path: string) => (path === sep ? 0 : path.split(sep).length - 1);
const under = (root: string, path: string) => path === root || path.startsWith(root + sep);

/**
 * The arguments after `bwrap`. Steps go shallow to deep (a stable sort keeps writable,
 * read-only, hidden at one depth), so a deeper mount wins; hidden directories are covered by an
 * empty tmpfs, made read-only once nothing more is mounted in them.
 */
export function scopeBwrapArgs(command: ScopeBwrapCommand): string[] {
  const { scope } = command;
  const args = ['--die-with-parent', '--new-session', '--unshare-all', '--cap-drop', 'ALL'];
  if (scope.network === true) args.push('--share-net');
  type Step = { depth: number; args: string[] };
  const steps: Step[] = [
    { depth: 1, args: ['--dev', '/dev'] },
    { depth: 1, args: ['--proc', '/proc'] },
    { depth: 1, args: ['--tmpfs', '/tmp'] },
  ];
  const readOnlyLater: string[] = [];
  for (const mount of scope.mounts) {
    if (SPECIAL.some((root) => under(root, mount.path))) continue;
    const d = depth(mount.path);
    if (mount.access === 'writable')
      steps.push({ depth: d, args: ['--bind', mount.path, mount.path] });
    else if (mount.access === 'read-only')
      steps.push({ depth: d, args: ['--ro-bind', mount.path, mount.path] });
    else if (mount.kind === 'dir') {
      steps.push({ depth: d, args: ['--tmpfs', mount.path] });
      readOnlyLater.push(mount.path);
    } else steps.push({ depth: d, args: ['--ro-bind', '/dev/null', mount.path] });
  }
  for (const link of scope.links)
    steps.push({ depth: depth(link.path), args: ['--symlink', link.target, link.path] });
  if (command.proxyDir !== undefined)
    steps.push({
      depth: depth(PROXY_DIR_INSIDE),
      args: ['--ro-bind', command.proxyDir, PROXY_DIR_INSIDE],
    });
  steps.sort((a, b) => a.depth - b.depth);
  for (const step of steps) args.push(...step.args);
  for (const path of readOnlyLater) args.push('--remount-ro', path);
  // The root is bwrap's own tmpfs, holding the directories it made for the mounts: read-only,
  // so nothing can be written but the writable mounts and /tmp.
  args.push('--remount-ro', '/');
  args.push('--chdir', command.cwd, '--', ...command.argv);
  return args;
}
