// `npm run fuzz`: the fuzz targets for longer than `npm test` runs them.
//
//   npm run fuzz -- [--count N] [--seed S] [--max-bytes B] [--max-depth D] [target ...]
//
// Targets: decode, splitter, registration, rpc, session, shell, frames (what zot builds from tool
// arguments), unique (uniqueItems and enum on long arrays), cost (the estimate that keeps costly
// argument checks off the event loop never undercounts), tui (hostile text in every widget)
// (default: all of them) and e2e (only when named: it runs the built CLI). ZOT_FUZZ_COUNT and
// ZOT_FUZZ_SEED set the defaults for --count (2000 per target; e2e: 10) and --seed (random,
// printed). Exit status 1 on a failure.
import { runE2eCase } from './e2e.js';
import { randomSeed } from './prng.js';
import { formatFailure, LONG_LIMITS, runTarget, type FuzzRun } from './runner.js';
import { TARGETS } from './targets.js';

function parse(argv: string[]) {
  const options = {
    count: process.env.ZOT_FUZZ_COUNT ? Number(process.env.ZOT_FUZZ_COUNT) : undefined,
    seed: process.env.ZOT_FUZZ_SEED ? Number(process.env.ZOT_FUZZ_SEED) : randomSeed(),
    limits: { ...LONG_LIMITS },
    targets: [] as string[],
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const next = () => {
      const value = Number(argv[++i]);
      if (!Number.isSafeInteger(value) || value < 0) throw new Error(`${arg} needs a number`);
      return value;
    };
    if (arg === '--count') options.count = next();
    else if (arg === '--seed') options.seed = next();
    else if (arg === '--max-bytes') options.limits.maxBytes = next();
    else if (arg === '--max-depth') options.limits.maxDepth = next();
    else if (arg.startsWith('-')) throw new Error(`unknown option ${arg}`);
    else options.targets.push(arg);
  }
  const known = [...TARGETS.map((t) => t.name), 'e2e'];
  for (const name of options.targets) {
    if (!known.includes(name))
      throw new Error(`unknown target ${name} (known: ${known.join(', ')})`);
  }
  return options;
}

async function main(): Promise<number> {
  const options = parse(process.argv.slice(2));
  const names = options.targets.length > 0 ? options.targets : TARGETS.map((t) => t.name);
  console.log(`fuzz: seed ${options.seed}`);
  let failed = 0;
  for (const name of names) {
    const started = performance.now();
    if (name === 'e2e') {
      const count = options.count ?? 10;
      for (let i = 0; i < count; i++) {
        const problem = await runE2eCase((options.seed + i) >>> 0, options.limits);
        if (problem !== undefined) {
          failed++;
          console.log(problem);
        }
      }
      console.log(
        `e2e: ${count} runs of zot (${((performance.now() - started) / 1000).toFixed(1)} s)`,
      );
      continue;
    }
    const target = TARGETS.find((t) => t.name === name)!;
    const run: FuzzRun = {
      seed: options.seed,
      count: options.count ?? 2000,
      limits: options.limits,
      maxFailures: 5,
    };
    const failures = await runTarget(target, run);
    failures.forEach((failure) => console.log(formatFailure(failure)));
    failed += failures.length;
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    console.log(`${name}: ${run.count} cases, ${failures.length} distinct failures (${seconds} s)`);
  }
  return failed > 0 ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`fuzz: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(2);
  },
);
