// How each extension runs: scoped (it has a `permissions` block: inside a sandbox holding
// exactly that, or not at all), or unscoped (full rights, as before, unless the sandbox settings
// refuse that). Fail closed: a scoped extension whose sandbox cannot start does not start, and
// the reason names the cause and the fix.
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { ProcessPolicy } from '../security/launcher.js';
import {
  bwrapMissing,
  diagnoseBwrapFailure,
  explainProblem,
  unsupportedPlatform,
  type SandboxProblem,
} from '../security/sandbox/diagnose.js';
import { findOnPath, kernelFacts } from '../security/sandbox/probe.js';
import { NetworkProxy } from '../security/sandbox/proxy.js';
import type { SandboxSettings } from '../security/sandbox/settings.js';
import type { ScopeLaunch } from '../security/scope/launch.js';
import { buildScope, type ScopeInputs, type ScopePolicy } from '../security/scope/scope-policy.js';
import { ensurePrivateDir } from '../util/private-fs.js';
import { sha256Hex } from '../util/sha256.js';
import type { DiscoveredExtension } from '../ext-setup/discovery.js';
import type { ProvidedByZot } from '../ext-setup/shipped-sdk.js';

/** The settings a decision reads, at the moment it is made (/sandbox may switch the mode). */
export type ScopeSettings = Pick<SandboxSettings, 'mode' | 'extensions' | 'denyRead'> & {
  /** Where the mode was set, for refusals (e.g. `sandbox.mode in ~/.zot/config.json`). */
  modeSource?: string;
};

export interface ExtensionScopesOptions {
  settings(): ScopeSettings;
  project: string;
  home?: string;
  zotHome: string;
  env?: NodeJS.ProcessEnv;
  platform?: NodeJS.Platform;
}

/** One start of a scoped extension's process: its policy, and what to undo when it ends. */
export interface ScopeStart {
  policy: ProcessPolicy;
  release(): void;
}

/** What the transport asks at each start of a scoped extension's process. */
export interface ScopeStarter {
  /**
   * The sandbox of one start: the one prepareScope checked when this start comes in the same
   * turn of the event loop (a host plans and starts at once; so does `zot sandbox exec`), else
   * built again (a held-back start, a restart: paths may have changed). Contract: never throws.
   */
  start(): ScopeStart | { error: string };
  /** Why the sandbox ended before the extension ran, from what bwrap wrote. */
  failure(stderr: string): string;
}

export type ScopePlan =
  | { kind: 'unscoped'; warning?: string }
  | { kind: 'scoped'; dataDir: string; notes: string[]; starter: ScopeStarter }
  | { kind: 'refused'; message: string };

/**
 * Where a scoped extension keeps its state: its own directory under $ZOT_HOME, named by the
 * SHA-256 of its directory (the same names as before; without loading node:crypto before the
 * extension's process is spawned).
 */
export function extensionDataDir(zotHome: string, name: string, dir: string): string {
  const tag = sha256Hex(dir).slice(0, 12);
  return join(zotHome, 'extension-data', `${name}-${tag}`);
}

/** Contract: `plan` never throws. */
export class ExtensionScopes {
  private readonly home: string;
  private readonly env: NodeJS.ProcessEnv;
  private readonly platform: NodeJS.Platform;

  constructor(private readonly options: ExtensionScopesOptions) {
    this.home = options.home ?? (options.env ?? process.env).HOME ?? homedir();
    this.env = options.env ?? process.env;
    this.platform = options.platform ?? process.platform;
  }

  /**
   * `command` is the resolved program; `env` the extension's environment (PATH); `provided`
   * what zot gives it besides (its own Python SDK), which the sandbox holds too.
   */
  plan(
    entry: DiscoveredExtension,
    command: string,
    env: NodeJS.ProcessEnv,
    provided?: ProvidedByZot,
  ): ScopePlan {
    const manifest = entry.manifest!;
    const settings = this.options.settings();
    if (!manifest.permissions) return this.unscoped(entry, settings);
    return prepareScope({
      name: manifest.name,
      permissions: manifest.permissions,
      extDir: entry.dir,
      dataDir: extensionDataDir(this.options.zotHome, manifest.name, entry.dir),
      project: this.options.project,
      home: this.home,
      zotHome: this.options.zotHome,
      command,
      path: env.PATH,
      denyRead: settings.denyRead,
      env: this.env,
      platform: this.platform,
      ...(provided ? { provided } : {}),
    });
  }

