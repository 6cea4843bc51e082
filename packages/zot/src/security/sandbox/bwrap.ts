// The bubblewrap command line for a policy: the host's file system read-only, the project (and
// sandbox.allow_write) writable, hidden paths covered, a private /tmp, minimal /dev and /proc,
// every namespace unshared (the network too, unless the policy is `true`), no capabilities.
import { sep } from 'node:path';
import type { SandboxPolicy } from './policy.js';

/** Where the proxy's socket directory appears inside the sandbox (read-only). */
export const PROXY_DIR_INSIDE = '/tmp/.zot-proxy';

export interface BwrapCommand {
  policy: SandboxPolicy;
  /** The working directory of the command (inside the project, normally). */
  cwd: string;
  /** The host directory holding the proxy's socket, when the network is a host list. */
  proxyDir?: string;
  /** The program and its arguments, run inside. */
  argv: readonly string[];
}

/** The same options as every launch, for the probe: namespaces, mounts, no capabilities. */
export const BASE_FLAGS = [
  '--die-with-parent',
  '--new-session',
  '--unshare-all',
  // The command is the namespace's init: no reaper process in between (a fork less per
  // command); when it exits, everything it started goes too, as with bwrap's own init.
  '--as-pid-1',
  '--cap-drop',
  'ALL',
  '--ro-bind',
  '/',
  '/',
];

/** File systems bwrap makes itself; a mount below them means nothing inside. */
const SPECIAL = ['/dev', '/proc'];

const depth = (path: string) => (path === sep ? 0 : path.split(sep).length - 1);
const under = (root: string, path: string) => path === root || path.startsWith(root + sep);

/** One path as a sandbox shows it: the same path inside, writable, read-only or covered. */
export interface BwrapMount {
  path: string;
  access: 'writable' | 'read-only' | 'hidden';
  kind: 'dir' | 'file';
}

/** A step that goes into the shallow-to-deep order with the mounts. */
export interface BwrapStep {
  depth: number;
  args: string[];
}

export interface BwrapLayout {
  /** Options before any mount. */
  head: string[];
  /** Steps sorted with the mounts (before those of the same depth). */
  fixed: BwrapStep[];
  /** In order: at one depth writable, read-only, hidden (a stable sort keeps it). */
  mounts: readonly BwrapMount[];
  links?: ReadonlyArray<{ path: string; target: string }>;
  /** The host directory holding the proxy's socket, when the network is a host list. */
  proxyDir?: string;
  /** Options after the mounts (and the hidden directories made read-only). */
  tail?: string[];
  cwd: string;
  argv: readonly string[];
}

/**
 * The arguments after `bwrap`, for the bash tool's sandbox and a scoped extension's alike.
 * Mounts go shallow to deep so that a deeper one wins (the project inside a hidden directory
 * stays visible; a hidden path inside the project stays hidden); hidden directories are covered
 * by an empty tmpfs, made read-only last, once nothing more is mounted in them.
 */
export function bwrapLayoutArgs(layout: BwrapLayout): string[] {
  const args = [...layout.head];
  const steps: BwrapStep[] = [...layout.fixed];
  const readOnlyLater: string[] = [];
  for (const mount of layout.mounts) {
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
  for (const link of layout.links ?? [])
    steps.push({ depth: depth(link.path), args: ['--symlink', link.target, link.path] });
  if (layout.proxyDir !== undefined)
    steps.push({
      depth: depth(PROXY_DIR_INSIDE),
      args: ['--ro-bind', layout.proxyDir, PROXY_DIR_INSIDE],
    });
  steps.sort((a, b) => a.depth - b.depth);
  for (const step of steps) args.push(...step.args);
  for (const path of readOnlyLater) args.push('--remount-ro', path);
  args.push(...(layout.tail ?? []));
  args.push('--chdir', layout.cwd, '--', ...layout.argv);
  return args;
}

/** The arguments after `bwrap` for the bash tool's policy. */
export function bwrapArgs(command: BwrapCommand): string[] {
  const { policy } = command;
  const head = [...BASE_FLAGS];
  if (policy.network === true) head.push('--share-net');
  head.push('--dev', '/dev', '--proc', '/proc');
  return bwrapLayoutArgs({
    head,
    fixed: [{ depth: 1, args: ['--tmpfs', '/tmp'] }],
    mounts: policy.rules.flatMap((rule) =>
      rule.kind === 'missing' ? [] : [{ path: rule.path, access: rule.access, kind: rule.kind }],
    ),
    ...(command.proxyDir !== undefined ? { proxyDir: command.proxyDir } : {}),
    cwd: command.cwd,
    argv: command.argv,
  });
}
