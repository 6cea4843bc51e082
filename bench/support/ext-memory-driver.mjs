// One ext-memory sample, in a fresh Node process:
//   node ext-memory-driver.mjs <root> <dir> [dir ...]
// Imports the host and creates it, then records process.memoryUsage() before start(), starts
// every extension (all must be ready), lets the event loop settle, records it again, shuts down
// and prints one JSON line {before, after} (bytes). Exits 1 with a message on failure.
import { createHost } from '../lib/ext.mjs';

const [root, ...dirs] = process.argv.slice(2);
const SETTLE_MS = 200;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const usage = () => {
  const { rss, heapUsed, external, arrayBuffers } = process.memoryUsage();
  return { rss, heapUsed, external, arrayBuffers };
};

try {
  const host = await createHost(root, dirs, { env: process.env });
  await sleep(SETTLE_MS);
  const before = usage();
  const reports = await host.start();
  await sleep(SETTLE_MS);
  const after = usage();
  await host.shutdown();
  const bad = reports.filter((report) => report.status !== 'ready');
  if (bad.length > 0 || reports.length !== dirs.length) {
    throw new Error(`not ready: ${bad.map((r) => `${r.name}: ${r.status} ${r.error ?? ''}`)}`);
  }
  process.stdout.write(JSON.stringify({ before, after }) + '\n');
  process.exit(0);
} catch (error) {
  process.stderr.write(`ext-memory-driver: ${error?.stack ?? error}\n`);
  process.exit(1);
}
