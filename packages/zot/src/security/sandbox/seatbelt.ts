// The macOS `sandbox-exec` profile for a policy: the same boundaries as bubblewrap on Linux.
// Seatbelt applies the last matching rule, so rules go shallow to deep as the mounts do.
import type { SandboxPolicy } from './policy.js';
import type { NetworkSetting } from './settings.js';

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

/** What every zot profile starts with: nothing allowed but running, signalling and IPC inside. */
export const SEATBELT_CORE = [
  '(version 1)',
  '(deny default)',
  '(allow process-exec process-fork)',
  '(allow signal (target same-sandbox))',
  '(allow process-info* (target same-sandbox))',
  '(allow sysctl-read)',
  '(allow ipc-posix-sem ipc-posix-shm)',
];

const BASE = [
  ...SEATBELT_CORE,
  '(allow user-preference-read)',
  '(allow pseudo-tty)',
  '(allow file-ioctl)',
  '(allow file-read*)',
  '(allow file-write* (literal "/dev/null") (literal "/dev/zero") (literal "/dev/tty") (literal "/dev/ptmx") (regex #"^/dev/ttys[0-9]+$"))',
];

/** One path rule of a profile: its subtree (or the file alone) readable, writable or denied. */
export interface SeatbeltRule {
  path: string;
  access: 'writable' | 'read-only' | 'hidden';
  /** The subtree (a directory, or a path not there yet), or the file alone. */
  subtree: boolean;
}

export interface SeatbeltLayout {
  /** The profile's fixed opening (what every program needs, for this kind of sandbox). */
  base: readonly string[];
  network: NetworkSetting;
  /** Lines before the path rules (temporary directories, the system's own). */
  before: readonly string[];
  /** Shallow before deep: seatbelt applies the last matching rule. */
  rules: readonly SeatbeltRule[];
  /** Lines after the path rules (links). */
  after?: readonly string[];
  /** The proxy's TCP port on 127.0.0.1, when the network is a host list. */
  proxyPort?: number;
}

/**
 * A profile for the bash tool's sandbox and a scoped extension's alike.
 * Contract: throws (see sbplString) on a path that cannot be written into a profile.
 */
export function seatbeltLayoutProfile(layout: SeatbeltLayout): string {
  const lines = [...layout.base];
  // Name lookups go through mDNSResponder over Mach: without the network they could still
  // carry data out in DNS queries.
  if (layout.network === true) lines.push('(allow mach-lookup)');
  else
    lines.push(
      '(allow mach-lookup)',
      '(deny mach-lookup (global-name "com.apple.mDNSResponder") (global-name "com.apple.dnssd.service"))',
    );
  lines.push(...layout.before);
  for (const rule of layout.rules) {
    const target = rule.subtree
      ? `(subpath ${sbplString(rule.path)})`
      : `(literal ${sbplString(rule.path)})`;
    if (rule.access === 'writable') lines.push(`(allow file-read* file-write* ${target})`);
    else if (rule.access === 'read-only')
      lines.push(`(allow file-read* ${target})`, `(deny file-write* ${target})`);
    else lines.push(`(deny file-read* file-write* ${target})`);
  }
  lines.push(...(layout.after ?? []));
  if (layout.network === true) lines.push('(allow network*)');
  else if (layout.proxyPort !== undefined)
    lines.push(`(allow network-outbound (remote tcp "localhost:${layout.proxyPort}"))`);
  return lines.join('\n') + '\n';
}

/** Contract: throws (see sbplString) on a path that cannot be written into a profile. */
export function seatbeltProfile(options: SeatbeltOptions): string {
  const { policy } = options;
  return seatbeltLayoutProfile({
    base: BASE,
    network: policy.network,
    before: options.tempDirs.map((dir) => `(allow file-write* (subpath ${sbplString(dir)}))`),
    rules: policy.rules.map((rule) => ({
      path: rule.path,
      access: rule.access,
      subtree: rule.kind === 'dir' || rule.kind === 'missing',
    })),
    ...(options.proxyPort !== undefined ? { proxyPort: options.proxyPort } : {}),
  });
}
