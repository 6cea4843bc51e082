// Which extensions run: discovery, parallel start, shutdown, and the exit hook that kills
// their process groups if zot exits any other way.
import { join } from 'node:path';
import {
  discoverExtensions,
  type DiscoveredExtension,
  type ReplaceCheck,
} from '../ext-setup/discovery.js';
import type { ExtensionContext, RunningExtension } from './extension.js';
import type { HostEvent } from './host.js';
import {
  planAll,
  type ExtensionReport,
  type RemoteLink,
  type PlanIdentity,
  type TransportFactory,
} from './load-plan.js';
import {
  mayGoAhead,
  mayHoldBack,
  memoryKey,
  memoryText,
  readMemory,
  writeMemory,
} from './remembered.js';
import { ExtensionLog, extensionLogPath } from './log.js';
import { loadSchemaCheck, type Registrations } from './registrations.js';
import type { ProcessPolicy } from '../security/launcher.js';
import { errorMessage } from '../util/errors.js';
import type { ExtensionScopes } from './scopes.js';
import { restartBackoffMs, systemClock, type SupervisorClock } from './restart-budget.js';
import { Supervisor } from './supervisor.js';
import type { AgentFor } from './transports/remote-connect.js';

export interface LifecycleDeps {
  cwd: string;
  zotHome: string;
  logsDir: string;
  extPaths: string[];
  noExt: boolean;
  env: NodeJS.ProcessEnv;
  allow?(entry: DiscoveredExtension): string | undefined;
  /** Whether a project extension may replace the global one of its name (default: never). */
  replaces?: ReplaceCheck;
  context: ExtensionContext;
  transport?: TransportFactory | undefined;
  processPolicy?: ((entry: DiscoveredExtension) => ProcessPolicy) | undefined;
  scopes: ExtensionScopes;
  emit(event: HostEvent): void;
  /** Runs once every extension is ready or failed, before the reports are taken. */
  beforeReports(): void;
  /** A crashed extension is back in its place; the host replays what the session had. */
  restarted(extension: RunningExtension, restarts: number): void;
  /** Time for restart backoff (default: the system clock). */
  clock?: SupervisorClock | undefined;
  /** Remote extensions: `--ext-url`s and how links may be made. */
  remote?: RemoteOptions | undefined;
}

/** `--ext-url`, `--ext-token-env`, `--insecure-ext-transport`, and where tokens are read. */
export interface RemoteOptions {
  urls: readonly string[];
  tokenEnv?: string | undefined;
  insecure: boolean;
  /** zot's own environment, where tokens are read; default process.env. */
  env?: NodeJS.ProcessEnv;
  /** How connections are made (the providers' proxy settings); default direct. */
  agent?: AgentFor;
  /** auth.json and config.json, where a token may be found besides the environment. */
  authPath?: string;
  configPath?: string;
  /**
   * Told the token variables the user's manifests name (`token_env`) once they are read, before
   * anything starts, so that no child process sees them (security/child-env.ts).
   */
  tokenNames?(names: readonly string[]): void;
}

/**
 * Contract: never throws or rejects; an exit hook is installed only while extensions may be
 * running (from start() to the end of shutdown()), so hosts created and shut down repeatedly
 * leave no `exit` listener behind.
 */
export class ExtensionLifecycle {
  private extensions: RunningExtension[] = [];
  private reports: ExtensionReport[] = [];
  /** The remote extensions' links, read live. */
  private links: Array<() => RemoteLink> = [];
  private exitHook: (() => void) | undefined;
  /** Pending startHeldAfter(). */
  private heldTimer: NodeJS.Timeout | undefined;
  /**
   * The memory key of each extension of this start, and the entry's text as last written, or
   * the registrations last read (made into text only when there is something to compare).
   */
  private readonly memory = new WeakMap<
    RunningExtension,
    { key: string; text: string | undefined; read?: Registrations }
  >();
  private outputBlocked = false;
  private readonly supervisor: Supervisor;

  constructor(private readonly deps: LifecycleDeps) {
    this.supervisor = new Supervisor({
      clock: deps.clock ?? systemClock,
      backoffMs: restartBackoffMs(deps.env),
      emit: deps.emit,
      replace: (old, fresh) => {
        const index = this.extensions.indexOf(old);
        if (index >= 0) this.extensions[index] = fresh;
        // zot's output may have backed up or drained while it started.
        fresh.setOutputBlocked(this.outputBlocked);
      },
      restarted: (fresh, restarts) => deps.restarted(fresh, restarts),
      outputBlocked: () => this.outputBlocked,
    });
  }

  /** Extensions that were spawned, in load order. */
  get running(): readonly RunningExtension[] {
    return this.extensions;
  }
  get lastReports(): readonly ExtensionReport[] {
    return this.reports;
  }
  /** Each remote extension's connection now, in load order. */
  remoteLinks(): RemoteLink[] {
    return this.links.map((link) => link());
  }

  /** Discovers and starts every extension in parallel; resolves when all are ready or failed. */
  start(): Promise<ExtensionReport[]> {
    return this.begin().all;
  }

