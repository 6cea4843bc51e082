// Directories for the sandbox tests: a user's home with secrets, a ZOT_HOME and a project, all
// outside /tmp (every sandbox has a private /tmp, which would hide them whatever the policy
// says, and the tests must show that the policy hides them). A fake `bwrap` that fails like a
// known cause, for the diagnostic tests.
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface SandboxBox {
  base: string;
  /** The user's home: ~/.ssh/id_ed25519 and ~/.netrc hold secrets. */
  home: string;
  zotHome: string;
  project: string;
  /** A directory outside the project nothing may write to. */
  outside: string;
  cleanup(): void;
}

/** /var/tmp where there is one (it survives a private /tmp), else the system's temp directory. */
function baseDir(): string {
  const candidates = ['/var/tmp', tmpdir()];
  for (const dir of candidates)
    if (existsSync(dir) && !realpathSync(dir).startsWith('/tmp')) return dir;
  throw new Error('the sandbox tests need a temporary directory outside /tmp (e.g. /var/tmp)');
}

export function makeSandboxBox(): SandboxBox {
  const base = realpathSync(mkdtempSync(join(baseDir(), 'zot-sandbox-test-')));
  const home = join(base, 'home');
  const zotHome = join(home, '.local', 'state', 'zot');
  const project = join(home, 'work', 'project');
  const outside = join(base, 'outside');
  for (const dir of [join(home, '.ssh'), join(zotHome, 'skills', 'demo'), project, outside])
    mkdirSync(dir, { recursive: true });
  writeFileSync(join(home, '.ssh', 'id_ed25519'), 'SECRET-SSH-KEY\n');
  writeFileSync(join(home, '.netrc'), 'machine example.com password SECRET-NETRC\n');
  writeFileSync(join(zotHome, 'auth.json'), '{"anthropic":{"key":"SECRET-AUTH"}}\n');
  writeFileSync(
    join(zotHome, 'skills', 'demo', 'SKILL.md'),
    '---\nname: demo\ndescription: d\n---\nbody\n',
  );
  writeFileSync(join(outside, 'existing.txt'), 'untouched\n');
  return {
    base,
    home,
    zotHome,
    project,
    outside,
    cleanup: () => rmSync(base, { recursive: true, force: true }),
  };
}

/** What a fake bwrap prints for each cause (the real messages of bubblewrap 0.8 and 0.11). */
export const BWRAP_FAILURES = {
  'userns-disabled':
    "bwrap: No permissions to creating new namespace, likely because the kernel does not allow non-privileged user namespaces. On e.g. debian this can be enabled with 'sysctl kernel.unprivileged_userns_clone=1'.",
  'userns-limit':
    'bwrap: Creating new namespace failed: nesting depth or /proc/sys/user/max_*_namespaces exceeded (ENOSPC)',
  apparmor: 'bwrap: setting up uid map: Permission denied',
  container: 'bwrap: Creating new namespace failed: Operation not permitted',
  mount: "bwrap: Can't mount proc on /newroot/proc: Operation not permitted",
  unknown: 'bwrap: Unexpected capabilities but not setuid, old file caps config?',
} as const;

export type BwrapFailure = keyof typeof BWRAP_FAILURES;

/**
 * A directory holding a `bwrap` that answers --version and otherwise fails with `cause`'s
 * message (exit 1), as the real one does before running anything; put it first on PATH.
 */
export function fakeBwrapDir(parent: string, cause: BwrapFailure): string {
  const dir = join(parent, `fake-bwrap-${cause}`);
  mkdirSync(dir, { recursive: true });
  const script = join(dir, 'bwrap');
  const message = BWRAP_FAILURES[cause].replace(/'/g, `'\\''`);
  writeFileSync(
    script,
    `#!/bin/sh\nif [ "$1" = --version ]; then echo 'bubblewrap 0.8.0'; exit 0; fi\nprintf '%s\\n' '${message}' >&2\nexit 1\n`,
  );
  chmodSync(script, 0o755);
  return dir;
}
