// `zot permissions [list|trust|untrust] [--cwd DIR]`: the rules in force here, with their
// sources; trusting the project's allow rules (pinned to their hash).
import { resolve } from 'node:path';
import { zotPaths } from '../config/paths.js';
import { printHelp, writeDiagnostic, writeLine, type ModeIO } from '../modes/io.js';
import { terminalSafe } from '../util/terminal-text.js';
import { UsageError } from '../util/errors.js';
import type { CliOptions } from './args.js';
import { loadPermissions, projectSettingsPath, trustProjectAllow } from './permissions-setup.js';

export const PERMISSIONS_HELP = `Usage: zot permissions [list|trust|untrust] [--cwd <dir>]

  list      the permission rules in force in this directory, with where each comes from (default)
  trust     let the allow rules of this project's .zot/settings.json count (pinned: a change to
            them needs a new trust)
  untrust   forget that trust

Rules: TOOL or TOOL(PATTERN), e.g. bash(npm run *), read(~/.ssh/**), mcp__github__* (docs/security.md).
`;

export function runPermissionsCommand(options: CliOptions, io: ModeIO): number {
  const args = [...options.commandArgs];
  let cwd = resolve(options.cwd ?? process.cwd());
  let action = 'list';
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--cwd') cwd = resolve(args[++i] ?? '');
    else if (arg === '-h' || arg === '--help') return printHelp(io, PERMISSIONS_HELP);
    else if (['list', 'trust', 'untrust'].includes(arg)) action = arg;
    else throw new UsageError(`permissions: unknown argument ${arg} (see zot permissions --help)`);
  }
  const paths = zotPaths();
  if (action !== 'list') {
    writeLine(io.stdout, terminalSafe(trustProjectAllow(cwd, paths, action === 'trust')));
    return 0;
  }
  const loaded = loadPermissions(options, cwd, paths);
  for (const problem of loaded.problems) writeDiagnostic(io.stderr, `zot: warning: ${problem}`);
  if (loaded.rules.length === 0 && loaded.untrustedAllow.length === 0) {
    writeLine(io.stdout, 'no permission rules (every tool call follows the mode: see zot --help)');
    return 0;
  }
  for (const rule of loaded.rules) {
    const from = rule.file ? `${rule.source} ${rule.file}` : rule.source;
    writeLine(io.stdout, terminalSafe(`${rule.action.padEnd(5)}  ${rule.text}  (${from})`));
  }
  for (const rule of loaded.untrustedAllow) {
    writeLine(
      io.stdout,
      terminalSafe(
        `allow  ${rule.text}  (project ${projectSettingsPath(cwd)}, ignored: not trusted)`,
      ),
    );
  }
  return 0;
}
