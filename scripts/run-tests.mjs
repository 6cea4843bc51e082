// Runs every compiled TypeScript test file and the Python SDK tests.
// Test files are listed explicitly: `node --test <dir>` finds nothing on Node 20.
// Usage: node scripts/run-tests.mjs [substring filter ...]
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const filters = process.argv.slice(2);

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
for (const pkg of ['protocol', 'sdk', 'zot']) collect(join(root, 'packages', pkg, 'dist'), files);
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

let failed = false;
if (selected.length > 0) {
  const result = spawnSync(
    process.execPath,
    ['--test', '--test-concurrency=2', `--test-timeout=${testTimeoutMs}`, ...selected],
    { cwd: root, stdio: 'inherit' },
  );
  failed ||= result.status !== 0;
} else if (filters.length === 0) {
  console.error('run-tests: no compiled test files found; did the build run?');
  failed = true;
}

const pythonTests = join(root, 'sdk-python', 'tests');
if (filters.length === 0 && existsSync(pythonTests)) {
  const result = spawnSync('python3', ['-m', 'unittest', 'discover', '-s', 'tests', '-t', '.'], {
    cwd: join(root, 'sdk-python'),
    stdio: 'inherit',
  });
  failed ||= result.status !== 0;
}
process.exit(failed ? 1 : 0);
