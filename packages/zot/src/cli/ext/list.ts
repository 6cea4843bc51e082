// `zot ext list [--json] [--no-probe]`: installed extensions (project and global), their state,
// and whether each remote one answers (probe.ts).
import { basename } from 'node:path';
import type { DiscoveredExtension } from '../../ext-setup/discovery.js';
import { TrustStore, trustStateOf } from '../../ext-setup/trust.js';
import { terminalSafe } from '../../util/terminal-text.js';
import { displayUrl } from '../../ext-setup/remote-config.js';
import { resolveRemoteToken } from '../../ext-setup/remote-token.js';
import { extensionTimeouts } from '../../extensions/timeouts.js';
import type { Connection } from './probe.js';
import type { ExtensionPermissions } from '../../security/scope/permissions.js';
import {
  discoverHere,
  info,
  out,
  outJson,
  parseOptions,
  positionals,
  table,
  type ExtCommand,
  type ExtContext,
} from './common.js';

export interface ListedExtension {
  name: string;
  version?: string;
  enabled: boolean;
  /** enabled, disabled, shadowed, theme-only, skill-only or error. */
  state: string;
  scope: 'project' | 'global';
  description?: string;
  dir: string;
  /** Project extensions only: trusted, untrusted, changed or error. */
  trust?: string;
  shadowed_by?: string;
  /** A project extension trusted to replace the global one of its name: that one's directory. */
  replaces?: string;
  error?: string;
  /** Manifest warnings, and a project extension's name clash with a global one. */
  warnings?: string[];
  /** From the manifest: what a failed interceptor means, `allow` or `block` (design D24). */
  intercept_failure?: string;
  /** From the manifest: `on-failure` or `never` (design D25). */
  restart?: string;
  /** Process extensions: true when it declares permissions (sandboxed), false when unscoped. */
  scoped?: boolean;
  /** Its permissions, as declared. */
  permissions?: ExtensionPermissions;
  /**
   * A remote extension: its transport, URL (credentials elided) and where its token comes from
   * ("ZOT_EXT_TOKEN", "auth.json", "none", or why it is refused; never the token).
   */
  remote?: {
    transport: string;
    url: string;
    token: string;
    /** What a short handshake found (probe.ts): connected, token refused, TLS error... */
    connection?: Connection['state'];
    /** Why, for every state but connected. */
    reason?: string;
  };
}

export function listExtensions(
  context: ExtContext,
  entries: DiscoveredExtension[] = discoverHere(context),
): ListedExtension[] {
  const store = new TrustStore(context.paths.trust);
  return entries.map((entry) => describe(entry, store, context));
}

/**
 * Probes every remote extension zot would connect to, all at once, and records what each probe
 * found in `listed` (same order as `entries`). Disabled and untrusted ones are not connected to.
 */
async function probeAll(
  entries: DiscoveredExtension[],
  listed: ListedExtension[],
  context: ExtContext,
  probe: { skip: boolean; insecure: boolean },
): Promise<void> {
  if (!listed.some((item) => item.remote)) return;
  // Loaded only when there is a remote extension: a plain list opens no connection code.
  const { probeRemote } = await import('./probe.js');
  const { connectionAgent } = await import('../../providers/transport.js');
  const options = {
    env: context.env,
    authPath: context.paths.auth,
    configPath: context.paths.config,
    insecure: probe.insecure,
    agent: (url: URL) => connectionAgent(url, context.env),
    timeouts: extensionTimeouts(context.env),
  };
  await Promise.all(
    entries.map(async (entry, index) => {
      const remote = listed[index]!.remote;
      const config = entry.manifest?.remote;
      if (!remote || !config) return;
      const skipped = probe.skip
        ? '--no-probe'
        : entry.status !== 'load'
          ? `${entry.status}: zot would not connect to it`
          : entry.scope === 'project' && listed[index]!.trust !== 'trusted'
            ? 'a project extension not trusted: zot would not connect to it'
            : undefined;
      const found: Connection = skipped
        ? { state: 'not probed', reason: skipped }
        : await probeRemote(
            { name: entry.manifest!.name, config, byName: entry.scope !== 'project' },
            options,
          );
      remote.connection = found.state;
      if (found.reason !== undefined) remote.reason = found.reason;
    }),
  );
}

function describe(
  entry: DiscoveredExtension,
  store: TrustStore,
  context: ExtContext,
): ListedExtension {
  const manifest = entry.manifest;
  const listed: ListedExtension = {
    name: manifest?.name ?? basename(entry.dir),
    enabled: manifest?.enabled ?? false,
    state: entry.status === 'load' ? 'enabled' : entry.status,
    scope: entry.scope === 'project' ? 'project' : 'global',
    dir: entry.dir,
  };
  if (manifest?.version !== undefined) listed.version = manifest.version;
  if (manifest?.description !== undefined) listed.description = manifest.description;
  if (entry.shadowedBy) listed.shadowed_by = entry.shadowedBy.dir;
  if (entry.replaces) listed.replaces = entry.replaces.dir;
  if (entry.error !== undefined) listed.error = entry.error;
  if (entry.warnings.length > 0) listed.warnings = [...entry.warnings];
  if (manifest?.kind === 'process') {
    listed.intercept_failure = manifest.interceptFailure;
    listed.restart = manifest.restart;
    listed.scoped = manifest.permissions !== undefined;
    if (manifest.permissions) listed.permissions = manifest.permissions;
  }
  if (manifest?.remote) {
    const token = resolveRemoteToken(manifest.name, manifest.remote, {
      env: context.env,
      authPath: context.paths.auth,
      configPath: context.paths.config,
      byName: entry.scope !== 'project',
    });
    listed.remote = {
      transport: manifest.remote.type,
      url: displayUrl(manifest.remote.url),
      token: token.problem !== undefined ? `refused: ${token.problem}` : (token.from ?? 'none'),
    };
    listed.intercept_failure = manifest.interceptFailure;
    listed.restart = manifest.restart;
  }
  if (entry.scope === 'project' && manifest) {
    listed.trust = trustStateOf(entry, store).state;
  }
  return listed;
}

