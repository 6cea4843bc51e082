// `zot ext test <dir>` / `zot ext test --url URL`: the conformance kit for extension authors. Runs
// (or connects to) one extension without any model, drives it through the protocol and reports a
// line per check (or JSON for CI).
import { existsSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { loadSandbox } from '../../security/sandbox/load.js';
import { join, resolve } from 'node:path';
import { loadSettings } from '../../config/settings.js';
import { MANIFEST_FILE } from '../../ext-setup/manifest.js';
import { extensionTimeouts } from '../../extensions/timeouts.js';
import { resolveModel } from '../../providers/catalog.js';
import { UsageError } from '../../util/errors.js';
import { exitAfterFlush } from '../../util/exit.js';
import { signalExitCode } from '../../util/process-group.js';
import { zotVersion } from '../version.js';
import {
  discoverHere,
  extChildEnvironment,
  out,
  outJson,
  parseOptions,
  positionals,
  seeHelp,
  type ExtCommand,
  type ExtContext,
  type Parsed,
} from './common.js';
import {
  renderText,
  testExtension,
  testRemoteExtension,
  type ReportJson,
} from '../../conformance/index.js';
import { urlEntry } from '../../ext-setup/remote-entry.js';
import { prepareRemoteLink } from '../../ext-setup/remote-token.js';
import { displayUrl } from '../../ext-setup/remote-config.js';
import { connectionAgent } from '../../providers/transport.js';

const HELP = `Usage: zot ext test <dir> [--json]
       zot ext test --url URL [--ext-token-env NAME] [--insecure-ext-transport] [--json]

Runs the extension in <dir> the way zot would (its extension.json, "exec" and
"args", its own process group) but without any model, drives it through the
protocol and checks each step. With --url, connects to a remote extension
(ws://, wss://, http:// or https://) exactly as zot --ext-url does (its token,
TLS with NODE_EXTRA_CA_CERTS, the proxy settings, the loopback rule) and runs
the same checks over that connection:

  manifest           extension.json is valid and "exec" resolves
  connect            (--url) the connection is made: a refused connection, an
                     untrusted certificate or a refused token fails it, named
  scope              a scoped extension (one with "permissions"): a probe run
                     in the very sandbox it gets shows that a write outside
                     its writable paths, a read of a hidden path (~/.ssh, or a
                     canary in $ZOT_HOME) and, unless "net" is true, a direct
                     connection all fail; the extension then runs in that
                     sandbox. Unscoped ones: skipped, with a note
  hello              the first line is a well-formed hello (in time)
  register_command   each registration passes zot's own validation
  register_tool        (names, JSON Schema, patterns, $refs)
  subscribe          known event names, interceptable events only
  ready              ready is sent (late enough for auto-ready: a warning)
  command            each command, invoked once with empty arguments
  tool               each tool (deferred ones too), with arguments made up
                     from its schema
  tool_invalid_args  each tool with arguments its schema refuses: an error
                     result, not a crash or a timeout
  details            (version 2) a tool result's details: a diff or a table
  intercept          each interception it declared answers in time
  events             it keeps answering after its subscribed events
  unknown_frame      it keeps answering after a frame of an unknown type
  ui_request         (version 2) each call that asks the user is made again:
                     its questions answered with a value, then unavailable;
                     it must answer both times (and shrug off a stray answer)
  cancel             (version 2) a call cancelled right after it is sent: it
                     keeps answering and sends no more progress for it (and
                     shrugs off a cancel for an id it never used)
  tool_progress      (version 2) progress only for tool calls in flight,
                     well formed, within zot's rate limit
  unregister_tool    (version 2) only tools it registered
  frames             every line it wrote was a valid frame
  shutdown           shutdown_ack and an exit within the grace
  processes          nothing of it is left running afterwards

Every wait uses zot's timeouts (ZOT_EXT_HELLO_TIMEOUT_MS and the others); the
whole run has a deadline derived from them. The extension gets a temporary
empty directory as hello_ack "cwd" and another as "data_dir", removed at the
end, but its tools and commands really run: make them safe to call.

A remote extension has no extension.json and no process zot can see: it is
named by its hello, and the checks only a process can pass (manifest, scope,
processes) are skipped as "not applicable to a remote extension"; shutdown
checks that it sends shutdown_ack and closes the connection within the grace.

Options:
  --json   one JSON document on stdout (format "zot-ext-test/1"; see
           docs/extensions.md, "Testing your extension")
  --url URL                 test the remote extension at URL instead of a directory
  --ext-token-env NAME      the variable its token is in (default ZOT_EXT_TOKEN,
                            used when set; or config.json / auth.json entries
                            for the URL, as for zot --ext-url)
  --insecure-ext-transport  allow ws:// and http:// beyond this machine's loopback

Output: a line per check, pass, fail, warn or skip, with the offending frame
under failures and the extension's stderr after them.
Exit status: 0 when no check failed, 1 when one did, 2 for usage errors (no
such directory, no extension.json, nothing to run; a URL zot would refuse to
connect to, or a token variable that is not set).
`;

/** The directory, checked for what only the user can fix (exit 2). */
function extensionDir(given: string, cwd: string): string {
  const dir = resolve(cwd, given);
  let isDir: boolean;
  try {
    isDir = statSync(dir).isDirectory();
  } catch {
    throw new UsageError(`ext test: ${given}: no such directory`);
  }
  if (!isDir) throw new UsageError(`ext test: ${given}: not a directory`);
  if (!existsSync(join(dir, MANIFEST_FILE)))
    throw new UsageError(
      `ext test: ${given}: no ${MANIFEST_FILE} in ${dir} (not an extension directory)`,
    );
  return dir;
}

function hostModel(context: ExtContext): { provider: string; model: string } {
  try {
    const { settings } = loadSettings(context.paths.config);
    const provider = settings.provider ?? 'anthropic';
    return { provider, model: resolveModel(provider, settings.model, []).model.id };
  } catch {
    return { provider: 'anthropic', model: 'unknown' };
  }
}

/** What `--url` connects to, prepared as the host prepares an --ext-url (exit 2 for a refusal). */
function remoteTarget(url: string, parsed: Parsed, context: ExtContext) {
  const entry = urlEntry(url, parsed.values.get('--ext-token-env'));
  if (entry.status === 'error' || !entry.manifest?.remote)
    throw new UsageError(`ext test: ${entry.error ?? 'not a remote extension URL'}`);
  const manifest = entry.manifest;
  const link = prepareRemoteLink(manifest.name, manifest.remote!, {
    insecure: parsed.flags.has('--insecure-ext-transport'),
    env: context.env,
    authPath: context.paths.auth,
    configPath: context.paths.config,
  });
  if ('problem' in link) throw new UsageError(`ext test: ${displayUrl(url)}: ${link.problem}`);
  return { manifest, link };
}

/** Runs `run` with zot's signals and exit killing what it started (`kill`, once set). */
async function withKillOnExit<T>(run: (onKillNow: (fn: () => void) => void) => Promise<T>) {
  let kill: (() => void) | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    kill?.();
    void exitAfterFlush(signalExitCode(signal), 2_000);
  };
  const onExit = () => kill?.();
  const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  for (const signal of signals) process.on(signal, onSignal);
  process.on('exit', onExit);
  try {
    return await run((fn) => (kill = fn));
  } finally {
    for (const signal of signals) process.off(signal, onSignal);
    process.off('exit', onExit);
  }
}

