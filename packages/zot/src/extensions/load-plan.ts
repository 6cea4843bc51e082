// What happens to each discovered extension: spawned, or reported as not loaded and why.
import { basename } from 'node:path';
import type { DiscoveredExtension } from '../ext-setup/discovery.js';
import { argumentOutside, resolveExec } from '../ext-setup/exec-resolve.js';
import { RunningExtension, type ExtensionContext } from './extension.js';
import { ExtensionLog, extensionLogPath } from './log.js';
import type { MemoryIdentity } from './remembered.js';
import type { ExtensionScopes } from './scopes.js';
import { ProcessTransport, type ProcessSpec } from './process-transport.js';
import { projectRuntimeProblem } from '../ext-setup/project-runtime.js';
import { readyDeadlineMs } from './timeouts.js';
import { withShippedSdk } from '../ext-setup/shipped-sdk.js';
import { trustAllFromEnv } from '../ext-setup/trust.js';
import type { ProcessPolicy } from '../security/launcher.js';
import { SELF_ARGV_ENV, selfArgv } from '../util/self.js';
import { describeExit, type ExtensionTransport } from './transport.js';
import { displayUrl } from '../ext-setup/remote-config.js';
import { prepareRemoteLink } from '../ext-setup/remote-token.js';
import { openRemote } from './transports/open-remote.js';
import type { AgentFor } from './transports/remote-connect.js';

// The report's shape is part of the contract (`zot ext doctor --json`, RPC reload_extensions).
export type { ExtensionReport, LoadStatus } from '../contract/summaries.js';
import type { ExtensionReport, LoadStatus } from '../contract/summaries.js';

/** Connects one extension about to start; `log` is its log file. */
export type TransportFactory = (spec: ProcessSpec, log: ExtensionLog) => ExtensionTransport;

const spawnProcess: TransportFactory = (spec, log) => new ProcessTransport(spec, log);

type ReportBase = Omit<ExtensionReport, 'status' | 'commands' | 'tools' | 'events' | 'intercepts'>;

export interface PlanDeps {
  env: NodeJS.ProcessEnv;
  logsDir: string;
  /** The trust gate: a refusal message skips the entry. */
  allow?(entry: DiscoveredExtension): string | undefined;
  context: ExtensionContext;
  transport?: TransportFactory;
  /** What confines an entry's process (sandbox, environment filter); default none. */
  processPolicy?(entry: DiscoveredExtension): ProcessPolicy;
  /** Scoped or unscoped, and whether it may run at all. */
  scopes: ExtensionScopes;
  /**
   * Remote extensions: whether unencrypted links may leave this machine (--insecure-ext-transport),
   * and zot's own environment, where tokens and proxy settings are read (default process.env).
   */
  remote?: {
    insecure: boolean;
    env?: NodeJS.ProcessEnv;
    agent?: AgentFor;
    /** auth.json and config.json, where tokens may be found too (remote-token.ts). */
    authPath?: string;
    configPath?: string;
  };
}

/** What, besides its files, decides what a spawned extension registers (remembered.ts). */
export type PlanIdentity = Pick<MemoryIdentity, 'dir' | 'manifest' | 'command' | 'args' | 'env'> & {
  /** As the manifest gives them, `$ZOT_HOME/` or `$CWD/` not yet resolved. */
  inputs: readonly string[];
};

/**
 * A spawned extension (its report reads its state later) with the means to spawn it again
 * (a restart after a crash: same command, environment and log; or the trust gate's refusal),
 * or a fixed report.
 */
export type PlannedExtension =
  | {
      extension: RunningExtension;
      respawn(): RunningExtension | string;
      report(): ExtensionReport;
      /** A remote extension's link as it is now. */
      link?(): RemoteLink;
      /** Absent for a remote extension: its code is elsewhere, nothing of it is remembered. */
      identity?: PlanIdentity;
    }
  | { report(): ExtensionReport; link?(): RemoteLink };

/** A remote extension's connection as front ends show it (the state snapshot's `remote`). */
export interface RemoteLink {
  name: string;
  transport: 'websocket' | 'http';
  /** Credentials elided. */
  url: string;
  connection: 'connecting' | 'connected' | 'reconnecting' | 'down';
  /** reconnecting: when the next attempt is due (epoch ms). */
  retry_at?: number;
  /** down: why. */
  reason?: string;
}

