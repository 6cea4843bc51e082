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

/** File systems bwrap makes itself; a rule below them means nothing inside. */
const SPECIAL = ['/dev', '/proc'];

const depth = (path: string) => (path === sep ? 0 : path.split(sep).length - 1);
const under = (root: string, path: string) => path === root || path.startsWith(root + sep);

/**
 * The arguments after `bwrap`. Mounts go shallow to deep so that a deeper rule wins (the
 * project inside a hidden directory stays visible; a hidden path inside the project stays
 * hidden); hidden directories are made read-only last, once nothing more is mounted in them.
 */
export function bwrapArgs(command: BwrapCommand): string[] {
  const { policy } = command;
  const args = [...BASE_FLAGS];
  if (policy.network === true) args.push('--share-net');
  args.push('--dev', '/dev', '--proc', '/proc');
  type Step = { depth: number; args: string[] };
  const steps: Step[] = [{ depth: 1, args: ['--tmpfs', '/tmp'] }];
  const readOnlyLater: string[] = [];
  for (const rule of policy.rules) {
    if (rule.kind === 'missing' || SPECIAL.some((root) => under(root, rule.path))) continue;
    const d = depth(rule.path);
    if (rule.access === 'writable')
      steps.push({ depth: d, args: ['--bind', rule.path, rule.path] });
    else if (rule.access === 'read-only')
      steps.push({ depth: d, args: ['--ro-bind', rule.path, rule.path] });
    else if (rule.kind === 'dir') {
      steps.push({ depth: d, args: ['--tmpfs', rule.path] });
      readOnlyLater.push(rule.path);
    } else steps.push({ depth: d, args: ['--ro-bind', '/dev/null', rule.path] });
  }
  if (command.proxyDir !== undefined)
    steps.push({
      depth: depth(PROXY_DIR_INSIDE),
      args: ['--ro-bind', command.proxyDir, PROXY_DIR_INSIDE],
    });
  // A stable sort: equal depths keep the policy's order (writable, read-only, hidden).
  steps.sort((a, b) => a.depth - b.depth);
  for (const step of steps) args.push(...step.args);
  for (const path of readOnlyLater) args.push('--remount-ro', path);
  args.push('--chdir', command.cwd, '--', ...command.argv);
  return args;
}
