// Helpers shared by the bench suites: statistics, interleaving, timed child processes.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The repository root (bench/ is one level down). */
export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** The built CLI entry point; BENCH_ZOT_MAIN points the suites at another build (A/B runs). */
export const ZOT_MAIN =
  process.env.BENCH_ZOT_MAIN ??
  fileURLToPath(new URL('../../packages/zot/dist/bundle/main.js', import.meta.url));

/** Summary of a sample in milliseconds: median, p90, n (nearest-rank percentiles). */
export function summarize(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q) =>
    sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
  const round = (ms) => Math.round(ms * 1e4) / 1e4;
  return { median: round(median(sorted)), p90: round(at(0.9)), n: sorted.length };
}

function median(sorted) {
  const n = sorted.length;
  if (n === 0) return NaN;
  const mid = n >> 1;
  return n % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/**
 * Builds one result row. `target` is `{ maxRatio }` (subject median / baseline median),
 * `{ maxMs }` (an absolute bound on the subject median) or `{ maxAddedMs }` (a bound on subject
 * median - baseline median); the ratio is reported either way.
 */
export function row(metric, baselineSamples, subjectSamples, target, extra = {}) {
  const baseline = summarize(baselineSamples);
  const subject = summarize(subjectSamples);
  const ratio = Math.round((subject.median / baseline.median) * 1000) / 1000;
  let pass;
  let label;
  if (target.maxRatio !== undefined) {
    pass = ratio <= target.maxRatio;
    label = `ratio <= ${target.maxRatio}`;
  } else if (target.maxAddedMs !== undefined) {
    const added = Math.round((subject.median - baseline.median) * 1e4) / 1e4;
    pass = added <= target.maxAddedMs;
    label = `added ${added} <= ${target.maxAddedMs} ms`;
  } else {
    pass = subject.median < target.maxMs;
    label = `median < ${target.maxMs} ms`;
  }
  return { metric, unit: 'ms', baseline, subject, ratio, target: label, pass, ...extra };
}

/**
 * Runs `rounds` rounds of every function in `fns` (keyed by name), interleaved A B C A B C ...,
 * rotating the order each round so that no subject always runs first after a pause.
 * Each function returns one sample (ms) or an array of samples. Returns samples per name.
 */
export async function interleave(rounds, fns) {
  const names = Object.keys(fns);
  const samples = Object.fromEntries(names.map((name) => [name, []]));
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < names.length; i++) {
      const name = names[(round + i) % names.length];
      const value = await fns[name]();
      if (Array.isArray(value)) samples[name].push(...value);
      else samples[name].push(value);
    }
  }
  return samples;
}

/**
 * Spawns `node ...args` and resolves when it has exited and its stdio closed.
 * `onStdout(chunk, elapsedMs)` sees stdout as it arrives (elapsed since just before spawn).
 * Resolves `{ ms, started, code, stdout, stderr }`, `started` being the performance.now() of
 * just before the spawn (to time events seen elsewhere in this process, e.g. by a server);
 * rejects on a spawn error or a timeout.
 */
export function timedNode(args, { env, cwd = ROOT, onStdout, timeoutMs = 30_000 } = {}) {
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    const start = performance.now();
    const child = spawn(process.execPath, args, {
      cwd,
      env: env ?? process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`timed out after ${timeoutMs} ms: node ${args.join(' ')}`));
    }, timeoutMs);
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', (chunk) => {
      const elapsed = performance.now() - start;
      stdout += chunk;
      onStdout?.(chunk, elapsed);
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ ms: performance.now() - start, started: start, code, stdout, stderr });
    });
  });
}

/** Number of rounds: the full count, or the quick one under BENCH_QUICK. */
export function rounds(options, full, quick) {
  return options.quick ? quick : full;
}

/** GNU time (Debian package `time`), for peak RSS; the RSS rows are skipped where it is missing. */
export const TIME_BIN = '/usr/bin/time';

/**
 * Peak RSS in MiB of `node ...args` (GNU time's `%M`, in KiB). `check(stdout)` throws when the
 * run's output is wrong; a failed run rejects with the end of its stderr.
 */
export function peakRssMiB(args, { env, cwd = ROOT, check } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(TIME_BIN, ['-f', 'peak-rss-kib %M', process.execPath, ...args], {
      env: env ?? process.env,
      cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      const kib = /peak-rss-kib (\d+)/.exec(stderr)?.[1];
      if (code !== 0 || !kib) {
        reject(
          new Error(
            `${TIME_BIN} node ${args.join(' ')}: exit ${code}: ${stderr.trim().slice(-300)}`,
          ),
        );
        return;
      }
      try {
        check?.(stdout);
        resolve(Number(kib) / 1024);
      } catch (error) {
        reject(error);
      }
    });
  });
}

/**
 * A 95% interval of the ratio of medians (subject / baseline), by resampling each side's
 * samples 1,000 times (a percentile bootstrap with a fixed seed, so a run reproduces it): what
 * the ratio could have been from the same machine, to tell a miss from noise.
 */
export function ratioInterval(baselineSamples, subjectSamples, resamples = 1000) {
  let seed = 0x2545f491;
  const random = () => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return (seed >>> 0) / 2 ** 32;
  };
  const resampledMedian = (samples) => {
    const copy = Array.from(samples, () => samples[Math.floor(random() * samples.length)]);
    return median(copy.sort((a, b) => a - b));
  };
  const ratios = [];
  for (let i = 0; i < resamples; i++)
    ratios.push(resampledMedian(subjectSamples) / resampledMedian(baselineSamples));
  ratios.sort((a, b) => a - b);
  const at = (q) => Math.round(ratios[Math.floor(q * (ratios.length - 1))] * 1000) / 1000;
  return { low: at(0.025), high: at(0.975) };
}
