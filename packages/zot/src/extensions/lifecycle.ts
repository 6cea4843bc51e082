// Which extensions run: discovery, parallel start, shutdown, and the exit hook that kills
// their process groups if zot exits any other way.
import { discoverExtensions, type DiscoveredExtension, type ReplaceCheck } from './discovery.js';
import type { ExtensionContext, RunningExtension } from './extension.js';
import type { HostEvent } from './host.js';
import { planAll, type ExtensionReport, type TransportFactory } from './load-plan.js';
import { ExtensionLog, extensionLogPath } from './log.js';
import type { ProcessPolicy } from '../security/launcher.js';
import type { ExtensionScopes } from './scopes.js';
import { restartBackoffMs, systemClock, type SupervisorClock } from './restart-budget.js';
import { Supervisor } from './supervisor.js';

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
}

/**
 * Contract: never throws or rejects; an exit hook is installed only while extensions may be
 * running (from start() to the end of shutdown()), so hosts created and shut down repeatedly
 * leave no `exit` listener behind.
 */
export class ExtensionLifecycle {
  private extensions: RunningExtension[] = [];
  private reports: ExtensionReport[] = [];
  private exitHook: (() => void) | undefined;
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

  /** Discovers and starts every extension in parallel; resolves when all are ready or failed. */
  async start(): Promise<ExtensionReport[]> {
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
    });
    const deps = {
      env,
      logsDir,
      context,
      scopes,
      ...(allow ? { allow } : {}),
      ...(transport ? { transport } : {}),
      ...(processPolicy ? { processPolicy } : {}),
    };
    const planned = planAll(entries, deps);
    this.extensions = planned.flatMap((item) => ('extension' in item ? [item.extension] : []));
    for (const item of planned)
      if ('extension' in item) this.supervisor.watch(item.extension, item.respawn);
    if (this.outputBlocked)
      this.extensions.forEach((extension) => extension.setOutputBlocked(true));
    if (this.extensions.length > 0) this.installExitHook();
    await Promise.all(this.extensions.map((extension) => extension.start()));
    this.deps.beforeReports();
    this.reports = planned.map((item) => item.report());
    for (const report of this.reports) this.reportProblem(report);
    for (const entry of entries) if (entry.clash) this.reportClash(entry, entry.clash);
    return this.reports;
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
