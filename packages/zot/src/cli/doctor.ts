// `zot doctor sandbox`: the probe the sandbox runs before its first command, printed check by
// check with the fix for each failure, then the policy this directory would get.
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { resolveToolOutputDir, zotPaths } from '../config/paths.js';
import type { ModeIO } from '../modes/io.js';
import { SandboxController } from '../security/sandbox/controller.js';
import { loadSandbox } from '../security/sandbox/load.js';
import { probeSandbox, type SandboxProbe } from '../security/sandbox/probe.js';
import { terminalSafeBlock } from '../util/terminal-text.js';
import { UsageError } from '../util/errors.js';
import { scanArgs } from './options.js';

export const DOCTOR_HELP = `Usage: zot doctor sandbox [--cwd <dir>]

Checks whether zot's sandbox can start on this machine (bubblewrap on Linux, sandbox-exec on
macOS): each check with PASS, FAIL or INFO, and for each failure what fixes it. Then shows the
sandbox settings and the paths a command started in <dir> (default: here) could write and
could not read.

Exit codes: 0 the sandbox can start, 1 it cannot, 2 usage error.
`;

const label = (ok: boolean | null) => (ok === true ? 'PASS' : ok === false ? 'FAIL' : 'INFO');

/** The probe as lines of text (escaped: bwrap's messages and paths come from outside). */
export function formatProbe(probe: SandboxProbe): string {
  const lines = [`sandbox: ${probe.tool ?? 'none'} on ${process.platform}`, ''];
  for (const check of probe.checks) {
    lines.push(`  ${label(check.ok)}  ${check.name}: ${check.detail}`);
    if (check.ok === false && check.fix)
      lines.push(
        ...check.fix.split('\n').map((line, i) => `        ${i === 0 ? 'fix: ' : '     '}${line}`),
      );
  }
  lines.push('');
  lines.push(
    probe.ok
      ? 'The sandbox can start here.'
      : `The sandbox cannot start here: ${probe.problem?.message ?? 'see the failed check'}.`,
  );
  return terminalSafeBlock(lines.join('\n'));
}

/** Contract: never throws; returns the exit code. */
export async function runDoctorCommand(args: string[], io: ModeIO): Promise<number> {
  let topic: string | undefined;
  let cwd: string | undefined;
  let help = false;
  try {
    scanArgs(
      args,
      [
        { names: ['--cwd'], kind: 'value' as const },
        { names: ['-h', '--help'], kind: 'bool' as const },
      ],
      {
        prefix: 'doctor: ',
        help: '(see zot doctor --help)',
        onOption(spec, _name, value) {
          if (spec.names.includes('--cwd')) cwd = value;
          else help = true;
        },
        onPositional(arg) {
          if (topic !== undefined) throw new UsageError(`doctor: unexpected argument "${arg}"`);
          topic = arg;
        },
      },
    );
  } catch (error) {
    io.stderr.write(`zot ${(error as Error).message}\n`);
    return 2;
  }
  if (help) {
    io.stdout.write(DOCTOR_HELP);
    return 0;
  }
  if (topic !== 'sandbox') {
    io.stderr.write(
      `zot doctor: ${topic === undefined ? 'say what to check' : `unknown topic "${topic}"`}: zot doctor sandbox (see zot doctor --help)\n`,
    );
    return 2;
  }
  const project = resolve(cwd ?? process.cwd());
  const paths = zotPaths();
  const home = process.env.HOME || homedir();
  const loaded = loadSandbox({ configPath: paths.config, project, home });
  const probe = await probeSandbox();
  io.stdout.write(formatProbe(probe) + '\n\n');
  const controller = new SandboxController({
    settings: loaded.settings,
    floor: loaded.floor,
    floorSource: loaded.floorSource,
    project,
    home,
    zotHome: paths.home,
    readable: () => [resolveToolOutputDir()],
    probe: async () => probe,
  });
  await controller.check();
  const description = controller.describe().split('\n');
  // The switch hint is for the TUI; here the settings are the place to change it.
  const settingsLines = description.filter((line) => !line.startsWith('Switch for this run'));
  io.stdout.write(
    terminalSafeBlock(
      [
        `Settings for ${project} (config.json: ${paths.config}):`,
        ...settingsLines.map((line) => (line === '' ? '' : `  ${line}`)),
        ...loaded.warnings.map((warning) => `  warning: ${warning}`),
      ]
        .join('\n')
        .trimEnd(),
    ) + '\n',
  );
  return probe.ok ? 0 : 1;
}
