// `zot sandbox exec`: one program inside a sandbox built from a permissions block, the same
// language and the same builder as a scoped extension's (bubblewrap on Linux, the generated
// profile on macOS). The MCP bridge starts every sandboxed server with it. stdin and stdout are
// the program's own (inherited, nothing in between); stderr passes through once the sandbox is
// up; the exit status is the program's. It never runs the program without the sandbox.
import { basename, isAbsolute, join, resolve } from 'node:path';
import { homedir } from 'node:os';
import { zotPaths } from '../config/paths.js';
import { prepareScope } from '../extensions/scopes.js';
import { launchProcess } from '../security/launcher.js';
import { findOnPath } from '../security/sandbox/probe.js';
import { loadSandbox } from '../security/sandbox/load.js';
import { PermissionError, parsePermissions } from '../security/scope/permissions.js';
import { nodeCrypto } from '../util/builtins.js';
import { UsageError } from '../util/errors.js';
import { signalExitCode } from '../util/process-group.js';
import { terminalSafeBlock } from '../util/terminal-text.js';
import { scanArgs } from './options.js';

// For main.ts, which imports only cli.
export { exitAfterFlush } from '../util/exit.js';

export const SANDBOX_HELP = `Usage: zot sandbox exec [--permissions <json>] [--name <name>] [--project <dir>] -- <program> [args...]

Runs <program> inside a sandbox that holds only what the permissions grant, in the language of an
extension's "permissions" block (docs/security.md): {"fs": {"read": [...], "write": [...]},
"net": false | true | ["host", "host:port"], "exec": [...], "env": [...]}; paths may start with
\${project}, \${data} or ~/. Besides what they grant, the sandbox holds the system's programs
and libraries, the program's own installation (its interpreter), a private /tmp and a writable
data directory ($ZOT_HOME/sandbox-data/<name>-<tag>), and the project (its working directory)
read-only. Without --permissions: that alone, no network.

stdin and stdout are the program's own; its exit status is returned. When the sandbox cannot
start here, the program does not run: the reason and its fix go to stderr (as zot doctor
sandbox gives them) and the exit status is 125.

Options:
  --permissions <json>   what the program may read, write, reach, run and see
  --name <name>          names it in messages and its data directory (letters, digits, . _ -;
                         default: the program's name)
  --project <dir>        what \${project} means, and the working directory (default: here)

Exit codes: the program's; 125 the sandbox could not start; 2 usage error.
`;

/** What the sandbox's own failure exits with (as `env`, `timeout` and container runners do). */
export const SANDBOX_FAILED = 125;

const DEFAULT_PERMISSIONS = {};
const NAME = /^[A-Za-z0-9._-]{1,64}$/;
/** Most of what the sandbox says before the program starts (bwrap's own message). */
const EARLY_STDERR_BYTES = 16 * 1024;

interface ExecRequest {
  permissions: unknown;
  name?: string;
  project?: string;
  argv: string[];
}

function parseExec(args: string[]): ExecRequest | 'help' {
  if (args[0] === '-h' || args[0] === '--help') return 'help';
  if (args[0] !== 'exec')
    throw new UsageError(
      `sandbox: ${args[0] === undefined ? 'say what to do' : `unknown command "${args[0]}"`}: zot sandbox exec -- <program> (see zot sandbox --help)`,
    );
  const request: ExecRequest = { permissions: DEFAULT_PERMISSIONS, argv: [] };
  let help = false;
  const rest = args.slice(1);
  scanArgs(
    rest,
    [
      { names: ['--permissions'], kind: 'value' as const },
      { names: ['--name'], kind: 'value' as const },
      { names: ['--project'], kind: 'value' as const },
      { names: ['-h', '--help'], kind: 'bool' as const },
    ],
    {
      prefix: 'sandbox exec: ',
      help: '(see zot sandbox --help)',
      onOption(spec, _name, value) {
        if (spec.names.includes('--permissions')) {
          try {
            request.permissions = JSON.parse(value!);
          } catch (error) {
            throw new UsageError(
              `sandbox exec: --permissions is not JSON (${(error as Error).message})`,
            );
          }
        } else if (spec.names.includes('--name')) {
          if (!NAME.test(value!))
            throw new UsageError(
              'sandbox exec: --name takes 1 to 64 letters, digits, ".", "_" or "-"',
            );
          request.name = value!;
        } else if (spec.names.includes('--project')) request.project = value!;
        else help = true;
      },
      onPositional(_arg, index) {
        request.argv = rest.slice(index);
        return 'stop';
      },
    },
  );
  if (help) return 'help';
  if (request.argv.length === 0)
    throw new UsageError('sandbox exec: name the program to run: zot sandbox exec -- <program>');
  return request;
}

