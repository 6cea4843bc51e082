// The macOS `sandbox-exec` profile for a scoped extension: nothing may be read or written but
// the system's own directories, the scope's mounts and its temporary directory. Seatbelt applies
// the last matching rule, so mounts go shallow to deep as they do for bubblewrap.
import { SEATBELT_CORE, sbplString, seatbeltLayoutProfile } from '../sandbox/seatbelt.js';
import type { ScopePolicy } from './scope-policy.js';

export interface ScopeSeatbeltOptions {
  scope: ScopePolicy;
  /** The private temporary directory (TMPDIR inside), writable. */
  tempDir: string;
  /** The proxy's TCP port on 127.0.0.1, when the network is a host list. */
  proxyPort?: number;
}

/** What every program on macOS reads to start: the system, its frameworks, dyld's caches. */
export const MAC_SYSTEM_READ = [
  '/System',
  '/usr',
  '/bin',
  '/sbin',
  '/Library/Apple',
  '/Library/Frameworks',
  '/Library/Preferences',
  '/private/etc',
  '/private/var/db/timezone',
  '/private/var/db/dyld',
  '/dev',
  '/opt/homebrew',
  '/usr/local',
];

const BASE = [
  ...SEATBELT_CORE,
  '(allow file-ioctl)',
  // Names and attributes only (realpath and stat walk every parent); never contents.
  '(allow file-read-metadata)',
  '(allow file-write* (literal "/dev/null") (literal "/dev/zero") (literal "/dev/tty"))',
];

/** Contract: throws (see sbplString) on a path that cannot be written into a profile. */
export function scopeSeatbeltProfile(options: ScopeSeatbeltOptions): string {
  const { scope } = options;
  return seatbeltLayoutProfile({
    base: BASE,
    network: scope.network,
    before: [
      `(allow file-read* ${MAC_SYSTEM_READ.map((p) => `(subpath ${sbplString(p)})`).join(' ')})`,
      `(allow file-read* file-write* (subpath ${sbplString(options.tempDir)}))`,
    ],
    rules: scope.mounts.map((mount) => ({
      path: mount.path,
      access: mount.access,
      subtree: mount.kind === 'dir',
    })),
    after: scope.links.map((link) => `(allow file-read* (literal ${sbplString(link.path)}))`),
    ...(options.proxyPort !== undefined ? { proxyPort: options.proxyPort } : {}),
  });
}
