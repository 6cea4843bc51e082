// One run of the conformance kit: the manifest resolved as the host resolves it, the extension
// started without any model and driven through the protocol, checked at every step.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveExec } from '../ext-setup/exec-resolve.js';
import type { Manifest } from '../ext-setup/manifest.js';
import { withShippedSdk } from '../ext-setup/shipped-sdk.js';
import type { ExtensionTimeouts } from '../extensions/timeouts.js';
import { ProcessTransport } from '../extensions/process-transport.js';
import { ExtensionChild, type Spec } from './child.js';
import { commands, tools } from './exercise.js';
import { events, intercepts, unknownFrame, type Probe } from './probe.js';
import { frames, processes, shutdown } from './finish.js';
import { hello, ready } from './handshake.js';
import { checkRegistrations, emptyRegistry, type Kit } from './kit.js';
import { loadSchemaCheck } from '../extensions/registrations.js';
import { Checks, type ReportJson } from './report.js';
import { scopeChecks } from './scope.js';
import { cancels, MAX_ASKING, questions, strayIds } from './v2-phases.js';
import type { ScopeStarter } from '../extensions/scopes.js';

export interface RunOptions {
  manifest: Manifest;
  /** The user's home and ZOT_HOME: what a scoped extension's sandbox hides. */
  home: string;
  zotHome: string;
  /** sandbox.deny_read of the user's settings. */
  denyRead?: readonly string[];
  /** Problems of the manifest that do not stop the run (a missing skill directory). */
  manifestWarnings: string[];
  env: NodeJS.ProcessEnv;
  /** The run's environment filter (security/child-env.ts), as `zot` applies it. */
  scrubEnv?(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv;
  timeouts: ExtensionTimeouts;
  zotVersion: string;
  provider: string;
  model: string;
  /** Called with a function that kills the extension's group at once (signals, exit). */
  onKillNow?(kill: () => void): void;
}

/** Slack on top of the sum of the timeouts, for process start-up and the kit's own work. */
const MARGIN_MS = 10_000;

/**
 * The longest a run may take: every wait the kit can make, each at its own timeout. A flood or
 * a stalled extension cannot make the kit outlive it.
 */
export function overallDeadlineMs(
  t: ExtensionTimeouts,
  commandCount: number,
  toolCount: number,
  interceptCount: number,
  v2 = false,
): number {
  const probes = 2 * Math.max(t.commandMs, t.toolMs, t.interceptMs);
  // Questions asked again (twice each), a cancelled call, its probe and two stray ids' probes.
  const v2Phases = v2 ? (2 * MAX_ASKING + 4) * Math.max(t.commandMs, t.toolMs) + 500 : 0;
  return (
    t.helloMs +
    t.readyMs +
    commandCount * t.commandMs +
    toolCount * 2 * t.toolMs +
    interceptCount * t.interceptMs +
    probes +
    v2Phases +
    t.shutdownGraceMs +
    3 * t.killGraceMs +
    MARGIN_MS
  );
}

/** What every run shares, whatever the extension is reached through. */
export interface DriveOptions {
  timeouts: ExtensionTimeouts;
  zotVersion: string;
  provider: string;
  model: string;
  onKillNow?(kill: () => void): void;
}

/** The report of a run so far, with what the extension wrote on stderr once it was started. */
export function reportOf(
  checks: Checks,
  timeouts: ExtensionTimeouts,
  began: number,
  extension: ReportJson['extension'],
  child?: ExtensionChild,
): ReportJson {
  return {
    format: 'zot-ext-test/1',
    ok: !checks.failed,
    extension,
    counts: checks.counts(),
    checks: checks.list,
    stderr: child?.stderr ?? '',
    stderr_truncated: child?.stderrTruncated ?? false,
    timeouts_ms: {
      hello: timeouts.helloMs,
      ready: timeouts.readyMs,
      auto_ready: timeouts.autoReadyMs,
      command: timeouts.commandMs,
      tool: timeouts.toolMs,
      intercept: timeouts.interceptMs,
      shutdown_grace: timeouts.shutdownGraceMs,
      kill_grace: timeouts.killGraceMs,
    },
    duration_ms: Date.now() - began,
  };
}

export async function runKit(options: RunOptions): Promise<ReportJson> {
  const began = Date.now();
  await loadSchemaCheck(); // checkRegistrations checks tool schemas
  const { manifest, timeouts } = options;
  const checks = new Checks();
  const report = (child?: ExtensionChild): ReportJson =>
    reportOf(
      checks,
      timeouts,
      began,
      {
        name: manifest.name,
        version: manifest.version ?? null,
        dir: manifest.dir,
        manifest: manifest.manifestPath,
      },
      child,
    );

  const exec = resolveExec(manifest, options.env);
  if (!exec.ok) {
    checks.add({ check: 'manifest', status: 'fail', message: exec.error });
    return report();
  }
  const sdk = withShippedSdk(
    manifest,
    { ...options.env, PYTHONDONTWRITEBYTECODE: '1' },
    { scoped: manifest.permissions !== undefined },
  );
  if (!sdk.ok) {
    checks.add({ check: 'manifest', status: 'fail', message: sdk.error });
    return report();
  }
  const runs = [exec.command, ...exec.args].join(' ');
  if (!manifest.enabled)
    checks.add({
      check: 'manifest',
      status: 'warn',
      message: `"enabled" is false: zot would not start it (tested anyway); runs ${runs}`,
    });
  else if (options.manifestWarnings.length > 0)
    checks.add({ check: 'manifest', status: 'warn', message: options.manifestWarnings.join('; ') });
  else
    checks.add({
      check: 'manifest',
      status: 'pass',
      message: `${manifest.name}${manifest.version ? ` ${manifest.version}` : ''}: runs ${runs}`,
    });

  // The extension's state and the "project" it is told about are fresh directories, so that
  // calling its tools with made-up arguments cannot touch real data.
  const scratch = mkdtempSync(join(tmpdir(), 'zot-ext-test-'));
  const project = join(scratch, 'project');
  const dataDir = join(scratch, 'data');
  mkdirSync(project);
  // A scoped extension: first the sandbox is shown to deny what it should, then the extension
  // runs in it for every other check.
  let scope: ScopeStarter | undefined;
  if (manifest.permissions) {
    scope = await scopeChecks(
      checks,
      {
        name: manifest.name,
        permissions: manifest.permissions,
        extDir: manifest.dir,
        dataDir,
        project,
        home: options.home,
        zotHome: options.zotHome,
        command: exec.command,
        path: options.env.PATH,
        denyRead: options.denyRead ?? [],
        env: options.env,
        platform: process.platform,
        provided: sdk.provided,
      },
      // The probe is a Node start inside bwrap: as long as an extension's hello may take.
      Math.max(2 * timeouts.helloMs, 15_000),
    );
    if (!scope) {
      rmSync(scratch, { recursive: true, force: true });
      return report();
    }
  } else
    checks.skip(
      { check: 'scope' },
      'no "permissions" block: zot runs it unscoped, with your full rights; declare what it ' +
        'needs to run it in a sandbox (docs/extensions.md, "Permissions")',
    );
  const open: Spec['open'] = (log) =>
    new ProcessTransport(
      {
        command: exec.command,
        args: exec.args,
        cwd: manifest.dir,
        env: sdk.env,
        killGraceMs: timeouts.killGraceMs,
        policy: options.scrubEnv ? { scrubEnv: options.scrubEnv } : {},
        ...(scope ? { scope } : {}),
      },
      log,
    );
  return drive(options, { checks, manifest, scratch, project, dataDir, began, open }, report);
}

/**
 * Starts the extension through `open` and drives it through every phase, each check into
 * `run.checks`; removes `run.scratch` at the end. `remote` marks an extension reached over the
 * network: its identity comes from its hello and process checks do not apply.
 */
export async function drive(
  options: DriveOptions,
  run: {
    checks: Checks;
    manifest: Manifest;
    scratch: string;
    project: string;
    dataDir: string;
    began: number;
    open: Spec['open'];
    remote?: Kit['remote'];
  },
  report: (child: ExtensionChild, kit: Kit) => ReportJson,
): Promise<ReportJson> {
  const { checks, manifest, scratch, project, dataDir, began } = run;
  const { timeouts } = options;
  const abort = new AbortController();
  const child = new ExtensionChild(
    { open: run.open, logPath: join(scratch, 'stderr.log'), killGraceMs: timeouts.killGraceMs },
    abort.signal,
  );
  const kit: Kit = {
    child,
    checks,
    timeouts,
    manifest,
    host: {
      zot_version: options.zotVersion,
      provider: options.provider,
      model: options.model,
      cwd: project,
      data_dir: dataDir,
    },
    registry: emptyRegistry(),
    checkedRegistrations: 0,
    protocolVersion: 1,
    ...(run.remote ? { remote: run.remote } : {}),
  };
  mkdirSync(kit.host.data_dir, { recursive: true });
  let deadlineMs = overallDeadlineMs(timeouts, 0, 0, 0);
  let step = 'hello';
  let timer = setTimeout(() => abort.abort(), deadlineMs);
  options.onKillNow?.(() => child.killNow());
  let loaded = false;
  try {
    child.start();
    if (await hello(kit)) {
      step = 'ready';
      const state = await ready(kit);
      if (state !== 'stop') {
        loaded = true;
        const { registry } = kit;
        clearTimeout(timer);
        deadlineMs =
          Date.now() -
          began +
          overallDeadlineMs(
            timeouts,
            registry.commands.size,
            registry.tools.size,
            registry.intercepts.size,
            kit.v2 !== undefined,
          );
        timer = setTimeout(() => abort.abort(), deadlineMs - (Date.now() - began));
        const probes: Probe[] = [];
        for (const [name, phase] of [
          ['commands', commands],
          ['tools', tools],
          ['intercepts', intercepts],
          ['events', events],
          ['unknown_frame', unknownFrame],
        ] as const) {
          step = name;
          if (abort.signal.aborted) break;
          await phase(kit, probes);
        }
        const v2 = kit.v2;
        if (v2)
          for (const [name, phase] of [
            ['ui_request', () => questions(kit, v2)],
            ['cancel', () => cancels(kit, v2, probes)],
            ['unknown ids', () => strayIds(kit, probes)],
          ] as const) {
            step = name;
            if (abort.signal.aborted) break;
            await phase();
          }
        checkRegistrations(kit, true);
      }
    }
    if (abort.signal.aborted) {
      checks.add({
        check: 'deadline',
        status: 'fail',
        message: `the kit's overall deadline (${deadlineMs} ms, the sum of zot's timeouts) ran out during ${step}`,
      });
    }
    kit.v2?.report(checks);
    if (child.first?.frame?.type === 'hello') frames(kit);
    // A failed load is not shut down but stopped, as zot does: its group is terminated.
    const before = loaded ? await shutdown(kit) : [];
    if (!loaded) await child.terminate();
    await processes(kit, before);
  } finally {
    clearTimeout(timer);
    child.release();
    rmSync(scratch, { recursive: true, force: true });
  }
  return report(child, kit);
}