/** Contract: never throws; only entries that may run (status load, trusted, exec found) spawn. */
export function planExtension(entry: DiscoveredExtension, deps: PlanDeps): PlannedExtension {
  const manifest = entry.manifest;
  const name = manifest?.name ?? basename(entry.dir);
  const logPath = manifest ? extensionLogPath(deps.logsDir, manifest.name) : undefined;
  const base: ReportBase = {
    name,
    dir: entry.dir,
    scope: entry.scope,
    warnings: [...entry.warnings],
    ...(logPath ? { logPath } : {}),
    ...(manifest ? { interceptFailure: manifest.interceptFailure, restart: manifest.restart } : {}),
    ...(manifest?.kind === 'process'
      ? manifest.permissions
        ? { scoped: true, permissions: manifest.permissions }
        : { scoped: false }
      : {}),
  };
  const empty = { commands: [], tools: [], events: [], intercepts: [] };
  const fixed = (status: LoadStatus, extra: Partial<ExtensionReport> = {}) => ({
    report: (): ExtensionReport => ({ ...base, ...empty, status, ...extra }),
  });
  switch (entry.status) {
    case 'error':
      return fixed('manifest-error', { error: entry.error ?? 'invalid manifest' });
    case 'disabled':
      return fixed('disabled');
    case 'theme-only':
      return fixed('theme-only');
    case 'skill-only':
      return fixed('skill-only');
    case 'shadowed':
      return fixed(
        'shadowed',
        entry.shadowedBy
          ? { shadowedBy: entry.shadowedBy.dir, shadowedByScope: entry.shadowedBy.scope }
          : {},
      );
  }
  // Before the trust check: such an extension cannot be trusted at all, and doctor says why.
  const outside = entry.scope === 'project' ? argumentOutside(manifest!) : undefined;
  if (outside) return fixed('manifest-error', { error: outside });
  const refusal = deps.allow?.(entry);
  if (refusal) return fixed('untrusted', { error: refusal });
  if (manifest!.remote) return planRemote(entry, deps, base);
  const exec = resolveExec(manifest!, deps.env);
  if (!exec.ok) return fixed('failed', { error: exec.error });
  // Trusting every project extension (CI) accepts whatever the repository holds.
  const unpinned = trustAllFromEnv(deps.env)
    ? undefined
    : projectRuntimeProblem(entry, exec.command, deps.env);
  if (unpinned) return fixed('failed', { error: unpinned });
  // Python would write __pycache__ into a project extension on its first run, which changes
  // the trusted content and stops it from starting again. A scoped one cannot (its directory
  // is read-only in its sandbox): its bytecode goes to its data directory (scopedEnvironment).
  const withSelf = withSelfArgv(deps.env);
  const own =
    entry.scope === 'project' && !manifest!.permissions
      ? { ...withSelf, PYTHONDONTWRITEBYTECODE: '1' }
      : withSelf;
  // After the check above: zot's own SDK is part of zot, wherever zot is installed.
  const sdk = withShippedSdk(manifest!, own, { scoped: manifest!.permissions !== undefined });
  if (!sdk.ok) return fixed('failed', { error: sdk.error });
  const env = sdk.env;
  const scoped = deps.scopes.plan(entry, exec.command, deps.env, sdk.provided);
  if (scoped.kind === 'refused') return fixed('failed', { error: scoped.message });
  if (scoped.kind === 'unscoped' && scoped.warning) {
    base.warnings.push(scoped.warning);
    base.scopeWarning = scoped.warning;
  }
  if (scoped.kind === 'scoped') base.dataDir = scoped.dataDir;
  const log = new ExtensionLog(logPath!);
  // A declared path that is not there (an optional file) is normal: the log says so.
  if (scoped.kind === 'scoped') for (const note of scoped.notes) log.write(`sandbox: ${note}`);
  const spec: ProcessSpec = {
    command: exec.command,
    args: exec.args,
    cwd: entry.dir,
    env,
    killGraceMs: deps.context.timeouts.killGraceMs,
    policy: deps.processPolicy?.(entry) ?? {},
    ...(scoped.kind === 'scoped' ? { scope: scoped.starter } : {}),
  };
  const policy = {
    interceptFailure: manifest!.interceptFailure,
    restart: manifest!.restart,
    readyMs: readyDeadlineMs(deps.context.timeouts, manifest!.readyTimeoutMs),
  };
  const spawn = () => {
    const transport = (deps.transport ?? spawnProcess)(spec, log);
    return new RunningExtension(
      manifest!.name,
      entry.dir,
      transport,
      log,
      deps.context,
      policy,
      scoped.kind === 'scoped' ? scoped.dataDir : entry.dir,
    );
  };
  // A restart passes the trust gate again: a project extension changed since it was trusted
  // (by itself, or by a pull) must not come back as code nobody reviewed. One that replaced a
  // global extension gives the name back then: the user's own one starts in its place.
  const respawn = (): RunningExtension | string => {
    const refusal = deps.allow?.(entry);
    if (refusal === undefined) return spawn();
    if (!entry.replaces) return refusal;
    const fallback = planExtension(reinstated(entry.replaces, entry, refusal), deps);
    return 'extension' in fallback ? fallback.extension : refusal;
  };
  const extension = spawn();
  const { dir: _dir, manifestPath: _path, ...declared } = manifest!;
  const identity = {
    dir: entry.dir,
    manifest: declared,
    command: exec.command,
    args: exec.args,
    env,
    inputs: manifest!.registrationInputs,
  };
  return { extension, respawn, report: () => reportOf(extension, base), identity };
}

