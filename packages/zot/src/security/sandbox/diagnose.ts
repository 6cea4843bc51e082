// Why the sandbox cannot start, from bwrap's error message and the kernel's settings, and what
// fixes each cause. One table, shared by the launch path and `zot doctor sandbox`.

export type SandboxCause =
  | 'platform'
  | 'bwrap-missing'
  | 'userns-disabled'
  | 'userns-limit'
  | 'apparmor'
  | 'container'
  | 'mount'
  | 'unknown';

export interface SandboxProblem {
  cause: SandboxCause;
  /** What is wrong, in one sentence. */
  message: string;
  /** What to do about it, in one line. */
  fix: string;
  /** Text the fix needs that takes lines (the AppArmor profile to write). */
  detail?: string;
  /** bwrap's own words, when it ran. */
  stderr?: string;
}

/** What the probe knows about the machine besides bwrap's message. */
export interface KernelFacts {
  /** /proc/sys/kernel/unprivileged_userns_clone (Debian's switch), when present. */
  unprivilegedUsernsClone?: number;
  /** /proc/sys/user/max_user_namespaces. */
  maxUserNamespaces?: number;
  /** /proc/sys/kernel/apparmor_restrict_unprivileged_userns (Ubuntu 23.10+). */
  apparmorRestrict?: number;
  /** Signs of a container (/.dockerenv, /run/.containerenv, $container, cgroup names). */
  container?: string;
  /** Where bwrap is (for the AppArmor profile). */
  bwrapPath?: string;
  /** zot runs as root (bwrap then needs no user namespace, but still capabilities). */
  root?: boolean;
}

export const APPARMOR_PROFILE_PATH = '/etc/apparmor.d/bwrap';

/** The profile Ubuntu documents for programs that may create user namespaces. */
export function apparmorProfile(bwrapPath = '/usr/bin/bwrap'): string {
  return [
    'abi <abi/4.0>,',
    'include <tunables/global>',
    `profile bwrap ${bwrapPath} flags=(unconfined) {`,
    '  userns,',
    '  include if exists <local/bwrap>',
    '}',
  ].join('\n');
}

const CONTAINER_FIX =
  'zot is running in a container that does not let it create namespaces. Either start the ' +
  'container with permission to (docker/podman: --security-opt seccomp=unconfined ' +
  '--security-opt apparmor=unconfined, or --cap-add SYS_ADMIN; Kubernetes: a securityContext ' +
  'allowing unshare), or, if the container itself is your sandbox, run zot with --sandbox off.';

export function bwrapMissing(): SandboxProblem {
  return {
    cause: 'bwrap-missing',
    message: 'bubblewrap (bwrap) is not installed, or not on PATH',
    fix:
      'Install it: sudo apt-get install bubblewrap (Debian, Ubuntu), sudo dnf install bubblewrap ' +
      '(Fedora), sudo pacman -S bubblewrap (Arch), sudo apk add bubblewrap (Alpine).',
  };
}

export function unsupportedPlatform(platform: string): SandboxProblem {
  return {
    cause: 'platform',
    message: `the sandbox is not available on ${platform} (zot has one for Linux, with bubblewrap, and macOS, with sandbox-exec)`,
    fix: 'Run zot on Linux or macOS for a sandbox, or use --sandbox off here and isolate zot yourself (a VM or container).',
  };
}

function userNamespacesOff(facts: KernelFacts): SandboxProblem | undefined {
  if (facts.maxUserNamespaces === 0) {
    return {
      cause: 'userns-limit',
      message: 'user namespaces are switched off on this machine (user.max_user_namespaces = 0)',
      fix:
        'Allow them: sudo sysctl -w user.max_user_namespaces=15000, and keep it with a line ' +
        '"user.max_user_namespaces = 15000" in /etc/sysctl.d/90-userns.conf.',
    };
  }
  if (facts.unprivilegedUsernsClone === 0) {
    return {
      cause: 'userns-disabled',
      message:
        'unprivileged user namespaces are disabled (kernel.unprivileged_userns_clone = 0), and bwrap needs one',
      fix:
        'Enable them: sudo sysctl -w kernel.unprivileged_userns_clone=1, and keep it with a line ' +
        '"kernel.unprivileged_userns_clone = 1" in /etc/sysctl.d/90-userns.conf. (Or install ' +
        'bwrap setuid root, as some distributions do.)',
    };
  }
  return undefined;
}

