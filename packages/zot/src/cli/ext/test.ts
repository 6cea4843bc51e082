// `zot ext test <dir>`: the conformance kit for extension authors. Runs one extension without
// any model, drives it through the protocol and reports a line per check (or JSON for CI).
import { runChildEnvironment } from '../../security/child-env.js';
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
  out,
  outJson,
  parseOptions,
  positionals,
  type ExtCommand,
  type ExtContext,
} from './common.js';
import { renderText, testExtension, type ReportJson } from '../../conformance/index.js';

const HELP = `Usage: zot ext test <dir> [--json]

Runs the extension in <dir> the way zot would (its extension.json, "exec" and
"args", its own process group) but without any model, drives it through the
protocol and checks each step:

  manifest           extension.json is valid and "exec" resolves
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

Options:
  --json   one JSON document on stdout (format "zot-ext-test/1"; see
           docs/extensions.md, "Testing your extension")

Output: a line per check, pass, fail, warn or skip, with the offending frame
under failures and the extension's stderr after them.
Exit status: 0 when no check failed, 1 when one did, 2 for usage errors (no
such directory, no extension.json, nothing to run).
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

async function test(dir: string, context: ExtContext): Promise<ReportJson> {
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
    const home = context.env.HOME || homedir();
    const sandbox = loadSandbox({ configPath: context.paths.config, project: context.cwd, home });
    return await testExtension(dir, {
      home,
      zotHome: context.paths.home,
      denyRead: sandbox.settings.denyRead,
      env: context.env,
      scrubEnv: runChildEnvironment(context.paths).scrub,
      timeouts: extensionTimeouts(context.env),
      zotVersion: zotVersion(),
      ...hostModel(context),
      onKillNow: (fn) => (kill = fn),
    });
  } finally {
    for (const signal of signals) process.off(signal, onSignal);
    process.off('exit', onExit);
  }
}

export const testCommand: ExtCommand = {
  name: 'test',
  help: HELP,
  async run(args, context) {
    const parsed = parseOptions('test', args, [{ names: ['--json'], kind: 'bool' }]);
    const [given] = positionals('test', parsed, ['dir']);
    const dir = extensionDir(given!, context.cwd);
    const report = await test(dir, context);
    if (parsed.flags.has('--json')) outJson(context, report);
    else for (const line of renderText(report)) out(context, line);
    return report.ok ? 0 : 1;
  },
};
