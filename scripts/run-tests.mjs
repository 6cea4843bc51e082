// Runs every compiled TypeScript test file and the Python SDK tests.
// Test files are listed explicitly: `node --test <dir>` finds nothing on Node 20.
// The terminal gets one line per file and each failure in full (scripts/test-reporter.mjs);
// the whole TAP stream goes to test-results/node.tap for CI and for a closer look.
// Usage: node scripts/run-tests.mjs [--tap] [substring filter ...]   (--tap: TAP on stdout too)
import { spawn, spawnSync } from 'node:child_process';
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

// Test files run this many at a time; ZOT_TEST_CONCURRENCY overrides it (a positive integer).
// Three on two cores: most files spend their time waiting on subprocesses, and with both cores
// busy a third file took the loaded suite from 18m40s to 14m27s (test deadlines follow the
// machine's measured start-up, so they hold either way).
function concurrency() {
  const raw = process.env.ZOT_TEST_CONCURRENCY;
  if (raw === undefined || raw === '') return 3;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 64) {
    console.error(
      `run-tests: ZOT_TEST_CONCURRENCY must be an integer from 1 to 64, not ${JSON.stringify(raw)}`,
    );
    process.exit(2);
  }
  return n;
}
const parallel = concurrency();

// The Python SDK's tests run beside the Node files (they are mostly waiting on sockets and
// subprocesses); their output is held and printed after the Node run so the two never interleave.
function startPythonTests() {
  const pythonTests = join(root, 'sdk-python', 'tests');
  if (filters.length > 0 || !existsSync(pythonTests)) return undefined;
  return new Promise((resolve) => {
    const chunks = [];
    const child = spawn('python3', ['-m', 'unittest', 'discover', '-s', 'tests', '-t', '.'], {
      cwd: join(root, 'sdk-python'),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.on('data', (chunk) => chunks.push(chunk));
    child.stderr.on('data', (chunk) => chunks.push(chunk));
    child.on('error', (error) =>
      resolve({ ok: false, output: `python3 did not start: ${error.message}\n` }),
    );
    child.on('close', (code, signal) =>
      resolve({
        ok: code === 0,
        output:
          Buffer.concat(chunks).toString('utf8') + (signal ? `python3 ended by ${signal}\n` : ''),
      }),
    );
  });
}

let failed = false;
const python = startPythonTests();
if (selected.length > 0) {
  console.log(
    `run-tests: ${selected.length} test files, ${parallel} at a time; full TAP in ${relative(root, tapFile)}`,
  );
  const result = await new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [
        '--test',
        `--test-concurrency=${parallel}`,
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
    child.on('error', (error) => resolve({ status: 1, error }));
    child.on('close', (status) => resolve({ status }));
  });
  failed ||= result.status !== 0;
} else if (filters.length === 0) {
  console.error('run-tests: no compiled test files found; did the build run?');
  failed = true;
}

if (python) {
  console.log('run-tests: the Python SDK (python3 -m unittest), run beside the Node files');
  const outcome = await python;
  process.stdout.write(outcome.output);
  failed ||= !outcome.ok;
}
process.exit(failed ? 1 : 0);