  private unscoped(entry: DiscoveredExtension, settings: ScopeSettings): ScopePlan {
    const name = entry.manifest!.name;
    const what = `${name} has no "permissions" block (unscoped: it would run with your full rights)`;
    const fix =
      'Its author can declare what it needs (docs/extensions.md, "Permissions"); until then it ' +
      'runs only where the sandbox settings allow unscoped extensions';
    if (settings.extensions === 'required')
      return {
        kind: 'refused',
        message: `${what}, and sandbox.extensions is "required": it was not started. ${fix}.`,
      };
    if (settings.mode !== 'required') return { kind: 'unscoped' };
    const where = settings.modeSource ? ` (${settings.modeSource})` : '';
    if (entry.scope === 'project')
      return {
        kind: 'refused',
        message: `project extension ${what}, and the sandbox is required${where}: it was not started. ${fix}.`,
      };
    return {
      kind: 'unscoped',
      warning:
        `${what}: it runs unscoped although the sandbox is required${where}; your own ` +
        `extensions still start (set sandbox.extensions to "required" to stop them)`,
    };
  }
}

/**
 * One scoped extension's sandbox: who, with which permissions, where (the scope's inputs; its
 * data directory is created 0700 at each start).
 */
export interface ScopeSpec extends Omit<ScopeInputs, 'denyRead' | 'provided'> {
  name: string;
  /** What runs, for messages (default an extension: "it declares permissions"). */
  kind?: 'extension' | 'program';
  denyRead: readonly string[];
  /** What zot gives it besides its own files (its Python SDK): the sandbox holds it too. */
  provided?: ProvidedByZot;
  /** zot's environment (where bwrap is found). */
  env: NodeJS.ProcessEnv;
  platform: NodeJS.Platform;
}

/**
 * The sandbox of one scoped extension, checked now (a permission that can never be granted, or
 * no sandbox program, is a refusal before anything starts) and built again at every start.
 * Contract: never throws.
 */
export function prepareScope(spec: ScopeSpec): ScopePlan {
  const tool = sandboxTool(spec.platform, spec.env);
  const program = spec.kind === 'program';
  if ('problem' in tool)
    return { kind: 'refused', message: refusal(spec.name, tool.problem, program) };
  const helpers = [
    ...(spec.helpers ?? []),
    ...(Array.isArray(spec.permissions.net) ? [process.execPath] : []),
  ];
  const inputs = (): ScopeInputs => ({
    permissions: spec.permissions,
    ...(spec.extDir !== undefined ? { extDir: spec.extDir } : {}),
    dataDir: spec.dataDir,
    project: spec.project,
    home: spec.home,
    zotHome: spec.zotHome,
    command: spec.command,
    path: spec.path,
    denyRead: spec.denyRead,
    ...(helpers.length > 0 ? { helpers } : {}),
    ...(spec.provided ? { provided: spec.provided } : {}),
  });
  // The data directory must exist for the check to see it as it will be.
  try {
    ensurePrivateDir(spec.dataDir);
  } catch (error) {
    return {
      kind: 'refused',
      message: `${spec.name} was not started: cannot create its data directory ${spec.dataDir}: ${String(error)}`,
    };
  }
  const checked = buildScope(inputs());
  if (!checked.ok)
    return { kind: 'refused', message: `${spec.name} was not started: ${checked.error}` };
  // Nothing else runs before the current turn ends: the scope just checked is still the one.
  let fresh: ScopePolicy | undefined = checked.policy;
  queueMicrotask(() => (fresh = undefined));
  const starter: ScopeStarter = {
    start: () => {
      const scope = fresh;
      fresh = undefined;
      if (scope) return startScope(spec.name, tool, spec.dataDir, scope);
      try {
        ensurePrivateDir(spec.dataDir);
      } catch (error) {
        return { error: `cannot create its data directory ${spec.dataDir}: ${String(error)}` };
      }
      const built = buildScope(inputs());
      return built.ok ? startScope(spec.name, tool, spec.dataDir, built.policy) : built;
    },
    failure: (stderr) =>
      startFailure(
        program,
        tool.kind === 'bwrap'
          ? diagnoseBwrapFailure(stderr, kernelFacts({ env: spec.env }, tool.program))
          : {
              cause: 'unknown',
              message: `sandbox-exec failed: ${stderr.trim().split('\n')[0] || '(no message)'}`,
              fix: 'Run zot doctor sandbox.',
            },
      ),
  };
  return { kind: 'scoped', dataDir: spec.dataDir, notes: checked.notes, starter };
}

