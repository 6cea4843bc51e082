// Diagnostic: the import cost of each module on a CLI path, measured in fresh processes.
// Walks the static import graph of the entry modules (built JS), imports the modules one by one
// in dependency order (leaves first) so each time is that module's own load and evaluation,
// and prints medians over runs, most expensive first.
// Usage: node bench/support/import-times.mjs [runs] [entry.js ...]
//   default entries: the `zot --json` path (cli/run.js, cli/setup.js, modes/json.js).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ROOT, summarize } from '../lib/common.mjs';

const SELF = fileURLToPath(import.meta.url);

if (process.argv[2] === '--child') {
  const order = JSON.parse(process.argv[3]);
  const times = {};
  const start = performance.now();
  for (const spec of order) {
    const t0 = performance.now();
    await import(spec);
    times[spec] = performance.now() - t0;
  }
  times.__total = performance.now() - start;
  process.stdout.write(JSON.stringify(times));
  process.exit(0);
}

const runs = Number(process.argv[2] ?? 15);
const dist = resolve(ROOT, 'packages/zot/dist/src');
const entries = process.argv.slice(3).map((p) => resolve(p));
if (entries.length === 0) {
  entries.push(...['cli/run.js', 'cli/setup.js', 'modes/json.js'].map((p) => resolve(dist, p)));
}

const IMPORT = /^\s*(?:import|export)\s+(?!type\b)(?:[^'"]*?\sfrom\s+)?['"]([^'"]+)['"]/gm;
const order = [];
const seen = new Set();
function visit(file) {
  if (seen.has(file)) return;
  seen.add(file);
  const source = readFileSync(file, 'utf8');
  for (const match of source.matchAll(IMPORT)) {
    const spec = match[1];
    if (spec.startsWith('.')) visit(resolve(dirname(file), spec));
    else if (!seen.has(spec)) {
      seen.add(spec);
      order.push(spec);
    }
  }
  order.push(file);
}
for (const entry of entries) visit(entry);
const specs = order.map((s) => (s.startsWith('/') ? pathToFileURL(s).href : s));

const all = {};
for (let i = 0; i < runs; i++) {
  const child = spawnSync(process.execPath, [SELF, '--child', JSON.stringify(specs)], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  if (child.status !== 0) throw new Error(child.stderr);
  for (const [spec, ms] of Object.entries(JSON.parse(child.stdout))) (all[spec] ??= []).push(ms);
}
const rows = Object.entries(all)
  .map(([spec, list]) => [spec, summarize(list).median])
  .sort((a, b) => b[1] - a[1]);
const name = (spec) => {
  if (!spec.startsWith('file:')) return `${spec} (package)`;
  const path = fileURLToPath(spec);
  return path.includes('/dist/src/') ? path.replace(/.*\/dist\/src\//, '') : relative(ROOT, path);
};
for (const [spec, ms] of rows) {
  const label = spec === '__total' ? 'TOTAL (sum of the one-by-one imports)' : name(spec);
  console.log(`${ms.toFixed(2).padStart(8)} ms  ${label}`);
}
