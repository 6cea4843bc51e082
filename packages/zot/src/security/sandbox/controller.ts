// The sandbox of one run: its mode (from settings, --sandbox, /sandbox), whether it can start
// here (probed once), and the plan for each command: sandboxed, unsandboxed with the one
// warning `on` gives, or refused (`required`). The file tools ask it too.
import { realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import type { SandboxLaunch } from '../launcher.js';
import {
  describeProblem,
  diagnoseBwrapFailure,
  explainProblem,
  type SandboxProblem,
} from './diagnose.js';
import { buildPolicy, fileAccessDenial, type FileOperation, type SandboxPolicy } from './policy.js';
import { kernelFacts, probeSandbox, type SandboxProbe } from './probe.js';
import {
  describeNetwork,
  stricterMode,
  type NetworkSetting,
  type SandboxMode,
  type SandboxSettings,
} from './settings.js';

export type SandboxStatus = 'off' | 'checking' | 'active' | 'unavailable';

/** The snapshot front ends show (the `sandbox` field of the runtime's state). */
export interface SandboxState {
  mode: SandboxMode;
  status: SandboxStatus;
  network: NetworkSetting;
  problem?: string;
}

export type CommandPlan =
  | { kind: 'unsandboxed' }
  | { kind: 'sandboxed'; launch: SandboxLaunch; release(): Promise<void> }
  | { kind: 'refused'; message: string };

export interface SandboxControllerOptions {
  settings: SandboxSettings;
  /** The project's minimum mode (its .zot/settings.json); /sandbox cannot go below it. */
  floor?: SandboxMode;
  /** Where the floor comes from, for the refusal. */
  floorSource?: string;
  project: string;
  home: string;
  zotHome: string;
  /** Names sandbox.network's source in proxy refusals, e.g. `sandbox.network in /x/config.json`. */
  networkSetting?: string;
  /** More paths the sandbox may read although a hidden rule covers them. */
  readable?: () => string[];
  platform?: NodeJS.Platform;
  env?: NodeJS.ProcessEnv;
  probe?: () => Promise<SandboxProbe>;
  /** Said once per mode change when `on` cannot start, and when `required` cannot. */
  warn?(message: string): void;
}

/** Contract: `plan` never rejects; listeners never break the controller. */
export class SandboxController {
  private currentMode: SandboxMode;
  private probing: Promise<SandboxProbe> | undefined;
  private probe: SandboxProbe | undefined;
  /** A launch failed before its command ran, after the probe passed. */
  private broken: SandboxProblem | undefined;
  private warned = false;
  private readonly listeners = new Set<() => void>();
  private readonly warningListeners = new Set<(message: string) => void>();

  constructor(private readonly options: SandboxControllerOptions) {
    this.currentMode = stricterMode(options.settings.mode, options.floor ?? 'off');
  }

  get mode(): SandboxMode {
    return this.currentMode;
  }

  get settings(): SandboxSettings {
    return this.options.settings;
  }

  /** Changes the mode for this run. Returns an error message when the project forbids it. */
  setMode(mode: SandboxMode): string | undefined {
    const floor = this.options.floor ?? 'off';
    if (stricterMode(mode, floor) !== mode) {
      return (
        `the sandbox cannot go below "${floor}" here: ${this.options.floorSource ?? "the project's .zot/settings.json"} ` +
        `asks for it (edit that file to change it)`
      );
    }
    if (mode === this.currentMode) return undefined;
    this.currentMode = mode;
    this.warned = false;
    if (mode !== 'off') void this.check();
    this.changed();
    return undefined;
  }

  /** Warnings (the sandbox cannot start) go to these and to the `warn` option. */
  onWarning(listener: (message: string) => void): () => void {
    this.warningListeners.add(listener);
    return () => this.warningListeners.delete(listener);
  }

  private say(message: string): void {
    this.options.warn?.(message);
    for (const listener of this.warningListeners) {
      try {
        listener(message);
      } catch {
        // as for changes
      }
    }
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(): void {
    for (const listener of this.listeners) {
      try {
        listener();
      } catch {
        // a front end's trouble is not the sandbox's
      }
    }
  }

  /** Probes once (cached); later calls return the same result. Contract: never rejects. */
  check(): Promise<SandboxProbe> {
    this.probing ??= (
      this.options.probe ?? (() => probeSandbox({ env: this.options.env ?? process.env }))
    )()
      .catch(
        (error: unknown): SandboxProbe => ({
          ok: false,
          checks: [],
          problem: {
            cause: 'unknown',
            message: `the sandbox probe failed: ${String(error)}`,
            fix: 'Run zot doctor sandbox.',
          },
        }),
      )
      .then((probe) => {
        this.probe = probe;
        this.changed();
        this.warnIfUnavailable();
        return probe;
      });
    return this.probing;
  }

  private problem(): SandboxProblem | undefined {
    return this.broken ?? (this.probe && !this.probe.ok ? this.probe.problem : undefined);
  }

  private warnIfUnavailable(): void {
    const problem = this.problem();
    if (!problem || this.warned || this.currentMode === 'off') return;
    this.warned = true;
    const what =
      this.currentMode === 'required'
        ? 'the sandbox is required, but it cannot start here, so bash commands will not run'
        : 'the sandbox is on, but it cannot start here: commands run WITHOUT it';
    this.say(`${what}: ${describeProblem(problem)}`);
  }

  status(): SandboxStatus {
    if (this.currentMode === 'off') return 'off';
    if (this.problem()) return 'unavailable';
    return this.probe ? 'active' : 'checking';
  }

  state(): SandboxState {
    const problem = this.currentMode === 'off' ? undefined : this.problem();
    return {
      mode: this.currentMode,
      status: this.status(),
      network: this.options.settings.network,
      ...(problem ? { problem: describeProblem(problem) } : {}),
    };
  }

  /** The policy as it stands now (paths are resolved again each time: they may appear later). */
  policy(): SandboxPolicy {
    return buildPolicy({
      settings: this.options.settings,
      project: this.options.project,
      home: this.options.home,
      zotHome: this.options.zotHome,
      readable: this.options.readable?.() ?? [],
    });
  }

  /**
   * The file tools' check: why `operation` on `path` is refused, or undefined. Enforced
   * whenever the mode is on or required, whether or not bwrap can start.
   */
  fileDenial(tool: string, path: string, operation: FileOperation): string | undefined {
    if (this.currentMode === 'off') return undefined;
    return fileAccessDenial(this.policy(), tool, path, operation);
  }

  /** How the next command runs. Contract: never rejects. */
  async plan(): Promise<CommandPlan> {
    if (this.currentMode === 'off') return { kind: 'unsandboxed' };
    const probe = await this.check();
    const problem = this.problem();
    if (problem || !probe.ok || !probe.path || !probe.tool) {
      const why = problem ?? {
        cause: 'unknown' as const,
        message: 'the sandbox is unavailable',
        fix: 'Run zot doctor sandbox.',
      };
      if (this.currentMode === 'required') {
        return {
          kind: 'refused',
          message:
            `not run: the sandbox is required (sandbox mode "required") but cannot start: ` +
            `${explainProblem(why)}\nRun \`zot doctor sandbox\` for every check.`,
        };
      }
      return { kind: 'unsandboxed' };
    }
    const policy = this.policy();
    const launch: SandboxLaunch = {
      kind: probe.tool === 'sandbox-exec' ? 'sandbox-exec' : 'bwrap',
      program: probe.path,
      policy,
      ...launchTempDirs(probe.tool),
    };
    if (Array.isArray(policy.network)) {
      try {
        const { NetworkProxy } = await import('./proxy.js');
        launch.proxy = NetworkProxy.start({
          allow: policy.network,
          setting: this.options.networkSetting ?? 'sandbox.network',
          tcp: launch.kind === 'sandbox-exec',
        });
      } catch (error) {
        const message = `the sandbox's network proxy could not start: ${String(error)}`;
        if (this.currentMode === 'required')
          return { kind: 'refused', message: `not run: ${message}` };
        this.say(`${message}; this command runs without network`);
        launch.policy = { ...policy, network: false };
      }
    }
    const proxy = launch.proxy;
    return { kind: 'sandboxed', launch, release: async () => proxy?.close() };
  }

  /**
   * A sandboxed launch ended before its command started: diagnose bwrap's message, remember
   * it (later plans see the sandbox as unavailable) and warn once.
   */
  setupFailed(stderr: string): SandboxProblem {
    const problem = diagnoseBwrapFailure(
      stderr,
      kernelFacts({ env: this.options.env ?? process.env }),
    );
    this.broken = problem;
    this.changed();
    this.warnIfUnavailable();
    return problem;
  }

  /** What /sandbox shows. */
  describe(): string {
    const state = this.state();
    const lines = [`sandbox: ${state.mode} (${describeStatus(state.status)})`];
    lines.push(`network: ${describeNetwork(this.options.settings.network)}`);
    const policy = this.policy();
    const list = (access: string) =>
      policy.rules
        .filter((rule) => rule.access === access)
        .map(
          (rule) =>
            `  ${rule.path}  (${rule.source}${rule.kind === 'missing' ? '; not there now' : ''})`,
        );
    lines.push('writable:', ...list('writable'), '  /tmp  (a private one for each command)');
    lines.push('hidden (nothing in the sandbox can read them):', ...list('hidden'));
    lines.push('readable although under a hidden path:', ...list('read-only'));
    for (const note of policy.notes) lines.push(`note: ${note}`);
    if (state.problem) lines.push('', state.problem);
    lines.push(
      '',
      'Switch for this run: /sandbox off | on | required; add --save to keep it in config.json.',
    );
    return lines.join('\n');
  }
}

function describeStatus(status: SandboxStatus): string {
  switch (status) {
    case 'off':
      return 'commands run unsandboxed';
    case 'checking':
      return 'checking whether it can start';
    case 'active':
      return 'commands run in the sandbox';
    case 'unavailable':
      return 'it cannot start here';
  }
}

function launchTempDirs(tool: string): { tempDirs?: string[] } {
  if (tool !== 'sandbox-exec') return {};
  const dirs = new Set<string>();
  for (const dir of ['/tmp', tmpdir()]) {
    try {
      dirs.add(realpathSync(dir));
    } catch {
      // not there: nothing to allow
    }
  }
  return { tempDirs: [...dirs] };
}
