// `zot ext <command>`: dispatch and help. Each subcommand lives in its own module.
import { writeLine } from '../../modes/io.js';
import { UsageError } from '../../util/errors.js';
import { makeContext, wantsHelp, type ExtCommand, type ExtIO } from './common.js';
import { doctorCommand } from './doctor.js';
import { installCommand, removeCommand } from './install.js';
import { listCommand } from './list.js';
import { logsCommand } from './logs.js';
import { newCommand } from './new.js';
import { disableCommand, enableCommand } from './toggle.js';
import { trustCommand, untrustCommand } from './trust.js';

const COMMANDS: ExtCommand[] = [
  listCommand,
  doctorCommand,
  installCommand,
  removeCommand,
  enableCommand,
  disableCommand,
  logsCommand,
  newCommand,
  trustCommand,
  untrustCommand,
];

const USAGE: Record<string, string> = {
  list: 'list [--json]',
  doctor: 'doctor [--json] [--ext DIR ...]',
  install: 'install <path|git-url> [--force]',
  remove: 'remove <name> [--yes]',
  enable: 'enable <name>',
  disable: 'disable <name>',
  logs: 'logs <name> [-f]',
  new: 'new <name> [--lang node|ts|python] [--dir DIR]',
  trust: 'trust [<name> | --all]',
  untrust: 'untrust <name>',
};

export const EXT_HELP = `Usage: zot ext <command> [options]

Commands:
${COMMANDS.map((c) => `  ${(USAGE[c.name] ?? c.name).padEnd(50)}${c.summary}`).join('\n')}

Extensions live in $ZOT_HOME/extensions (global, installed by you) and in
./.zot/extensions (project). Project extensions run only after
\`zot ext trust <name>\`, and again only after any change is trusted.

Run \`zot ext <command> --help\` for details. Exit codes: 0 ok, 1 failure, 2 usage error.
`;

/** Returns the exit code. Contract: throws UsageError (exit 2) for bad arguments. */
export async function runExtCommand(args: string[], io: ExtIO): Promise<number> {
  const [name, ...rest] = args;
  if (name === undefined) {
    writeLine(io.stderr, EXT_HELP);
    return 2;
  }
  if (name === '--help' || name === '-h' || name === 'help') {
    writeLine(io.stdout, EXT_HELP);
    return 0;
  }
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) {
    throw new UsageError(
      `unknown ext command "${name}" (expected ${COMMANDS.map((c) => c.name).join(', ')}; see zot ext --help)`,
    );
  }
  if (wantsHelp(rest)) {
    writeLine(io.stdout, command.help);
    return 0;
  }
  return command.run(rest, makeContext(io));
}
