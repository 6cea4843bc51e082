// Runs every compiled TypeScript test file and the Python SDK tests.
// Test files are listed explicitly: `node --test <dir>` finds nothing on Node 20.
// The terminal gets one line per file and each failure in full (scripts/test-reporter.mjs);
// the whole TAP stream goes to test-results/node.tap for CI and for a closer look.
// Usage: node scripts/run-tests.mjs [--tap] [substring filter ...]   (--tap: TAP on stdout too)
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const args = process.argv.slice(2);
const tapOnStdout = args.includes('--tap');
const filters = args.filter((a) => a !== '--tap');

function collect(dir, out) {
  if (!existsSync(dir)) return out;
  for (const entry of readdirSync(dir)) {
    const full = join(dir, entry);
    if (entry === 'node_modules') continue;
    if (statSync(full).isDirectory()) collect(full, out);
    else if (entry.endsWith('.test.js') || entry.endsWith('.test.mjs')) out.push(full);
  }
  return out;
}

const files = [];
for (const pkg of ['protocol', 'sdk', 'rpc-client', 'zot'])
  collect(join(root, 'packages', pkg, 'dist'), files);
collect(join(root, 'examples'), files);
const selected = files
  .map((f) => relative(root, f))
  .filter((f) => filters.length === 0 || filters.some((s) => f.includes(s)))
  .sort();

// The per-test timeout is a last-resort hang guard (tests carry their own deadlines, derived from
// the same kind of measurement in test/support/timing.ts): 120 s when idle, more when the machine
// is so loaded that an interpreter takes long to start.
function startupMs() {
  let slowest = 0;
  for (const [command, args] of [
    [process.execPath, ['-e', '0']],
    ['python3', ['-c', 'pass']],
  ]) {
    const began = performance.now();
    if (spawnSync(command, args, { stdio: 'ignore' }).status === 0) {
      slowest = Math.max(slowest, performance.now() - began);
    }
  }
  return slowest;
}
const testTimeoutMs = Math.max(120_000, Math.ceil(1200 * startupMs()));

const resultsDir = join(root, 'test-results');
mkdirSync(resultsDir, { recursive: true });
const tapFile = join(resultsDir, 'node.tap');
const reporters = tapOnStdout
  ? ['--test-reporter=tap', '--test-reporter-destination=stdout']
  : ['--test-reporter=./scripts/test-reporter.mjs', '--test-reporter-destination=stdout'];
reporters.push('--test-reporter=tap', `--test-reporter-destination=${tapFile}`);

let failed = false;
if (selected.length > 0) {
  console.log(
    `run-tests: ${selected.length} test files, 2 at a time; full TAP in ${relative(root, tapFile)}`,
  );
  const result = spawnSync(
    process.execPath,
    [
      '--test',
      '--test-concurrency=2',
      `--test-timeout=${testTimeoutMs}`,
      ...reporters,
      ...selected,
    ],
    {
      cwd: root,
      stdio: 'inherit',
      env: { ...process.env, ZOT_TEST_FILES: String(selected.length) },
    },
  );
  failed ||= result.status !== 0;
} else if (filters.length === 0) {
  console.error('run-tests: no compiled test files found; did the build run?');
  failed = true;
}

const pythonTests = join(root, 'sdk-python', 'tests');
if (filters.length === 0 && existsSync(pythonTests)) {
  console.log('run-tests: the Python SDK (python3 -m unittest)');
  const result = spawnSync('python3', ['-m', 'unittest', 'discover', '-s', 'tests', '-t', '.'], {
    cwd: join(root, 'sdk-python'),
    stdio: 'inherit',
  });
  failed ||= result.status !== 0;
}
process.exit(failed ? 1 : 0);
