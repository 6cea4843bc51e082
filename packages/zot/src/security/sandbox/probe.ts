// Can a sandbox start here? Each check with its result and, when it fails, the fix. The launch
// path runs it once per process (cached); `zot doctor sandbox` prints it.
import { childEnvironment } from '../child-env.js';
import { accessSync, constants, existsSync, readFileSync, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { BASE_FLAGS } from './bwrap.js';
import {
  bwrapMissing,
  diagnoseBwrapFailure,
  unsupportedPlatform,
  type KernelFacts,
  type SandboxProblem,
} from './diagnose.js';

export interface ProbeCheck {
  name: string;
  /** true: passed; false: failed; null: informational. */
  ok: boolean | null;
  detail: string;
  fix?: string;
}

export interface SandboxProbe {
  ok: boolean;
  /** 'bwrap' on Linux, 'sandbox-exec' on macOS. */
  tool?: string;
  /** The program's path, when found. */
  path?: string;
  checks: ProbeCheck[];
  problem?: SandboxProblem;
}

export interface ProbeOptions {
  env?: NodeJS.ProcessEnv;
  platform?: NodeJS.Platform;
  /** Where the kernel's settings are read (default /proc/sys). */
  procSys?: string;
  /** Milliseconds the trial run may take. */
  timeoutMs?: number;
}

/** The first executable `name` on PATH. */
export function findOnPath(name: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, name);
    try {
      // Most PATH entries do not hold it: looked for without an exception first.
      if (!statSync(candidate, { throwIfNoEntry: false })) continue;
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

function readNumber(path: string): number | undefined {
  try {
    const value = Number(readFileSync(path, 'utf8').trim());
    return Number.isFinite(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** Signs that zot runs in a container, for the diagnosis; undefined when none. */
function containerSign(env: NodeJS.ProcessEnv): string | undefined {
  if (existsSync('/.dockerenv')) return 'Docker';
  if (existsSync('/run/.containerenv')) return 'Podman';
  if (env.container) return env.container;
  try {
    const cgroup = readFileSync('/proc/1/cgroup', 'utf8');
    const match = /docker|kubepods|containerd|lxc|libpod/.exec(cgroup);
    if (match) return match[0];
  } catch {
    // no /proc: nothing to tell
  }
  return undefined;
}

export function kernelFacts(options: ProbeOptions, bwrapPath?: string): KernelFacts {
  const sys = options.procSys ?? '/proc/sys';
  const facts: KernelFacts = { root: process.getuid?.() === 0 };
  const clone = readNumber(join(sys, 'kernel/unprivileged_userns_clone'));
  if (clone !== undefined) facts.unprivilegedUsernsClone = clone;
  const max = readNumber(join(sys, 'user/max_user_namespaces'));
  if (max !== undefined) facts.maxUserNamespaces = max;
  const apparmor = readNumber(join(sys, 'kernel/apparmor_restrict_unprivileged_userns'));
  if (apparmor !== undefined) facts.apparmorRestrict = apparmor;
  const container = containerSign(options.env ?? process.env);
  if (container) facts.container = container;
  if (bwrapPath) facts.bwrapPath = bwrapPath;
  return facts;
}

/** Runs `argv` and collects its exit status and stderr; never rejects. */
async function run(
  argv: string[],
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
): Promise<{ code: number | null; stderr: string; error?: string }> {
  const { execFile } = await import('node:child_process');
  return new Promise((resolve) => {
    execFile(
      argv[0]!,
      argv.slice(1),
      // bwrap from PATH: whatever it is, it gets none of zot's secrets either
      {
        env: childEnvironment({ env }),
        timeout: timeoutMs,
        maxBuffer: 64 * 1024,
        killSignal: 'SIGKILL',
      },
      (error, _stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
        resolve({
          code,
          stderr: String(stderr),
          ...(error && typeof error.code !== 'number' ? { error: error.message } : {}),
        });
      },
    );
  });
}

/** A sysctl at 0 turns user namespaces off; `fix` turns them on. */
function namespaceSysctl(name: string, value: number, fix: string, ok = value > 0): ProbeCheck {
  return { name, ok, detail: String(value), ...(value === 0 ? { fix } : {}) };
}

function kernelChecks(facts: KernelFacts): ProbeCheck[] {
  const checks: ProbeCheck[] = [];
  const clone = facts.unprivilegedUsernsClone;
  if (clone !== undefined) {
    const fix = 'sudo sysctl -w kernel.unprivileged_userns_clone=1';
    const ok = clone !== 0 || facts.root === true;
    checks.push(namespaceSysctl('kernel.unprivileged_userns_clone', clone, fix, ok));
  }
  if (facts.maxUserNamespaces !== undefined) {
    const fix = 'sudo sysctl -w user.max_user_namespaces=15000';
    checks.push(namespaceSysctl('user.max_user_namespaces', facts.maxUserNamespaces, fix));
  }
  if (facts.apparmorRestrict !== undefined)
    checks.push({
      name: 'kernel.apparmor_restrict_unprivileged_userns',
      ok: null,
      detail:
        facts.apparmorRestrict === 1
          ? '1 (bwrap needs an AppArmor profile allowing user namespaces; the trial run below tells)'
          : String(facts.apparmorRestrict),
    });
  checks.push({
    name: 'container',
    ok: null,
    detail: facts.container ? `yes (${facts.container})` : 'none detected',
  });
  return checks;
}

async function probeLinux(options: ProbeOptions): Promise<SandboxProbe> {
  const env = options.env ?? process.env;
  const bwrap = findOnPath('bwrap', env);
  const facts = kernelFacts(options, bwrap);
  if (!bwrap) {
    const problem = bwrapMissing();
    return {
      ok: false,
      tool: 'bwrap',
      checks: [
        { name: 'bwrap installed', ok: false, detail: 'not found on PATH', fix: problem.fix },
        ...kernelChecks(facts),
      ],
      problem,
    };
  }
  const version = await run([bwrap, '--version'], env, options.timeoutMs ?? 10_000);
  const checks: ProbeCheck[] = [
    {
      name: 'bwrap installed',
      ok: true,
      detail: `${bwrap}${version.code === 0 ? '' : ' (--version failed)'}`,
    },
    ...kernelChecks(facts),
  ];
  // The same namespaces and mounts as a real launch, running `true`.
  const trial = await run(
    [bwrap, ...BASE_FLAGS, '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp', '--', 'true'],
    env,
    options.timeoutMs ?? 10_000,
  );
  if (trial.code === 0) {
    checks.push({
      name: 'trial run (namespaces, mounts, no capabilities)',
      ok: true,
      detail: 'bwrap started a sandbox',
    });
    return { ok: true, tool: 'bwrap', path: bwrap, checks };
  }
  const problem = diagnoseBwrapFailure(trial.stderr || trial.error || `exit ${trial.code}`, facts);
  checks.push({
    name: 'trial run (namespaces, mounts, no capabilities)',
    ok: false,
    detail: `${problem.message}${trial.stderr.trim() ? ` (it said: ${trial.stderr.trim().split('\n')[0]})` : ''}`,
    fix: problem.detail ? `${problem.fix}\n${problem.detail}` : problem.fix,
  });
  return { ok: false, tool: 'bwrap', path: bwrap, checks, problem };
}

async function probeMac(options: ProbeOptions): Promise<SandboxProbe> {
  const path = '/usr/bin/sandbox-exec';
  if (!existsSync(path)) {
    const problem: SandboxProblem = {
      cause: 'platform',
      message: `${path} is missing`,
      fix: 'sandbox-exec ships with macOS; a system without it cannot run the sandbox (use --sandbox off).',
    };
    return {
      ok: false,
      tool: 'sandbox-exec',
      checks: [{ name: 'sandbox-exec installed', ok: false, detail: 'missing', fix: problem.fix }],
      problem,
    };
  }
  const trial = await run(
    [path, '-p', '(version 1)(allow default)', '/usr/bin/true'],
    options.env ?? process.env,
    options.timeoutMs ?? 10_000,
  );
  const checks: ProbeCheck[] = [{ name: 'sandbox-exec installed', ok: true, detail: path }];
  if (trial.code === 0) {
    checks.push({ name: 'trial run', ok: true, detail: 'sandbox-exec applied a profile' });
    return { ok: true, tool: 'sandbox-exec', path, checks };
  }
  const problem: SandboxProblem = {
    cause: 'unknown',
    message: `sandbox-exec failed: ${trial.stderr.trim().split('\n')[0] || trial.error || `exit ${trial.code}`}`,
    fix: 'zot cannot sandbox commands here; nested sandboxes (zot inside another sandboxed app) are refused by macOS.',
    stderr: trial.stderr,
  };
  checks.push({ name: 'trial run', ok: false, detail: problem.message, fix: problem.fix });
  return { ok: false, tool: 'sandbox-exec', path, checks, problem };
}

/** Contract: never rejects. */
export async function probeSandbox(options: ProbeOptions = {}): Promise<SandboxProbe> {
  const platform = options.platform ?? process.platform;
  if (platform === 'linux') return probeLinux(options);
  if (platform === 'darwin') return probeMac(options);
  const problem = unsupportedPlatform(platform);
  return {
    ok: false,
    checks: [{ name: 'platform', ok: false, detail: platform, fix: problem.fix }],
    problem,
  };
}