  /**
   * Discovers and starts every extension in parallel. `all` resolves when every one is ready or
   * failed (with the reports); `needed` as soon as every one that must be waited for is: an
   * extension may be left to start in the background only when zot remembers what it
   * registered with the same code (see remembered.ts and mayGoAhead). Contract: never rejects.
   */
  begin(options: { holdBack?: boolean } = {}): {
    needed: Promise<void>;
    all: Promise<ExtensionReport[]>;
  } {
    const {
      cwd,
      zotHome,
      extPaths,
      noExt,
      env,
      logsDir,
      allow,
      replaces,
      context,
      transport,
      processPolicy,
      scopes,
    } = this.deps;
    const { entries } = discoverExtensions({
      cwd,
      zotHome,
      extPaths,
      noExt,
      ...(replaces ? { replaces } : {}),
      extUrls: this.deps.remote?.urls ?? [],
      extTokenEnv: this.deps.remote?.tokenEnv,
    });
    // Not a project's: a project file could otherwise strip any variable from every child.
    const tokenNames = entries.flatMap((entry) => {
      const named = entry.manifest?.remote?.tokenEnv;
      return named !== undefined && entry.scope !== 'project' ? [named] : [];
    });
    if (tokenNames.length > 0) this.deps.remote?.tokenNames?.(tokenNames);
    const deps = {
      env,
      logsDir,
      context,
      scopes,
      ...(allow ? { allow } : {}),
      ...(transport ? { transport } : {}),
      ...(processPolicy ? { processPolicy } : {}),
      ...(this.deps.remote ? { remote: this.deps.remote } : {}),
    };
    const planned = planAll(entries, deps);
    this.links = planned.flatMap((item) => (item.link ? [item.link] : []));
    this.extensions = planned.flatMap((item) => ('extension' in item ? [item.extension] : []));
    for (const item of planned)
      if ('extension' in item) this.supervisor.watch(item.extension, item.respawn);
    if (this.outputBlocked)
      this.extensions.forEach((extension) => extension.setOutputBlocked(true));
    if (this.extensions.length > 0) this.installExitHook();
    const needed: Array<Promise<unknown>> = [];
    for (const item of planned) {
      if (!('extension' in item)) continue;
      const { extension, identity } = item;
      // Its process would only compete with zot's own start for the CPU: spawned once the first
      // model request is out (startHeld), or as soon as anything needs it.
      if (
        options.holdBack &&
        identity &&
        mayHoldBack(zotHome, identity.dir, extension.policy.interceptFailure)
      )
        extension.hold();
      else extension.start();
      // A remote extension (no identity) is always waited for: its code may change any time.
      const goAhead = identity ? this.recall(extension, identity) : Promise.resolve(false);
      needed.push(
        goAhead.then((go) => {
          if (go) return undefined;
          // Not what zot remembers after all (its code or inputs changed): waited for.
          return extension.release('what zot remembers of it does not match');
        }),
      );
    }
    const all = Promise.all(this.extensions.map((extension) => extension.whenStarted())).then(
      () => {
        this.deps.beforeReports();
        this.reports = planned.map((item) => item.report());
        // One zot shut down before it was ready (a run over before it was needed) did not fail.
        planned.forEach((item, index) => {
          if (!('extension' in item) || item.extension.state !== 'stopped')
            this.reportProblem(this.reports[index]!);
        });
        for (const entry of entries) if (entry.clash) this.reportClash(entry, entry.clash);
        return this.reports;
      },
    );
    return { needed: Promise.all(needed).then(() => undefined), all };
  }

  /**
   * Starts the extensions begin() held back (the first model request is out, or a slash command
   * or a reload needs every one). Contract: never throws; a second call does nothing.
   */
  startHeld(why: string): void {
    this.cancelHeldStart();
    for (const extension of this.extensions) void extension.release(why);
  }

  /**
   * startHeld(why) in `ms` (at once for 0), unless something starts them first or a shutdown
   * comes: a run whose answer is complete by then never spawns them. Contract: never throws;
   * while one is pending, later calls change nothing.
   */
  startHeldAfter(why: string, ms: number): void {
    if (ms <= 0) return this.startHeld(why);
    if (this.heldTimer || !this.extensions.some((extension) => extension.isHeld)) return;
    this.heldTimer = setTimeout(() => this.startHeld(why), ms);
    this.heldTimer.unref(); // it must not keep a finished process alive
  }

  private cancelHeldStart(): void {
    clearTimeout(this.heldTimer);
    this.heldTimer = undefined;
  }

