// Runs every compiled TypeScript test file and the Python SDK tests.
// Test files are listed explicitly: `node --test <dir>` finds nothing on Node 20.
// The terminal gets one line per file and each failure in full (scripts/test-reporter.mjs);
// the whole TAP stream goes to test-results/node.tap for CI and for a closer look.
// Usage: node scripts/run-tests.mjs [--tap] [substring filter ...]   (--tap: TAP on stdout too)
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { delimiter, join, relative } from 'node:path';

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

// `python3` found once: when PATH's python3 is a version manager's shim (pyenv's is a bash script
// that starts several more processes, 0.1-0.7 s of CPU a start on this machine), the suite would
// pay it at each of its thousands of Python starts, and every test deadline, a multiple of the
// measured start-up (test/support/timing.ts), would grow with it. The tests get the interpreter
// the shim picks, under the same name, first on PATH; nothing else on PATH changes.
function pinPython(binDir) {
  const found = spawnSync('python3', ['-c', 'import sys; print(sys.executable)'], {
    encoding: 'utf8',
  });
  const executable = found.status === 0 ? found.stdout.trim() : '';
  if (executable === '') return; // no python3: the Python tests fail on their own, by name
  rmSync(binDir, { recursive: true, force: true });
  mkdirSync(binDir, { recursive: true });
  symlinkSync(executable, join(binDir, 'python3'));
  process.env.PATH = `${binDir}${delimiter}${process.env.PATH ?? ''}`;
}
pinPython(join(root, 'test-results', 'bin'));

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