/** A remote extension: connected to, never spawned; restarts reconnect (after the gate again). */
function planRemote(
  entry: DiscoveredExtension,
  deps: PlanDeps,
  base: ReportBase,
): PlannedExtension {
  const manifest = entry.manifest!;
  const config = manifest.remote!;
  const env = deps.remote?.env ?? process.env;
  const remote = { transport: config.type, url: displayUrl(config.url) };
  const report = (status: LoadStatus, error: string): PlannedExtension => ({
    link: () => ({ name: manifest.name, ...remote, connection: 'down', reason: error }),
    report: () => ({
      ...base,
      remote: { ...remote, connection: 'down' },
      commands: [],
      tools: [],
      events: [],
      intercepts: [],
      status,
      error,
    }),
  });
  const prepared = prepareRemoteLink(manifest.name, config, {
    insecure: deps.remote?.insecure ?? false,
    env,
    authPath: deps.remote?.authPath,
    configPath: deps.remote?.configPath,
    byName: entry.scope !== 'project',
  });
  if ('problem' in prepared) return report('failed', prepared.problem);
  const log = new ExtensionLog(base.logPath!);
  const policy = {
    interceptFailure: manifest.interceptFailure,
    restart: manifest.restart,
    readyMs: readyDeadlineMs(deps.context.timeouts, manifest.readyTimeoutMs),
  };
  const spawn = () =>
    new RunningExtension(
      manifest.name,
      entry.dir,
      openRemote(
        {
          ...prepared,
          agent: deps.remote?.agent,
          connectTimeoutMs: deps.context.timeouts.helloMs,
          closeGraceMs: deps.context.timeouts.killGraceMs,
        },
        log,
      ),
      log,
      deps.context,
      policy,
    );
  const respawn = (): RunningExtension | string => deps.allow?.(entry) ?? spawn();
  const extension = spawn();
  return {
    extension,
    respawn,
    report: () => {
      const latest = extension.latest;
      return { ...reportOf(latest, base), remote: { ...remote, connection: connectionOf(latest) } };
    },
    link: () => {
      const latest = extension.latest;
      const connection = connectionOf(latest);
      const link: RemoteLink = { name: manifest.name, ...remote, connection };
      if (connection === 'reconnecting' && latest.restartAt !== undefined)
        link.retry_at = latest.restartAt;
      if (connection === 'down') link.reason = latest.whyNotRunning;
      return link;
    },
  };
}

function connectionOf(extension: RunningExtension): RemoteLink['connection'] {
  if (extension.restarting) return 'reconnecting';
  if (extension.state === 'ready' || extension.state === 'handshaking') return 'connected';
  return extension.state === 'starting' ? 'connecting' : 'down';
}

/**
 * Plans every entry in load order. A project extension trusted to replace a global one that does
 * not start now (the gate refuses content changed since discovery, or it cannot be spawned)
 * gives the name back: the global one is planned in its place, so that one of the two runs.
 * Contract: never throws.
 */
export function planAll(entries: DiscoveredExtension[], deps: PlanDeps): PlannedExtension[] {
  const planned = entries.map((entry) => planExtension(entry, deps));
  entries.forEach((entry, index) => {
    const global = entry.replaces;
    const plan = planned[index]!;
    if (!global || 'extension' in plan) return;
    const at = entries.indexOf(global);
    const why = plan.report().error ?? plan.report().status;
    if (at >= 0) planned[at] = planExtension(reinstated(global, entry, why), deps);
  });
  return planned;
}

/** The global entry a project one replaced, loadable again, saying why. */
function reinstated(
  global: DiscoveredExtension,
  project: DiscoveredExtension,
  why: string,
): DiscoveredExtension {
  const { shadowedBy: _replacedBy, ...rest } = global;
  return {
    ...rest,
    status: 'load',
    warnings: [
      ...global.warnings.filter((warning) => !warning.startsWith('replaced in this project')),
      `runs after all: project extension ${project.dir}, trusted to replace it, cannot run (${why})`,
    ],
  };
}

function reportOf(extension: RunningExtension, base: ReportBase): ExtensionReport {
  const ok = extension.state === 'ready';
  const error =
    extension.failure ??
    (ok ? undefined : extension.exit ? describeExit(extension.exit) : extension.state);
  return {
    ...base,
    warnings: [...base.warnings, ...extension.warnings],
    status: ok ? (extension.readyKind ?? 'ready') : 'failed',
    ...(error !== undefined ? { error } : {}),
    commands: [...extension.commands.values()].map((command) => command.name),
    tools: [...extension.tools.values()].map((tool) => ({
      name: tool.name,
      deferred: tool.deferred,
    })),
    events: [...extension.events],
    intercepts: [...extension.intercepts],
  };
}

/** The environment with how to run this zot again (for `zot sandbox exec`), when zot knows. */
function withSelfArgv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const self = selfArgv();
  return self ? { ...env, [SELF_ARGV_ENV]: JSON.stringify(self) } : env;
}
