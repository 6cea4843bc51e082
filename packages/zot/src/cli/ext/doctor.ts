// `zot ext doctor`: the normal start-up (discovery, trust gate, spawn, handshake, timeouts),
// reported per extension instead of failing soft, then a clean shutdown.
import { loadSettings } from '../../config/settings.js';
import { buildCatalog, type Builtins } from '../../extensions/catalog.js';
import { ExtensionHost, type ExtensionReport } from '../../extensions/host.js';
import type { RemoteOptions } from '../../extensions/lifecycle.js';
import { storedReplacement, trustGate } from '../../ext-setup/trust.js';
import { ExtensionScopes } from '../../extensions/scopes.js';
import { loadSandbox } from '../../security/sandbox/load.js';
import { describePermissions } from '../../security/scope/permissions.js';
import { homedir } from 'node:os';
import { resolveModel } from '../../providers/catalog.js';
import { connectionAgent } from '../../providers/transport.js';
import { BUILTIN_COMMANDS } from '../../session/commands.js';
import { RESERVED_TOOL_NAMES } from '../../tools/index.js';
import { exitAfterFlush } from '../../util/exit.js';
import { signalExitCode } from '../../util/process-group.js';
import { terminalSafe } from '../../util/terminal-text.js';
import { zotVersion } from '../version.js';
import {
  extChildEnvironment,
  out,
  outJson,
  parseOptions,
  positionals,
  type ExtCommand,
  type ExtContext,
} from './common.js';

/** An interrupted doctor still flushes what it printed, but not for longer than this. */
const DOCTOR_FLUSH_LIMIT_MS = 2_000;

/** A name an extension registered that another owner keeps: a built-in or an earlier extension. */
export type Shadowed =
  | { kind: 'command' | 'tool'; name: string; by_builtin: true }
  | { kind: 'command' | 'tool'; name: string; by_extension: string };

/** A report whose commands and tools are those the extension owns; the rest are `shadowed`. */
export interface Diagnosis extends ExtensionReport {
  shadowed: Shadowed[];
}

/** buildCatalog's record of noted conflicts, saying each is noted: the host noted them at start. */
class AllNoted extends Set<string> {
  override has(): boolean {
    return true;
  }
}

/**
 * Splits each report's registrations into owned and shadowed by the catalog's own rules (the
 * extensions the host would offer, in load order); extensions that never became live own nothing
 * and lose nothing.
 */
function withOwners(host: ExtensionHost, builtins: Builtins, reports: ExtensionReport[]) {
  const live = host.running.filter(
    (e) => e.state === 'ready' || e.state === 'exited' || e.state === 'handshaking',
  );
  const catalog = buildCatalog(live, builtins, new AllNoted());
  return reports.map((report): Diagnosis => {
    const extension = live.find((e) => e.dir === report.dir);
    if (!extension) return { ...report, shadowed: [] };
    const shadowed: Shadowed[] = [];
    // Keeps a registration the extension owns; records who keeps one it lost.
    const owns = (kind: 'command' | 'tool', name: string, key: string) => {
      const owner = (kind === 'command' ? catalog.commands : catalog.tools).get(key)?.extension;
      if (owner === extension) return true;
      if ((kind === 'command' ? builtins.commands : builtins.tools).has(key))
        shadowed.push({ kind, name, by_builtin: true });
      else if (owner) shadowed.push({ kind, name, by_extension: owner.name });
      return false;
    };
    const commands = new Set(
      [...extension.commands]
        .filter(([key, c]) => owns('command', c.name, key))
        .map(([, c]) => c.name),
    );
    const tools = new Set([...extension.tools.keys()].filter((name) => owns('tool', name, name)));
    return {
      ...report,
      commands: report.commands.filter((name) => commands.has(name)),
      tools: report.tools.filter((tool) => tools.has(tool.name)),
      shadowed,
    };
  });
}