type SandboxTool = { kind: 'bwrap' | 'sandbox-exec'; program: string };

/** The sandbox program of this platform, or why there is none. */
function sandboxTool(
  platform: NodeJS.Platform,
  env: NodeJS.ProcessEnv,
): SandboxTool | { problem: SandboxProblem } {
  if (platform === 'linux') {
    const program = findOnPath('bwrap', env);
    return program ? { kind: 'bwrap', program } : { problem: bwrapMissing() };
  }
  if (platform === 'darwin') {
    const program = '/usr/bin/sandbox-exec';
    return existsSync(program)
      ? { kind: 'sandbox-exec', program }
      : {
          problem: {
            cause: 'platform',
            message: `${program} is missing`,
            fix: 'sandbox-exec ships with macOS; without it a scoped extension cannot run.',
          },
        };
  }
  return { problem: unsupportedPlatform(platform) };
}

/** The launch of a built sandbox: its network proxy started when its network is a host list. */
function startScope(
  name: string,
  tool: SandboxTool,
  dataDir: string,
  scope: ScopePolicy,
): ScopeStart | { error: string } {
  const launch: ScopeLaunch = { kind: tool.kind, program: tool.program, scope };
  if (tool.kind === 'sandbox-exec') {
    const tempDir = join(dataDir, 'tmp');
    try {
      ensurePrivateDir(tempDir);
    } catch (error) {
      return { error: `cannot create ${tempDir}: ${String(error)}` };
    }
    launch.tempDir = tempDir;
  }
  let proxy: NetworkProxy | undefined;
  if (Array.isArray(scope.network)) {
    try {
      proxy = NetworkProxy.start({
        allow: scope.network,
        setting: `permissions.net of extension ${name}`,
        tcp: tool.kind === 'sandbox-exec',
      });
      launch.proxy = proxy;
    } catch (error) {
      return {
        error: `the network proxy for its permissions.net could not start: ${String(error)}`,
      };
    }
  }
  return { policy: { scope: launch }, release: () => void proxy?.close() };
}

const AFTER =
  'Run `zot doctor sandbox` for every check. (--sandbox off does not change this: an ' +
  'extension that declares permissions runs in its sandbox or not at all.)';
const AFTER_PROGRAM = 'Run `zot doctor sandbox` for every check.';

/** A sandbox that ended before the extension (or program) ran, for its exit's description. */
function startFailure(program: boolean, problem: SandboxProblem): string {
  return (
    `its sandbox did not start, so it was not run (it never runs without it): ` +
    `${program ? linedProblem(problem) : explainProblem(problem)}\n${program ? AFTER_PROGRAM : AFTER}`
  );
}

/** The cause and its fix on lines of their own (what reads a program's stderr shows its end). */
function linedProblem(problem: SandboxProblem): string {
  return `${problem.message}.\nFix: ${problem.fix}${problem.detail ? `\n${problem.detail}` : ''}`;
}

function refusal(name: string, problem: SandboxProblem, program: boolean): string {
  if (program)
    return (
      `${name} was not started: it runs only inside its sandbox, which cannot start here ` +
      `(it is never run without it): ${linedProblem(problem)}\n${AFTER_PROGRAM}`
    );
  return (
    `${name} was not started: it declares permissions, so it runs only inside its sandbox, ` +
    `which cannot start here (it never runs without it): ${explainProblem(problem)}\n${AFTER}`
  );
}
