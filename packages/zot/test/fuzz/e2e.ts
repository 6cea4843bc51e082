// End-to-end fuzz: a fixture extension writes a stream of adversarial lines and frames right
// after the handshake, then zot (the built CLI, JSON mode, fake LLM) must carry on as if nothing
// happened: the marker notify delivered, the prompt answered, exit 0, no stack trace.
import { decodeFromExtension } from '@zot/protocol';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FAST_TIMEOUTS, makeExtension, waitForNoProcesses } from '../support/extensions.js';
import { fakeLlmFlags, startFakeLlm } from '../support/fake-llm.js';
import { hangGuard } from '../support/timing.js';
import { jsonLines, makeSandbox, runZot } from '../support/zot.js';
import { adversarialLine, toBytes } from './lines.js';
import { Rng } from './prng.js';
import { subscribeLine, toolLine } from './registration-lines.js';
import { truncate } from './runner.js';
import { EXTENSION_FRAMES, fieldsOf } from './samples.js';
import type { Limits } from './values.js';

const FIELDS = fieldsOf(EXTENSION_FRAMES);
const MAX_STREAM_BYTES = 1024 * 1024;

/** True when the host would take the line as `ready`, which would start the prompt early. */
function isReady(text: string): boolean {
  const decoded = decodeFromExtension(text);
  return decoded.ok && decoded.frame.type === 'ready';
}

/**
 * The bytes the fixture writes: up to 200 adversarial lines (at most 1 MiB in all), each
 * ending in LF or CRLF. Lines the host would decode as `ready` are left out, so that every
 * line is read before the prompt starts and the run is deterministic.
 */
export function e2eStream(seed: number, limits: Limits): Buffer {
  const rng = new Rng(seed);
  const parts: Buffer[] = [];
  let total = 0;
  for (let n = rng.range(50, 200); n > 0; n--) {
    const line = rng
      .weighted<string>([
        [6, () => adversarialLine(rng, EXTENSION_FRAMES, limits, FIELDS)],
        [2, () => toolLine(rng, limits)],
        [1, () => subscribeLine(rng, limits)],
      ])
      .replace(/\n/g, '');
    const bytes = toBytes(rng, line);
    if (isReady(line) || isReady(bytes.toString('utf8'))) continue;
    if (total + bytes.length > MAX_STREAM_BYTES) continue;
    total += bytes.length + 2;
    parts.push(bytes, Buffer.from(rng.chance(0.8) ? '\n' : '\r\n'));
  }
  return Buffer.concat(parts);
}

const STACK_FRAME = /^\s+at .+:\d+:\d+\)?$/m;

/** One run of zot against the stream of `seed`. Returns a report of what broke, if anything. */
export async function runE2eCase(seed: number, limits: Limits): Promise<string | undefined> {
  const box = makeSandbox();
  const llm = await startFakeLlm();
  try {
    const replay = join(box.project, 'stream.jsonl');
    writeFileSync(replay, e2eStream(seed, limits));
    const marker = `fuzz-marker-${seed}`;
    makeExtension(join(box.home, 'extensions'), 'fuzz', 'replay', {
      replay_file: replay,
      register_early: true,
      commands: [
        {
          name: 'fuzzend',
          // `emit`: frames the fixture sends before its answer.
          response: {
            action: 'prompt',
            prompt: 'go',
            emit: [{ type: 'notify', level: 'info', message: marker }],
          },
        },
      ],
    });
    llm.script({ text: 'fuzz ok' });
    const result = await runZot(['--json', '/fuzzend', ...fakeLlmFlags(llm.url), '--no-session'], {
      home: box.home,
      cwd: box.project,
      // The whole stream is read between hello_ack and ready: a hang guard, not a test of speed.
      env: { ...FAST_TIMEOUTS, ZOT_EXT_READY_TIMEOUT_MS: String(hangGuard(10_000)) },
    });
    const problems: string[] = [];
    if (result.code !== 0) problems.push(`exit status ${result.code} (signal ${result.signal})`);
    let events: ReturnType<typeof jsonLines> = [];
    try {
      events = jsonLines(result.stdout);
    } catch (error) {
      problems.push(`stdout is not JSON lines: ${(error as Error).message}`);
    }
    const notified = events.some(
      (e) => e.type === 'ext_notify' && e.extension === 'fuzz' && e.message === marker,
    );
    if (!notified) problems.push('the marker notify was not delivered');
    if (!result.stdout.includes('fuzz ok')) problems.push('the prompt was not answered');
    if (STACK_FRAME.test(result.stderr) || /Maximum call stack/.test(result.stderr)) {
      problems.push('a stack trace on stderr');
    }
    const left = await waitForNoProcesses(box.home);
    if (left.length > 0) problems.push(`processes outlived zot: ${left.join('; ')}`);
    if (problems.length === 0) return undefined;
    const log = join(box.home, 'logs', 'ext-fuzz.log');
    return [
      `fuzz e2e: ${problems.join('; ')}`,
      `  seed: ${seed}`,
      `  reproduce: npm run fuzz -- --seed ${seed} --count 1 --max-bytes ${limits.maxBytes} --max-depth ${limits.maxDepth} e2e`,
      `  stderr: ${truncate(result.stderr, 2000)}`,
      `  stdout (last 1000 chars): ${truncate(result.stdout.slice(-1000), 1000)}`,
      `  extension log (last 2000 chars): ${existsSync(log) ? truncate(readFileSync(log, 'utf8').slice(-2000), 2000) : '(none)'}`,
    ].join('\n');
  } finally {
    await llm.close();
    box.cleanup();
  }
}
