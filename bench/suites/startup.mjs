// Startup: wall time of `zot --version` and `zot --help` against `node -e 0`, spawned the same way.
import { interleave, row, rounds, timedNode, ZOT_MAIN } from '../lib/common.mjs';

const TARGET = { maxRatio: 1.6 };

async function timed(args, check) {
  const result = await timedNode(args);
  if (result.code !== 0) {
    throw new Error(`node ${args.join(' ')} exited ${result.code}: ${result.stderr.trim()}`);
  }
  check?.(result.stdout);
  return result.ms;
}

const expect = (what, test) => (stdout) => {
  if (!test(stdout)) throw new Error(`unexpected ${what} output: ${stdout.slice(0, 200)}`);
};

export async function run(options) {
  const fns = {
    baseline: () => timed(['-e', '0']),
    version: () =>
      timed(
        [ZOT_MAIN, '--version'],
        expect('--version', (out) => out.startsWith('zot ')),
      ),
    help: () =>
      timed(
        [ZOT_MAIN, '--help'],
        expect('--help', (out) => out.length > 100),
      ),
  };
  await interleave(rounds(options, 3, 1), fns); // warm-up: disk cache, compile cache
  const samples = await interleave(rounds(options, 30, 8), fns);
  return {
    name: 'startup',
    rows: [
      row('zot --version vs node -e 0', samples.baseline, samples.version, TARGET),
      row('zot --help vs node -e 0', samples.baseline, samples.help, TARGET),
    ],
  };
}