  /**
   * Looks up what `extension` registered in an earlier run with the same code, and offers it
   * until it is ready; resolves whether the run may go ahead without waiting for it.
   * Contract: never rejects.
   */
  private async recall(extension: RunningExtension, identity: PlanIdentity): Promise<boolean> {
    const { zotHome, cwd, context } = this.deps;
    const { zot_version, provider, model } = context.hostInfo();
    const hello = { zot_version, provider, model };
    const inputs = identity.inputs.map((input) =>
      input.startsWith('$ZOT_HOME/')
        ? join(zotHome, input.slice('$ZOT_HOME/'.length))
        : join(cwd, input.slice('$CWD/'.length)),
    );
    const key = await memoryKey({ home: zotHome, cwd, hello, ...identity, inputs }).catch(
      () => undefined,
    );
    if (key === undefined) {
      extension.log.write(
        'its directory could not be pinned; its registrations are not remembered',
      );
      return false;
    }
    this.memory.set(extension, { key, text: undefined });
    if (extension.settled) {
      this.save(extension);
      return true;
    }
    let read = readMemory(zotHome, identity.dir, key);
    if (read.needsSchemaCheck) {
      // An entry of an earlier zot (not sealed): checked in full, with the schema check loaded.
      const problem = await loadSchemaCheck().then(
        () => undefined,
        (error: unknown) => errorMessage(error),
      );
      if (problem !== undefined) {
        extension.log.write(`remembered registrations not used: ${problem}`);
        return false;
      }
      if (extension.settled) {
        this.save(extension);
        return true;
      }
      read = readMemory(zotHome, identity.dir, key);
    }
    if (read.problem) extension.log.write(read.problem);
    if (!read.registrations) return false;
    this.memory.set(extension, { key, text: undefined, read: read.registrations });
    extension.remember(read.registrations);
    const go = mayGoAhead(read.registrations, extension.policy.interceptFailure);
    if (go && extension.isHeld)
      extension.log.write(
        'not waited for, and held back until the first model request is out (or a call needs it): the tools it registered in the last run are offered until it is ready',
      );
    else if (go && !extension.settled)
      extension.log.write(
        'not waited for: the tools it registered in the last run are offered until it is ready',
      );
    return go;
  }

  /**
   * Remembers what a ready extension registered, for the next run (only when it changed).
   * Contract: never throws.
   */
  save(extension: RunningExtension): void {
    const memory = this.memory.get(extension);
    if (!memory || extension.state !== 'ready' || extension.readyKind !== 'ready') return;
    if (memory.read) {
      memory.text = memoryText(memory.key, extension.name, memory.read);
      memory.read = undefined;
    }
    const text = memoryText(memory.key, extension.name, extension);
    if (text === memory.text) return;
    const problem = writeMemory(this.deps.zotHome, extension.dir, text);
    if (problem) extension.log.write(problem);
    else memory.text = text;
  }

  /** A project entry that gave way to the global one of its name: said in the run and the log. */
  private reportClash(entry: DiscoveredExtension, message: string): void {
    const name = entry.manifest?.name ?? entry.claimedName!;
    new ExtensionLog(extensionLogPath(this.deps.logsDir, name)).write(`warning: ${message}`);
    this.deps.emit({ type: 'ext_warning', extension: name, message });
  }

  private reportProblem(report: ExtensionReport): void {
    if (report.status === 'failed' || report.status === 'manifest-error') {
      this.deps.emit({
        type: 'ext_error',
        extension: report.name,
        message: `extension ${report.name} failed to load: ${report.error}`,
        log_path: report.logPath ?? '',
      });
    } else if (report.scopeWarning) {
      this.deps.emit({ type: 'ext_warning', extension: report.name, message: report.scopeWarning });
    }
    if (report.status === 'untrusted') {
      this.deps.emit({
        type: 'ext_warning',
        extension: report.name,
        message: report.error ?? 'not trusted',
        untrusted: true,
      });
    }
  }

  /** A loaded extension died: reported, and restarted unless its policy or budget says no. */
  crashed(extension: RunningExtension, message: string): void {
    this.supervisor.crashed(extension, message);
  }

  /** Reading of every extension's output follows zot's own output (see RunningExtension). */
  setOutputBlocked(blocked: boolean): void {
    this.outputBlocked = blocked;
    for (const extension of this.extensions) extension.setOutputBlocked(blocked);
  }

  /** Shuts every extension down (design D18), in parallel. Contract: never rejects. */
  async shutdown(): Promise<void> {
    this.cancelHeldStart();
    // Registered after ready (an MCP server listed late): offered at once next time.
    for (const extension of this.extensions) this.save(extension);
    await Promise.all([
      this.supervisor.stop(),
      ...this.extensions.map((extension) => extension.shutdown()),
    ]);
    this.removeExitHook();
  }

  /** Forgets the stopped set before the next start (a reload: restart budgets start afresh). */
  clear(): void {
    this.extensions = [];
    this.supervisor.clear();
  }

  private installExitHook(): void {
    if (this.exitHook) return;
    this.exitHook = () => this.killAllNow();
    process.on('exit', this.exitHook);
  }

  private removeExitHook(): void {
    if (!this.exitHook) return;
    process.off('exit', this.exitHook);
    this.exitHook = undefined;
  }

  /** Synchronous SIGKILL of every extension group (process exit hook). */
  killAllNow(): void {
    for (const extension of this.extensions) extension.killNow();
    this.supervisor.killAllNow();
  }
}