/** Starts every extension as `zot` would, collects the reports, shuts everything down. */
export async function diagnose(
  context: ExtContext,
  extPaths: string[],
  remote?: RemoteOptions,
): Promise<Diagnosis[]> {
  const { settings } = loadSettings(context.paths.config);
  const provider = settings.provider ?? 'anthropic';
  const model = resolveModel(provider, settings.model, []).model.id;
  const builtins = { commands: new Set(BUILTIN_COMMANDS), tools: new Set(RESERVED_TOOL_NAMES) };
  // The extensions' environment, as `zot` gives it: without zot's secrets but env_passthrough.
  // Token variables the manifests name are learnt by the host before it starts anything.
  const children = extChildEnvironment(context, remote?.tokenEnv);
  const home = context.env.HOME || homedir();
  // The run's sandbox settings decide as they would for `zot` here: scoped extensions in their
  // sandboxes, unscoped ones refused or warned about under "required".
  const sandbox = loadSandbox({ configPath: context.paths.config, project: context.cwd, home });
  const host = new ExtensionHost({
    cwd: context.cwd,
    zotHome: context.paths.home,
    logsDir: context.paths.logs,
    extPaths,
    noExt: false,
    version: zotVersion(),
    model: () => ({ provider, model }),
    builtins,
    env: context.env,
    processPolicy: () => ({ scrubEnv: children.scrub }),
    allow: trustGate(context.paths, context.env),
    replaces: storedReplacement(context.paths),
    ...(remote
      ? {
          remote: {
            ...remote,
            env: context.env,
            agent: (url) => connectionAgent(url, context.env),
            tokenNames: (names) => children.addTokenNames(names),
          },
        }
      : {}),
    scopes: new ExtensionScopes({
      settings: () => sandbox.settings,
      project: context.cwd,
      home,
      zotHome: context.paths.home,
      env: context.env,
    }),
  });
  // Interrupted mid-start: kill every extension process group before exiting.
  const onSignal = (signal: NodeJS.Signals) => {
    host.killAllNow();
    void exitAfterFlush(signalExitCode(signal), DOCTOR_FLUSH_LIMIT_MS);
  };
  const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  for (const signal of signals) process.on(signal, onSignal);
  try {
    // The reports include registration conflicts: the host decides them before reporting.
    return withOwners(host, builtins, await host.start());
  } finally {
    await host.shutdown();
    for (const signal of signals) process.off(signal, onSignal);
  }
}

/** The --ext extensions and the ones they shadow: what `doctor --ext DIR` was asked about. */
function aboutFlagged(reports: Diagnosis[]): Diagnosis[] {
  const flagged = new Set(reports.filter((r) => r.scope === 'flag').map((r) => r.dir));
  return reports.filter(
    (r) => r.scope === 'flag' || (r.shadowedBy !== undefined && flagged.has(r.shadowedBy)),
  );
}

const STATUS_TEXT: Record<ExtensionReport['status'], string> = {
  ready: 'ready',
  'auto-ready': 'auto-ready (registered, then sent no "ready"; readied after a quiet period)',
  failed: 'FAILED',
  disabled: 'disabled ("enabled": false in extension.json)',
  shadowed: 'shadowed',
  'theme-only': 'theme-only (not spawned)',
  'skill-only': 'skill-only (not spawned)',
  'manifest-error': 'MANIFEST ERROR',
  untrusted: 'NOT TRUSTED (not spawned)',
};

function render(reports: Diagnosis[]): string[] {
  const lines: string[] = [];
  // Every value may come from a manifest or from the extension itself: one line, escaped.
  const field = (label: string, value: string) =>
    lines.push(`  ${`${label}:`.padEnd(12)}${terminalSafe(value)}`);
  for (const report of reports) {
    const status =
      report.status === 'shadowed' && report.shadowedBy
        ? `shadowed by ${report.shadowedBy} (not spawned)`
        : STATUS_TEXT[report.status];
    const scope = report.scope === 'flag' ? '--ext' : report.scope;
    lines.push(terminalSafe(`${report.name} [${scope}] ${status}`));
    if (report.remote) {
      field('url', `${report.remote.url} (${report.remote.transport})`);
      field('connection', report.remote.connection);
    } else field('directory', report.dir);
    if (report.error) field('error', report.error);
    if (report.commands.length > 0)
      field('commands', report.commands.map((name) => `/${name}`).join(', '));
    if (report.tools.length > 0) {
      const tools = report.tools.map((tool) =>
        tool.deferred ? `${tool.name} (deferred)` : tool.name,
      );
      field('tools', tools.join(', '));
    }
    if (report.shadowed.length > 0) {
      const lost = report.shadowed.map(
        (item) =>
          `${item.kind === 'command' ? `/${item.name}` : `tool ${item.name}`} by ` +
          ('by_builtin' in item ? 'the built-in' : `extension ${item.by_extension}`),
      );
      field('shadowed', lost.join(', '));
    }
    if (report.events.length > 0) field('events', report.events.join(', '));
    if (report.intercepts.length > 0) field('intercepts', report.intercepts.join(', '));
    if (report.scoped !== undefined) {
      const [first, ...rest] = report.scoped
        ? ['scoped: runs in its sandbox with', ...describePermissions(report.permissions)]
        : describePermissions(undefined);
      field('sandbox', first!);
      for (const line of rest) lines.push(`  ${' '.repeat(12)}  ${terminalSafe(line)}`);
      if (report.dataDir) field('data dir', report.dataDir);
    }
    if (report.restart) field('restart', report.restart);
    if (report.interceptFailure)
      field(
        'on failure',
        report.interceptFailure === 'block'
          ? 'block (a failed interceptor blocks: fail-closed)'
          : 'allow (a failed interceptor lets the action through)',
      );
    for (const warning of report.warnings) field('warning', warning);
    if (report.logPath) field('log', report.logPath);
    lines.push('');
  }
  const counts = new Map<string, number>();
  for (const report of reports) counts.set(report.status, (counts.get(report.status) ?? 0) + 1);
  const summary = [...counts].map(([status, count]) => `${count} ${status}`).join(', ');
  lines.push(`${reports.length} extension(s): ${summary}`);
  return lines;
}

