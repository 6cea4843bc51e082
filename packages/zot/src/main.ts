#!/usr/bin/env node
// The composition root: argv -> mode. `--version` and `--help` answer before anything heavy loads.
import { useBundleCodeCache } from './cli/code-cache.js';
import { MAIN_HELP } from './cli/help.js';
import { zotVersion } from './cli/version.js';

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-v')) {
  quietStdio();
  process.stdout.write(`zot ${zotVersion()}\n`);
} else if (argv.length === 1 && (argv[0] === '--help' || argv[0] === '-h')) {
  quietStdio();
  process.stdout.write(MAIN_HELP);
} else if (argv[0] === 'sandbox') {
  // `zot sandbox exec`: a wrapper around one program, so none of the session runtime loads.
  useBundleCodeCache(import.meta.url);
  void import('./cli/sandbox-command.js').then(async ({ runSandboxCommand, exitAfterFlush }) => {
    await exitAfterFlush(await runSandboxCommand(argv.slice(1)));
  });
} else {
  // The bundle's chunks compile from V8 data kept by earlier runs.
  useBundleCodeCache(import.meta.url);
  // No top-level await: the bundle is CommonJS (see scripts/bundle.mjs).
  void import('./cli/run.js').then(async ({ runCli, exitAfterFlush }) => {
    // Not process.exit: that would drop output still on its way into a pipe.
    await exitAfterFlush(await runCli(argv));
  });
}

/** A reader that went away (`zot --help | head -c1`) is no error; Node then exits by itself, flushed. */
function quietStdio(): void {
  process.stdout.on('error', () => undefined);
  process.stderr.on('error', () => undefined);
}
