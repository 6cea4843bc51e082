// Builds fixture extensions in temp directories and inspects the process table.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { extensionDataDir } from '../../src/extensions/scopes.js';
import { NODE_FIXTURE, PY_FIXTURE } from './fixture-paths.js';
import { extTimeouts, hangGuard } from './timing.js';

export { extTimeouts, NODE_FIXTURE, PY_FIXTURE };

/** Where zot keeps the state of the scoped extension `name` in `dir` (hello_ack's data_dir). */
export function scopedDataDir(zotHome: string, name: string, dir: string): string {
  return extensionDataDir(zotHome, name, realpathSync(dir));
}
export const EXAMPLES = fileURLToPath(
  new URL('../../../../../examples/extensions/', import.meta.url),
);

/**
 * Extension timeouts for zot under test, as environment variables: short so failure paths stay
 * fast (design D10), yet derived from the measured start-up time (timing.ts) so they do not
 * fire on a loaded machine. Lazy: the measurement runs when a test first reads a value.
 */
export const FAST_TIMEOUTS: Readonly<Record<string, string>> = Object.defineProperties(
  {},
  Object.fromEntries(
    (
      [
        ['ZOT_EXT_HELLO_TIMEOUT_MS', 'helloMs'],
        ['ZOT_EXT_READY_TIMEOUT_MS', 'readyMs'],
        ['ZOT_EXT_COMMAND_TIMEOUT_MS', 'commandMs'],
        ['ZOT_EXT_TOOL_TIMEOUT_MS', 'toolMs'],
        ['ZOT_EXT_INTERCEPT_TIMEOUT_MS', 'interceptMs'],
        ['ZOT_EXT_SHUTDOWN_GRACE_MS', 'shutdownGraceMs'],
      ] as const
    ).map(([name, key]) => [name, { enumerable: true, get: () => String(extTimeouts()[key]) }]),
  ),
);

export interface FixtureOptions {
  [key: string]: unknown;
}

/**
 * Writes `<root>/<dirName>/extension.json` running the fixture with `scenario`. `tag` ends up on
 * the command line so leftover processes can be found.
 */
export function makeExtension(
  root: string,
  name: string,
  scenario: string,
  options: FixtureOptions = {},
  extra: { dirName?: string; python?: boolean; manifest?: Record<string, unknown> } = {},
): string {
  const dir = join(root, extra.dirName ?? name);
  mkdirSync(dir, { recursive: true });
  const args = [
    extra.python ? PY_FIXTURE : NODE_FIXTURE,
    scenario,
    JSON.stringify({ name, tag: root, ...options }),
  ];
  writeFileSync(
    join(dir, 'extension.json'),
    JSON.stringify(
      { name, version: '1.0.0', exec: extra.python ? 'python3' : 'node', args, ...extra.manifest },
      null,
      2,
    ),
  );
  return dir;
}

/** Live (non-zombie) processes whose command line contains `needle`. */
export function processesMatching(needle: string): string[] {
  const out = execFileSync('ps', ['-eo', 'pid=,stat=,args='], { encoding: 'utf8' });
  return out
    .split('\n')
    .filter((line) => line.includes(needle) && !line.includes('ps -eo'))
    .filter((line) => !/^\s*\d+\s+Z/.test(line));
}

export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = execFileSync('ps', ['-o', 'stat=', '-p', String(pid)], {
      encoding: 'utf8',
    }).trim();
    return stat !== '' && !stat.startsWith('Z');
  } catch {
    return false;
  }
}

/** Waits until no live process mentions `needle` (extension shutdown is asynchronous). */
export async function waitForNoProcesses(
  needle: string,
  timeoutMs = hangGuard(5000),
): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  let left = processesMatching(needle);
  while (left.length > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    left = processesMatching(needle);
  }
  return left;
}

/** Registers a check, run when the test ends, that no process of `root`'s extensions is alive. */
export function expectNoLeftovers(t: { after(fn: () => void): void }, root: string): void {
  t.after(() => {
    const left = processesMatching(root);
    if (left.length > 0) throw new Error(`extension processes outlived zot:\n${left.join('\n')}`);
  });
}

type Frame = Record<string, unknown>;

/**
 * The frames a fixture extension recorded (its `record` option), once `ready(frames)` holds.
 * The extension records on its own schedule, so a test waits for the file rather than assuming
 * that what zot sent has already been written. Contract: rejects after a hang guard.
 */
export async function recordedFrames(
  record: string,
  ready: (frames: Frame[]) => boolean = () => true,
): Promise<Frame[]> {
  const read = (): Frame[] =>
    existsSync(record)
      ? readFileSync(record, 'utf8')
          .split('\n')
          .filter((line) => line.trim() !== '')
          .map((line) => JSON.parse(line) as Frame)
      : [];
  const deadline = Date.now() + hangGuard(10_000);
  for (;;) {
    const frames = read();
    if (ready(frames)) return frames;
    if (Date.now() > deadline) {
      throw new Error(
        `${record}: the expected frames never arrived; got ${JSON.stringify(frames)}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