function testRemote(url: string, parsed: Parsed, context: ExtContext): Promise<ReportJson> {
  const { manifest, link } = remoteTarget(url, parsed, context);
  return withKillOnExit((onKillNow) =>
    testRemoteExtension({
      manifest,
      link,
      agent: (target) => connectionAgent(target, context.env),
      timeouts: extensionTimeouts(context.env),
      zotVersion: zotVersion(),
      ...hostModel(context),
      onKillNow,
    }),
  );
}

async function test(dir: string, context: ExtContext): Promise<ReportJson> {
  const home = context.env.HOME || homedir();
  const sandbox = loadSandbox({ configPath: context.paths.config, project: context.cwd, home });
  return withKillOnExit((onKillNow) =>
    testExtension(dir, {
      home,
      zotHome: context.paths.home,
      denyRead: sandbox.settings.denyRead,
      env: context.env,
      scrubEnv: extChildEnvironment(context, undefined, discoverHere(context)).scrub,
      timeouts: extensionTimeouts(context.env),
      zotVersion: zotVersion(),
      ...hostModel(context),
      onKillNow,
    }),
  );
}

export const testCommand: ExtCommand = {
  name: 'test',
  help: HELP,
  async run(args, context) {
    const parsed = parseOptions('test', args, [
      { names: ['--json'], kind: 'bool' },
      { names: ['--url'], kind: 'value' },
      { names: ['--ext-token-env'], kind: 'value' },
      { names: ['--insecure-ext-transport'], kind: 'bool' },
    ]);
    const url = parsed.values.get('--url');
    if (url === undefined) {
      for (const only of ['--ext-token-env', '--insecure-ext-transport'])
        if (parsed.values.has(only) || parsed.flags.has(only))
          throw new UsageError(`ext test: ${only} goes with --url ${seeHelp('test')}`);
    }
    let report: ReportJson;
    if (url !== undefined) {
      positionals('test', parsed, []);
      report = await testRemote(url, parsed, context);
    } else {
      const [given] = positionals('test', parsed, ['dir']);
      report = await test(extensionDir(given!, context.cwd), context);
    }
    if (parsed.flags.has('--json')) outJson(context, report);
    else for (const line of renderText(report)) out(context, line);
    return report.ok ? 0 : 1;
  },
};
