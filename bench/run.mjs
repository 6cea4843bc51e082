// Runs the bench suites in sequence, prints a table and writes bench/results/latest.json.
// Usage: node bench/run.mjs [suite ...]   (BENCH_QUICK=1 for a shorter run)
// Contract: a MISS never changes the exit code; only a suite that crashes exits 1.
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';

/** Every suite, in run order; a suite is a module exporting `run(options)`. */
const SUITES = [
  'startup',
  'first-delta',
  'acp',
  'tool-roundtrip',
  'permissions',
  'print-tool',
  'ext-startup',
  'ext-tool-roundtrip',
  'ext-remote',
  'ext-notify-flood',
  'ext-memory',
  'intercept-overhead',
  'cancel',
  'sdk-python',
  'sdk-ts',
  'mcp',
  'mcp-startup',
  'tui',
  'tui-stream',
  'tui-resume',
  'tui-progress',
  'tui-panel',
  'sandbox',
  'checkpoint',
];

const quick = ['1', 'true', 'yes'].includes(process.env.BENCH_QUICK ?? '');
const wanted = process.argv.slice(2);
const unknown = wanted.filter((name) => !SUITES.includes(name));
if (unknown.length > 0) {
  process.stderr.write(`bench: unknown suite ${unknown.join(', ')}; known: ${SUITES.join(', ')}\n`);
  process.exit(2);
}
const selected = wanted.length > 0 ? SUITES.filter((name) => wanted.includes(name)) : SUITES;

const fmt = (ms) => (ms >= 10 ? ms.toFixed(1) : ms >= 1 ? ms.toFixed(2) : ms.toFixed(4));
/** Rows in another unit than ms (e.g. MB) say so in the cell. */
const cell = (s, unit = 'ms') =>
  `${fmt(s.median)}${unit === 'ms' ? '' : ` ${unit}`} (p90 ${fmt(s.p90)})`;

function table(results) {
  const head = ['suite', 'metric', 'baseline ms', 'subject ms', 'ratio', 'target', 'result'];
  const lines = [head];
  const errors = [];
  for (const result of results) {
    if (result.error) {
      // The full error goes below the table, so it cannot stretch the columns.
      lines.push([result.name, 'ERROR (see below)', '', '', '', '', 'ERROR']);
      errors.push(`${result.name}: ${result.error}`);
      continue;
    }
    for (const r of result.rows) {
      // pass === null: a report-only row without a target.
      const status = r.pass === null ? 'INFO' : r.pass ? 'PASS' : 'MISS';
      lines.push([
        result.name,
        r.metric,
        cell(r.baseline, r.unit),
        cell(r.subject, r.unit),
        `${r.ratio.toFixed(2)}x`,
        r.target,
        status,
      ]);
    }
  }
  const widths = head.map((_, i) => Math.max(...lines.map((line) => line[i].length)));
  const render = (line) =>
    line
      .map((text, i) => text.padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  return [
    render(head),
    widths.map((w) => '-'.repeat(w)).join('  '),
    ...lines.slice(1).map(render),
    ...(errors.length > 0 ? ['', ...errors] : []),
  ].join('\n');
}

/** Formats JSON the way the repository's prettier would, so `prettier --check .` stays green. */
async function formatJson(value, path) {
  const text = JSON.stringify(value, null, 2) + '\n';
  try {
    const prettier = await import('prettier');
    const config = (await prettier.resolveConfig(path)) ?? {};
    return await prettier.format(text, { ...config, filepath: path });
  } catch {
    return text;
  }
}

const started = performance.now();
const results = [];
let crashed = false;
for (const name of selected) {
  process.stderr.write(`bench: ${name}${quick ? ' (quick)' : ''} ...\n`);
  const t0 = performance.now();
  try {
    const suite = await import(`./suites/${name}.mjs`);
    const result = await suite.run({ quick });
    results.push({ ...result, seconds: (performance.now() - t0) / 1000 });
  } catch (error) {
    crashed = true;
    process.stderr.write(`bench: ${name} failed: ${error?.stack ?? error}\n`);
    results.push({ name, error: String(error?.message ?? error), rows: [] });
  }
  process.stderr.write(`bench: ${name} took ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
}

const report = {
  date: new Date().toISOString(),
  node: process.version,
  platform: `${process.platform} ${process.arch}`,
  cpus: cpus().length,
  quick,
  seconds: (performance.now() - started) / 1000,
  suites: results,
};
process.stdout.write(`\n${table(results)}\n\n`);
process.stdout.write(
  'baseline/subject: median (p90) in ms; ratio = subject median / baseline median.\n',
);
for (const result of results) {
  for (const r of result.rows) if (r.note) process.stdout.write(`${result.name}: ${r.note}\n`);
}
const dir = fileURLToPath(new URL('./results/', import.meta.url));
mkdirSync(dir, { recursive: true });
const out = `${dir}latest.json`;
writeFileSync(out, await formatJson(report, out));
process.stdout.write(`wrote ${out} (${report.seconds.toFixed(1)} s)\n`);
process.exit(crashed ? 1 : 0);