export const listCommand: ExtCommand = {
  name: 'list',
  help: `Usage: zot ext list [--json] [--no-probe] [--insecure-ext-transport]

Lists the extensions of this project (./.zot/extensions) and the global ones
($ZOT_HOME/extensions): name, version, state, scope, trust (project extensions),
permissions ("scoped": it declares a permissions block and runs in a sandbox
holding only that; "unscoped": it has none and runs with your full rights),
restart policy ("on-failure" or "never"), what a failed interceptor means
("allow" or "block": fail-closed), description and directory (a remote
extension's URL, credentials elided, and where its token comes from, never the
token itself); below the table, one line per manifest error, per remote
extension's connection and per warning (such as a project extension with the
name of a global one: the global one runs unless you trusted the project one to
replace it, see zot ext trust --replace).

Remote extensions are probed, all at once: a connection as zot makes it (token,
TLS, proxy, loopback rule) up to the extension's hello, then closed, each for
at most half the hello timeout (ZOT_EXT_HELLO_TIMEOUT_MS, 10 s by default, so
5 s). Each is shown as connected, token refused (HTTP 401/403), TLS error,
unreachable, refused (zot would not connect: say why) or not probed (disabled,
an untrusted project extension, --no-probe).

Options:
  --json                    one JSON array on stdout (remote ones: "connection"
                            and "reason" under "remote")
  --no-probe                do not connect to remote extensions
  --insecure-ext-transport  allow probing ws:// and http:// beyond loopback
`,
  async run(args, context) {
    const parsed = parseOptions('list', args, [
      { names: ['--json'], kind: 'bool' },
      { names: ['--no-probe'], kind: 'bool' },
      { names: ['--insecure-ext-transport'], kind: 'bool' },
    ]);
    positionals('list', parsed, []);
    const entries = discoverHere(context);
    const listed = listExtensions(context, entries);
    await probeAll(entries, listed, context, {
      skip: parsed.flags.has('--no-probe'),
      insecure: parsed.flags.has('--insecure-ext-transport'),
    });
    if (parsed.flags.has('--json')) {
      outJson(context, listed);
      return 0;
    }
    if (listed.length === 0) {
      out(context, 'no extensions installed');
      return 0;
    }
    const rows = [
      [
        'NAME',
        'VERSION',
        'STATE',
        'SCOPE',
        'TRUST',
        'PERMISSIONS',
        'RESTART',
        'INTERCEPT-FAILURE',
        'DESCRIPTION',
        'DIRECTORY',
      ],
    ];
    for (const item of listed) {
      // Name, version, description and directory come from manifests and file names.
      const row = [
        item.name,
        item.version ?? '-',
        item.state,
        item.scope,
        item.trust ?? '-',
        item.remote
          ? 'remote'
          : item.scoped === undefined
            ? '-'
            : item.scoped
              ? 'scoped'
              : 'unscoped',
        item.restart ?? '-',
        item.intercept_failure ?? '-',
        item.description ?? '-',
        item.remote ? `${item.remote.url} (token: ${item.remote.token})` : item.dir,
      ];
      rows.push(row.map((cell) => terminalSafe(cell)));
    }
    for (const line of table(rows)) out(context, line);
    // Errors are long (paths, parser messages): in the table they would stretch the description
    // column for every row, so each gets its own line below it.
    const failed = listed.filter((item) => item.error !== undefined);
    if (failed.length > 0) {
      out(context, '');
      out(context, 'Errors:');
      for (const item of failed) out(context, terminalSafe(`  ${item.name}: ${item.error}`));
    }
    // Reasons are long (the host's explanation of a failed connection): one line each below.
    const remotes = listed.filter((item) => item.remote?.connection !== undefined);
    if (remotes.length > 0) {
      out(context, '');
      out(context, 'Connections:');
      for (const item of remotes) {
        const { connection, reason } = item.remote!;
        out(context, terminalSafe(`  ${item.name}: ${connection}${reason ? ` (${reason})` : ''}`));
      }
    }
    const warned = listed.filter((item) => item.warnings !== undefined);
    if (warned.length > 0) {
      out(context, '');
      out(context, 'Warnings:');
      for (const item of warned)
        for (const warning of item.warnings!)
          out(context, terminalSafe(`  ${item.name}: ${warning}`));
    }
    const unscoped = listed.filter((item) => item.scoped === false && item.state === 'enabled');
    if (unscoped.length > 0) {
      info(
        context,
        `${unscoped.length} extension(s) unscoped: no "permissions" block, so they run with your ` +
          'full rights (files, network, programs); see zot ext doctor',
      );
    }
    const untrusted = listed.filter(
      (item) => item.trust === 'untrusted' || item.trust === 'changed',
    );
    if (untrusted.length > 0) {
      info(
        context,
        `${untrusted.length} project extension(s) will not run until trusted: review, then zot ext trust <name>`,
      );
    }
    return 0;
  },
};