function apparmor(facts: KernelFacts): SandboxProblem {
  const path = facts.bwrapPath ?? '/usr/bin/bwrap';
  return {
    cause: 'apparmor',
    message:
      "Ubuntu's AppArmor restriction on unprivileged user namespaces " +
      '(kernel.apparmor_restrict_unprivileged_userns = 1) stops bwrap',
    fix:
      `Give bwrap an AppArmor profile that allows user namespaces (zot doctor sandbox prints ` +
      `it) in ${APPARMOR_PROFILE_PATH} and load it: sudo apparmor_parser -r ` +
      `${APPARMOR_PROFILE_PATH}. Or lift the restriction for every program: sudo sysctl -w ` +
      'kernel.apparmor_restrict_unprivileged_userns=0 (kept with a line in /etc/sysctl.d/).',
    detail: `${APPARMOR_PROFILE_PATH}:\n${apparmorProfile(path)}`,
  };
}

function container(facts: KernelFacts, detail: string): SandboxProblem {
  const where = facts.container ? ` (${facts.container})` : '';
  return {
    cause: 'container',
    message: `the container${where} does not allow new namespaces: ${detail}`,
    fix: CONTAINER_FIX,
  };
}

/**
 * The cause of a failed bwrap start, from its stderr and the machine's settings.
 * Contract: never throws; an unrecognized message is 'unknown' with bwrap's own words.
 */
export function diagnoseBwrapFailure(stderr: string, facts: KernelFacts): SandboxProblem {
  const text = stderr.trim().slice(0, 2000);
  const withStderr = (problem: SandboxProblem): SandboxProblem => ({ ...problem, stderr: text });
  // bwrap 0.8 says "to creating", 0.11 "to create a".
  if (/No permissions to creat\w* (a )?new namespace/.test(text)) {
    const off = userNamespacesOff(facts);
    if (off) return withStderr(off);
    if (facts.container)
      return withStderr(container(facts, 'creating a user namespace was refused (EPERM)'));
    if (facts.apparmorRestrict === 1) return withStderr(apparmor(facts));
    return withStderr({
      cause: 'userns-disabled',
      message:
        'creating a user namespace was refused (EPERM): unprivileged user namespaces are disabled',
      fix:
        'Enable them (Debian: sudo sysctl -w kernel.unprivileged_userns_clone=1; elsewhere check ' +
        'user.max_user_namespaces and any security module). In a container: ' +
        CONTAINER_FIX,
    });
  }
  if (
    /max_\*_namespaces exceeded|Creating new namespace failed: No space left on device/.test(text)
  ) {
    return withStderr(
      userNamespacesOff({ ...facts, maxUserNamespaces: 0 }) ?? {
        cause: 'userns-limit',
        message: 'the user namespace limit is reached',
        fix: 'Raise user.max_user_namespaces.',
      },
    );
  }
  if (
    /setting up uid map: Permission denied|setting up gid map: Permission denied|error writing to setgroups|loopback: Failed RTM_NEWADDR|Creating new namespace failed: Permission denied/.test(
      text,
    )
  ) {
    if (facts.apparmorRestrict === 1 || !facts.container) return withStderr(apparmor(facts));
    return withStderr(container(facts, 'setting up the namespace was refused'));
  }
  if (/Creating new namespace failed: Operation not permitted/.test(text)) {
    const off = userNamespacesOff(facts);
    if (off) return withStderr(off);
    return withStderr(
      container(facts, 'creating namespaces was refused (EPERM: seccomp, or no CAP_SYS_ADMIN)'),
    );
  }
  if (
    /Can't mount proc|Can't mount tmpfs|Can't mount devpts|Failed to make \/ slave|Failed to mount tmpfs|pivot_root|Can't bind mount|Can't remount|Operation not permitted/.test(
      text,
    )
  ) {
    return withStderr({
      cause: 'mount',
      message: `bwrap could not set up the sandbox's mounts: ${firstLine(text)}`,
      fix:
        'Mounting was refused, which happens in containers with a masked /proc or without ' +
        'CAP_SYS_ADMIN. ' +
        CONTAINER_FIX,
    });
  }
  return withStderr({
    cause: 'unknown',
    message: `bwrap failed: ${firstLine(text) || '(no message)'}`,
    fix:
      'Run `zot doctor sandbox` for the checks, and try `bwrap --unshare-all --ro-bind / / true` ' +
      'yourself; if it works there, please report this message.',
  });
}

function firstLine(text: string): string {
  return (text.split('\n').find((line) => line.trim() !== '') ?? '').trim().slice(0, 300);
}

/** The problem in one line (a warning, the state snapshot): what, what bwrap said, the fix. */
export function describeProblem(problem: SandboxProblem): string {
  const said =
    problem.stderr && problem.cause !== 'unknown'
      ? ` (bwrap said: ${firstLine(problem.stderr)})`
      : '';
  return `${problem.message}${said}. Fix: ${problem.fix}`;
}

/** The problem with the detail its fix needs, for a tool result. */
export function explainProblem(problem: SandboxProblem): string {
  const line = describeProblem(problem);
  return problem.detail ? `${line}\n${problem.detail}` : line;
}
