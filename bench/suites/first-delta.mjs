// First text delta: spawn to the first `text_delta` line of `zot --json` against a fake Anthropic
// server, versus a bare Node process that POSTs the same request with fetch to the same server.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { interleave, ROOT, row, rounds, timedNode, ZOT_MAIN } from '../lib/common.mjs';

const TARGET = { maxRatio: 1.2 };
const REPLY = { text: ['Hello', ' from', ' the', ' fake', ' model.'] };
const RAW = fileURLToPath(new URL('../support/raw-anthropic.mjs', import.meta.url));
const FAKE = join(ROOT, 'packages/zot/dist/test/support/fake-llm.js');

/**
 * Runs one child and returns ms from spawn to its first stdout line with a text_delta; pushes
 * ms from spawn to exit into `exits` when given.
 */
async function untilFirstDelta(fake, args, env, cwd, exits) {
  fake.script(REPLY);
  let seen = '';
  let first;
  const result = await timedNode(args, {
    env,
    cwd,
    onStdout(chunk, elapsed) {
      if (first !== undefined) return;
      seen += chunk;
      if (seen.includes('"type":"text_delta"')) first = elapsed;
    },
  });
  if (result.code !== 0 || first === undefined) {
    throw new Error(
      `node ${args.join(' ')}: exit ${result.code}, no text_delta seen\n${result.stderr.trim()}`,
    );
  }
  if (fake.pending() !== 0) throw new Error('the scripted reply was not consumed');
  exits?.push(result.ms);
  return first;
}

export async function run(options) {
  const { startFakeLlm } = await import(FAKE);
  const fake = await startFakeLlm();
  // An empty ZOT_HOME and an empty working directory: no extensions, settings or project files.
  const dir = mkdtempSync(join(tmpdir(), 'zot-bench-'));
  const home = join(dir, 'home');
  const cwd = join(dir, 'work');
  mkdirSync(home);
  mkdirSync(cwd);
  try {
    const zotArgs = [
      ZOT_MAIN,
      '--json',
      'hi',
      '--no-session',
      '--provider',
      'anthropic',
      '--base-url',
      fake.url,
      '--api-key',
      'k',
    ];
    const zotEnv = { ...process.env, ZOT_HOME: home };
    // One zot run first, to capture the exact request body the baseline will send.
    await untilFirstDelta(fake, zotArgs, zotEnv, cwd);
    const body = JSON.stringify(fake.requests[0].body);
    const rawArgs = [RAW, `${fake.url}/v1/messages`];
    const rawEnv = { ...process.env, ZOT_HOME: home, BENCH_BODY: body };
    const exits = { baseline: [], subject: [] };
    const fns = {
      baseline: () => untilFirstDelta(fake, rawArgs, rawEnv, cwd, exits.baseline),
      subject: () => untilFirstDelta(fake, zotArgs, zotEnv, cwd, exits.subject),
    };
    await interleave(rounds(options, 3, 1), fns);
    exits.baseline.length = 0;
    exits.subject.length = 0;
    const samples = await interleave(rounds(options, 30, 8), fns);
    return {
      name: 'first-delta',
      rows: [
        row(
          'spawn -> first text_delta (zot --json vs fetch)',
          samples.baseline,
          samples.subject,
          TARGET,
          {
            requestBytes: body.length,
          },
        ),
        // Report-only: the fetch baseline also pays for undici at exit, which zot no longer does.
        {
          ...row('spawn -> exit (zot --json vs fetch)', exits.baseline, exits.subject, TARGET),
          target: 'report only',
          pass: null,
        },
      ],
    };
  } finally {
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
