// The macOS `sandbox-exec` profile for a policy: the same boundaries as bubblewrap on Linux.
// Seatbelt applies the last matching rule, so rules go shallow to deep as the mounts do.
import type { SandboxPolicy } from './policy.js';

export interface SeatbeltOptions {
  policy: SandboxPolicy;
  /** Real paths of the temporary directories the command may write (/private/tmp, $TMPDIR). */
  tempDirs: string[];
  /** The proxy's TCP port on 127.0.0.1, when the network is a host list. */
  proxyPort?: number;
}

/**
 * A path as an SBPL string literal. Contract: throws on control characters, which a profile
 * cannot hold safely (the caller refuses to sandbox such a path rather than guess).
 */
export function sbplString(path: string): string {
  if (/[\0-\x1f\x7f]/.test(path))
    throw new Error(
      `cannot put a path with control characters in a sandbox profile: ${JSON.stringify(path)}`,
    );
  return `"${path.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

const BASE = [
  '(version 1)',
  '(deny default)',
  '(allow process-exec process-fork)',
  '(allow signal (target same-sandbox))',
  '(allow process-info* (target same-sandbox))',
  '(allow sysctl-read)',
  '(allow user-preference-read)',
  '(allow ipc-posix-sem ipc-posix-shm)',
  '(allow pseudo-tty)',
  '(allow file-ioctl)',
  '(allow file-read*)',
  '(allow file-write* (literal "/dev/null") (literal "/dev/zero") (literal "/dev/tty") (literal "/dev/ptmx") (regex #"^/dev/ttys[0-9]+$"))',
];

/** Contract: throws (see sbplString) on a path that cannot be written into a profile. */
export function seatbeltProfile(options: SeatbeltOptions): string {
  const { policy } = options;
  const lines = [...BASE];
  // Name lookups go through mDNSResponder over Mach: without the network they could still
  // carry data out in DNS queries.
  if (policy.network === true) lines.push('(allow mach-lookup)');
  else
    lines.push(
      '(allow mach-lookup)',
      '(deny mach-lookup (global-name "com.apple.mDNSResponder") (global-name "com.apple.dnssd.service"))',
    );
  for (const dir of options.tempDirs)
    lines.push(`(allow file-write* (subpath ${sbplString(dir)}))`);
  for (const rule of policy.rules) {
    const target =
      rule.kind === 'dir' || rule.kind === 'missing'
        ? `(subpath ${sbplString(rule.path)})`
        : `(literal ${sbplString(rule.path)})`;
    if (rule.access === 'writable') lines.push(`(allow file-read* file-write* ${target})`);
    else if (rule.access === 'read-only')
      lines.push(`(allow file-read* ${target})`, `(deny file-write* ${target})`);
    else lines.push(`(deny file-read* file-write* ${target})`);
  }
  if (policy.network === true) lines.push('(allow network*)');
  else if (options.proxyPort !== undefined)
    lines.push(`(allow network-outbound (remote tcp "localhost:${options.proxyPort}"))`);
  return lines.join('\n') + '\n';
}
