#!/usr/bin/env node
// The composition root: argv -> mode. `--version` and `--help` answer before anything heavy loads.
import { MAIN_HELP } from './cli/help.js';
import { zotVersion } from './cli/version.js';

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-v')) {
  process.stdout.write(`zot ${zotVersion()}\n`);
} else if (argv.length === 1 && (argv[0] === '--help' || argv[0] === '-h')) {
  process.stdout.write(MAIN_HELP);
} else {
  const { runCli } = await import('./cli/run.js');
  process.exit(await runCli(argv));
}
