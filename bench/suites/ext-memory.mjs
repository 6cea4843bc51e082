// Host memory: RSS of a fresh Node process that has imported the extension host, before and
// after starting 1 and 30 trivial Node extensions (support/ext-memory-driver.mjs). Only the
// host process is measured, not the extension processes. Report only: there is no target.
import { fileURLToPath } from 'node:url';
import { interleave, rounds, summarize, timedNode } from '../lib/common.mjs';
import {
  assertNoLeftovers,
  extensionEnv,
  makeTrivial,
  medianOf,
  tempRoot,
  writeTrivialPrograms,
} from '../lib/ext.mjs';

const DRIVER = fileURLToPath(new URL('../support/ext-memory-driver.mjs', import.meta.url));
const COUNTS = [1, 30];
const MB = 1024 * 1024;

async function sample(root, dirs, env) {
  const result = await timedNode([DRIVER, root, ...dirs], { env, timeoutMs: 60_000 });
  const last = result.stdout.trim().split('\n').pop() ?? '';
  if (result.code !== 0 || !last.startsWith('{')) {
    throw new Error(`memory driver failed (status ${result.code}): ${result.stderr.trim()}`);
  }
  return JSON.parse(last);
}

/** A report-only row in MB: baseline = RSS before start(), subject = RSS with N loaded. */
function memoryRow(metric, before, after, note) {
  const baseline = summarize(before);
  const subject = summarize(after);
  return {
    metric,
    unit: 'MB',
    baseline,
    subject,
    ratio: Math.round((subject.median / baseline.median) * 1000) / 1000,
    target: 'none (report only)',
    pass: null,
    note,
  };
}

export async function run(options) {
  const root = tempRoot('ext-memory');
  const env = extensionEnv();
  const rows = [];
  const deltas = {};
  try {
    const programs = writeTrivialPrograms(root.dir);
    const sets = Object.fromEntries(
      COUNTS.map((count) => [
        count,
        Array.from({ length: count }, (_, i) =>
          makeTrivial(root.dir, programs, 'node', `m-${count}-${i}`),
        ),
      ]),
    );
    const fns = Object.fromEntries(
      COUNTS.map((count) => [count, async () => [await sample(root.dir, sets[count], env)]]),
    );
    const raw = await interleave(rounds(options, 3, 1), fns);
    for (const count of COUNTS) {
      const results = raw[count];
      const before = results.map((r) => r.before.rss / MB);
      const after = results.map((r) => r.after.rss / MB);
      const delta = results.map((r) => (r.after.rss - r.before.rss) / MB);
      const heap = results.map((r) => (r.after.heapUsed - r.before.heapUsed) / MB);
      deltas[count] = medianOf(delta);
      rows.push(
        memoryRow(
          `host RSS (MB), ${count} node ext: before start() vs loaded`,
          before,
          after,
          `${count} ext: RSS +${medianOf(delta).toFixed(1)} MB (median of ${delta.length}), ` +
            `of which JS heap +${medianOf(heap).toFixed(1)} MB`,
        ),
      );
    }
    const perExtension = (deltas[30] - deltas[1]) / 29;
    rows[rows.length - 1].note += `; per extension beyond the first ~${perExtension.toFixed(2)} MB`;
    await assertNoLeftovers(root.dir);
  } finally {
    root.cleanup();
  }
  return { name: 'ext-memory', rows };
}
