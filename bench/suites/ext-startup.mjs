// Extension start-up: 1, 10 and 30 trivial extensions (Node, then Python) until all are ready
// through ExtensionHost.start(), versus spawning the same programs raw and reading their first
// line, all N in parallel. Each sample runs in a fresh driver process (support/
// ext-startup-driver.mjs) so that the host's first-use costs are in every sample; the driver's
// own start-up and imports are not timed.
import { fileURLToPath } from 'node:url';
import { interleave, row, rounds, summarize, timedNode } from '../lib/common.mjs';
import {
  assertNoLeftovers,
  extensionEnv,
  makeTrivial,
  medianOf,
  tempRoot,
  writeTrivialPrograms,
} from '../lib/ext.mjs';

const TARGET = { maxRatio: 1.3 };
const DRIVER = fileURLToPath(new URL('../support/ext-startup-driver.mjs', import.meta.url));
const COUNTS = [1, 10, 30];
const LANGUAGES = ['node', 'python'];

/** Rounds per count: small counts are cheap, so they get more samples. */
function roundsFor(options, count) {
  if (count === 1) return rounds(options, 12, 4);
  if (count === 10) return rounds(options, 6, 2);
  return rounds(options, 5, 2);
}

async function sample(mode, root, dirs, env) {
  const result = await timedNode([DRIVER, mode, root, ...dirs], { env, timeoutMs: 60_000 });
  const last = result.stdout.trim().split('\n').pop() ?? '';
  if (result.code !== 0 || !last.startsWith('{')) {
    throw new Error(`driver ${mode} failed (status ${result.code}): ${result.stderr.trim()}`);
  }
  return JSON.parse(last).ms;
}

export async function run(options) {
  const root = tempRoot('ext-startup');
  const env = extensionEnv();
  const rows = [];
  try {
    const programs = writeTrivialPrograms(root.dir);
    for (const language of LANGUAGES) {
      for (const count of COUNTS) {
        const dirs = [];
        for (let i = 0; i < count; i++) {
          dirs.push(makeTrivial(root.dir, programs, language, `t-${language}-${count}-${i}`));
        }
        // Warm-up, once per language: the page cache for node/python and the driver's imports.
        if (count === COUNTS[0]) {
          for (const mode of ['host', 'raw-first-line', 'raw-ready']) {
            await sample(mode, root.dir, dirs, env);
          }
        }
        const samples = await interleave(roundsFor(options, count), {
          raw: () => sample('raw-first-line', root.dir, dirs, env),
          rawReady: () => sample('raw-ready', root.dir, dirs, env),
          host: () => sample('host', root.dir, dirs, env),
        });
        const readyMedian = medianOf(samples.rawReady);
        const hostMedian = medianOf(samples.host);
        rows.push(
          row(
            `${count} ${language} ext ready vs raw first line`,
            samples.raw,
            samples.host,
            TARGET,
            {
              rawReady: summarize(samples.rawReady),
              note:
                `${count} ${language}: raw spawn + full handshake (hello_ack written, ` +
                `read to ready) median ${readyMedian.toFixed(1)} ms; host / that = ` +
                `${(hostMedian / readyMedian).toFixed(2)}x`,
            },
          ),
        );
        process.stderr.write(`bench: ext-startup ${language} x${count} done\n`);
      }
    }
    await assertNoLeftovers(root.dir);
  } finally {
    root.cleanup();
  }
  return { name: 'ext-startup', rows };
}
