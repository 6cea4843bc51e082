// The conformance kit behind `zot ext test`: reads the extension's manifest as the host does and
// runs the kit on it (with --url, remote.ts connects to a remote one instead). The command
// (cli/ext/test.ts) only parses arguments and prints the report.
import { readManifest } from '../ext-setup/manifest.js';
import { readyDeadlineMs } from '../extensions/timeouts.js';
import { UsageError } from '../util/errors.js';
import { Checks, type ReportJson } from './report.js';
import { runKit, type RunOptions } from './run.js';

export { renderText, type ReportJson } from './report.js';
export { runRemoteKit as testRemoteExtension, type RemoteRunOptions } from './remote.js';

export type TestOptions = Omit<RunOptions, 'manifest' | 'manifestWarnings'>;

/**
 * Tests the extension in `dir`. A manifest zot cannot read is a failed check; one with no
 * process to run (a theme or skills only) is a usage error. Contract: rejects only with that.
 */
export async function testExtension(dir: string, options: TestOptions): Promise<ReportJson> {
  const read = readManifest(dir);
  if (!read.ok) {
    const checks = new Checks();
    checks.add({ check: 'manifest', status: 'fail', message: read.error });
    return {
      format: 'zot-ext-test/1',
      ok: false,
      extension: { name: null, version: null, dir, manifest: read.path },
      counts: checks.counts(),
      checks: checks.list,
      stderr: '',
      stderr_truncated: false,
      timeouts_ms: {},
      duration_ms: 0,
    };
  }
  const { manifest, warnings } = read;
  if (manifest.kind !== 'process') {
    const what = manifest.kind === 'theme' ? 'theme-only' : 'skill-only';
    throw new UsageError(
      `ext test: ${manifest.name} is a ${what} extension (no "exec"): there is no process to test`,
    );
  }
  // The kit waits for ready as long as zot would for this extension.
  const timeouts = {
    ...options.timeouts,
    readyMs: readyDeadlineMs(options.timeouts, manifest.readyTimeoutMs),
  };
  return runKit({ ...options, timeouts, manifest, manifestWarnings: warnings });
}