/** Contract: never throws; resolves with the exit code (or ends the process by the program's signal). */
export async function runSandboxCommand(args: string[]): Promise<number> {
  let request: ExecRequest | 'help';
  let permissions;
  try {
    request = parseExec(args);
    if (request === 'help') {
      process.stdout.write(SANDBOX_HELP);
      return 0;
    }
    permissions = parsePermissions(request.permissions);
    // The working directory is always there to read; what --permissions says comes on top.
    if (!permissions.fs.read.includes('${project}')) permissions.fs.read.unshift('${project}');
  } catch (error) {
    const message =
      error instanceof PermissionError
        ? `sandbox exec: --permissions: ${error.message}`
        : (error as Error).message;
    process.stderr.write(`zot ${message}\n`);
    return 2;
  }
  const env = process.env;
  const project = resolve(request.project ?? process.cwd());
  const [program, ...programArgs] = request.argv as [string, ...string[]];
  const command = program.includes('/') ? resolve(program) : findOnPath(program, env);
  const name = request.name ?? (NAME.test(basename(program)) ? basename(program) : 'program');
  if (command === undefined || !isAbsolute(command)) {
    process.stderr.write(`zot sandbox exec: ${program}: not found on PATH\n`);
    return 127;
  }
  const paths = zotPaths();
  const home = env.HOME || homedir();
  const settings = loadSandbox({ configPath: paths.config, project, home });
  const tag = nodeCrypto().createHash('sha256').update(project).digest('hex').slice(0, 12);
  const plan = prepareScope({
    name,
    kind: 'program',
    permissions,
    dataDir: join(paths.home, 'sandbox-data', `${name}-${tag}`),
    project,
    home,
    zotHome: paths.home,
    command,
    path: env.PATH,
    denyRead: settings.settings.denyRead,
    env,
    platform: process.platform,
  });
  if (plan.kind !== 'scoped') {
    const message = plan.kind === 'refused' ? plan.message : `${name}: not sandboxed`;
    process.stderr.write(terminalSafeBlock(`zot sandbox exec: ${message}`) + '\n');
    return SANDBOX_FAILED;
  }
  // In the same turn: the scope prepareScope checked, not built again.
  const started = plan.starter.start();
  if ('error' in started) {
    process.stderr.write(
      terminalSafeBlock(`zot sandbox exec: ${name} was not started: ${started.error}`) + '\n',
    );
    return SANDBOX_FAILED;
  }
  try {
    return await run(
      [command, ...programArgs],
      project,
      env,
      started.policy,
      plan.starter.failure,
      name,
    );
  } finally {
    started.release();
  }
}

function run(
  argv: [string, ...string[]],
  cwd: string,
  env: NodeJS.ProcessEnv,
  policy: Parameters<typeof launchProcess>[0]['policy'],
  failure: (stderr: string) => string,
  name: string,
): Promise<number> {
  return new Promise((done) => {
    let launched;
    try {
      launched = launchProcess({
        argv,
        cwd,
        env,
        detached: false,
        stdio: ['inherit', 'inherit', 'pipe'],
        policy,
      });
    } catch (error) {
      process.stderr.write(`zot sandbox exec: ${name}: ${(error as Error).message}\n`);
      return done(SANDBOX_FAILED);
    }
    const { child, started } = launched;
    // Until the program runs, stderr is the sandbox's own: kept for the diagnosis.
    let early: Buffer[] | undefined = [];
    let earlyBytes = 0;
    child.stderr!.on('data', (chunk: Buffer) => {
      if (!early) return void process.stderr.write(chunk);
      if (earlyBytes < EARLY_STDERR_BYTES) early.push(chunk);
      earlyBytes += chunk.length;
    });
    void started.then((ran) => {
      if (!ran || !early) return;
      for (const chunk of early) process.stderr.write(chunk);
      early = undefined;
    });
    // A signal for us is for the program: the sandbox (and with it the program) ends.
    const signals: NodeJS.Signals[] = ['SIGTERM', 'SIGINT', 'SIGHUP'];
    const forward = (signal: NodeJS.Signals) => child.kill(signal);
    for (const signal of signals) process.on(signal, forward);
    child.once('error', (error) => {
      process.stderr.write(`zot sandbox exec: ${name}: ${error.message}\n`);
    });
    child.once('close', (code, signal) => {
      void started.then((ran) => {
        for (const s of signals) process.off(s, forward);
        if (!ran) {
          const said = Buffer.concat(early ?? []).toString('utf8');
          process.stderr.write(
            terminalSafeBlock(`zot sandbox exec: ${name}: ${failure(said)}`) + '\n',
          );
          return done(SANDBOX_FAILED);
        }
        if (signal) {
          // Ended by a signal: end the same way, so whoever waits on us sees it.
          process.kill(process.pid, signal);
          return done(signalExitCode(signal));
        }
        done(code ?? 1);
      });
    });
  });
}