/** The report as `--json` prints it (JSON leaves out the fields that are undefined). */
function toJson(report: Diagnosis) {
  return {
    name: report.name,
    scope: report.scope,
    status: report.status,
    dir: report.dir,
    error: report.error,
    shadowed_by: report.shadowedBy,
    commands: report.commands,
    tools: report.tools,
    shadowed: report.shadowed,
    events: report.events,
    intercepts: report.intercepts,
    scoped: report.scoped,
    permissions: report.permissions,
    data_dir: report.dataDir,
    remote: report.remote,
    restart: report.restart,
    intercept_failure: report.interceptFailure,
    warnings: report.warnings,
    log_path: report.logPath,
  };
}

export const doctorCommand: ExtCommand = {
  name: 'doctor',
  help: `Usage: zot ext doctor [--json] [--ext DIR ...] [--ext-url URL ...]

Runs the same discovery, trust check, spawn and handshake as a normal start (with
the same timeouts, e.g. ZOT_EXT_HELLO_TIMEOUT_MS), then shuts everything down and
reports per extension: manifest errors, disabled or shadowed (by whom), load
errors with exit status or signal, untrusted project extensions, ready or
auto-ready, the commands and tools it owns (deferred marked), the ones a
built-in or an earlier extension keeps (shadowed, by whom), subscriptions,
the restart policy and what a failed interceptor means ("intercept_failure":
allow or block), protocol warnings and the stderr log path.

With --ext, the report is about those directories: every other extension still
starts as in a session (so name conflicts come out as they would), but only the
named ones are reported, with any extension they shadow, and only they decide
the exit status.

Options:
  -e, --ext DIR   load this extension directory (repeatable), as zot --ext does,
                  and report on it
  --ext-url URL   connect to this remote extension (repeatable) and report on it:
                  whether it is reachable, its TLS certificate trusted, its token
                  accepted, and what it registered
  --ext-token-env NAME      the variable its token is in (default ZOT_EXT_TOKEN)
  --insecure-ext-transport  allow ws:// beyond this machine's loopback
  --json          one JSON object on stdout: {"ok": bool, "extensions": [...]}

Exit status: 0 when no reported extension has an error, 1 otherwise.
`,
  async run(args, context) {
    const parsed = parseOptions('doctor', args, [
      { names: ['--json'], kind: 'bool' },
      { names: ['-e', '--ext'], kind: 'list' },
      { names: ['--ext-url'], kind: 'list' },
      { names: ['--ext-token-env'], kind: 'value' },
      { names: ['--insecure-ext-transport'], kind: 'bool' },
    ]);
    positionals('doctor', parsed, []);
    const extPaths = parsed.lists.get('--ext') ?? [];
    const urls = parsed.lists.get('--ext-url') ?? [];
    const remote: RemoteOptions = {
      urls,
      tokenEnv: parsed.values.get('--ext-token-env'),
      insecure: parsed.flags.has('--insecure-ext-transport'),
      authPath: context.paths.auth,
      configPath: context.paths.config,
    };
    const everything = await diagnose(context, extPaths, remote);
    const flagged = extPaths.length + urls.length > 0;
    const reports = flagged ? aboutFlagged(everything) : everything;
    const others = everything.length - reports.length;
    const ok = reports.every((report) => report.error === undefined);
    if (parsed.flags.has('--json')) {
      outJson(context, { ok, extensions: reports.map(toJson) });
    } else if (reports.length === 0) {
      out(context, 'no extensions found (nothing in ./.zot/extensions or $ZOT_HOME/extensions)');
    } else {
      for (const line of render(reports)) out(context, line);
      if (others > 0) {
        out(
          context,
          `(${others} more started as in a session; zot ext doctor without --ext reports them)`,
        );
      }
    }
    return ok ? 0 : 1;
  },
};
