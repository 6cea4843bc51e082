// `zot ext <command>`: dispatch and help. Each subcommand lives in its own module, loaded
// only when it runs (doctor pulls in the whole extension host; list does not need it).
import { writeLine } from '../../modes/io.js';
import { UsageError } from '../../util/errors.js';
import { makeContext, wantsHelp, type ExtCommand, type ExtIO } from './common.js';

interface Entry {
  name: string;
  usage: string;
  summary: string;
  load(): Promise<ExtCommand>;
}

const COMMANDS: Entry[] = [
  {
    name: 'list',
    usage: 'list [--json] [--no-probe]',
    summary: 'list extensions and their state',
    load: async () => (await import('./list.js')).listCommand,
  },
  {
    name: 'doctor',
    usage: 'doctor [--json] [--ext DIR ...]',
    summary: 'start every extension once and report',
    load: async () => (await import('./doctor.js')).doctorCommand,
  },
  {
    name: 'install',
    usage: 'install <path|git-url> [--force]',
    summary: 'install from a directory or a git URL',
    load: async () => (await import('./install.js')).installCommand,
  },
  {
    name: 'remove',
    usage: 'remove <name> [--yes]',
    summary: 'delete an installed extension',
    load: async () => (await import('./install.js')).removeCommand,
  },
  {
    name: 'enable',
    usage: 'enable <name>',
    summary: 're-enable a disabled extension',
    load: async () => (await import('./toggle.js')).enableCommand,
  },
  {
    name: 'disable',
    usage: 'disable <name>',
    summary: 'disable an extension without removing it',
    load: async () => (await import('./toggle.js')).disableCommand,
  },
  {
    name: 'logs',
    usage: 'logs <name> [-f]',
    summary: "print (or follow) an extension's stderr log",
    load: async () => (await import('./logs.js')).logsCommand,
  },
  {
    name: 'test',
    usage: 'test <dir> | --url URL [--json]',
    summary: 'run the conformance kit on an extension directory',
    load: async () => (await import('./test.js')).testCommand,
  },
  {
    name: 'new',
    usage: 'new <name> [--lang node|ts|python] [--dir DIR]',
    summary: 'scaffold a working extension',
    load: async () => (await import('./new.js')).newCommand,
  },
  {
    name: 'trust',
    usage: 'trust [<name> | --all] [--yes]',
    summary: 'review and trust project extensions',
    load: async () => (await import('./trust.js')).trustCommand,
  },
  {
    name: 'untrust',
    usage: 'untrust <name>',
    summary: "forget a project extension's trust",
    load: async () => (await import('./trust.js')).untrustCommand,
  },
];

export const EXT_HELP = `Usage: zot ext <command> [options]

Commands:
${COMMANDS.map((c) => `  ${c.usage.padEnd(48)}${c.summary}`).join('\n')}

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
  const entry = COMMANDS.find((c) => c.name === name);
  if (!entry) {
    throw new UsageError(
      `unknown ext command "${name}" (expected ${COMMANDS.map((c) => c.name).join(', ')}; see zot ext --help)`,
    );
  }
  const command = await entry.load();
  if (wantsHelp(rest)) {
    writeLine(io.stdout, command.help);
    return 0;
  }
  return command.run(rest, makeContext(io));
}
