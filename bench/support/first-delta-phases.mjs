// Diagnostic: where the time to the first text_delta goes, for zot --json and the raw fetch
// baseline. Stamps (ms since process start, medians over runs): preload (node bootstrap done),
// fetch called, response headers, first text_delta written. Usage: node bench/support/first-delta-phases.mjs [runs]
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { interleave, ROOT, summarize, timedNode, ZOT_MAIN } from '../lib/common.mjs';

const runs = Number(process.argv[2] ?? 15);
const PRELOAD = fileURLToPath(new URL('./trace-preload.mjs', import.meta.url));
const RAW = fileURLToPath(new URL('./raw-anthropic.mjs', import.meta.url));
const { startFakeLlm } = await import(join(ROOT, 'packages/zot/dist/test/support/fake-llm.js'));
const fake = await startFakeLlm();
const dir = mkdtempSync(join(tmpdir(), 'zot-bench-'));
const home = join(dir, 'home');
const cwd = join(dir, 'work');
mkdirSync(home);
mkdirSync(cwd);

async function marks(args, env) {
  fake.script({ text: ['Hello', ' there'] });
  const result = await timedNode(['--import', PRELOAD, ...args], { env, cwd });
  const line = result.stderr.split('\n').find((l) => l.startsWith('BENCH_MARKS '));
  if (!line) throw new Error(`no marks: ${result.stderr}`);
  return [JSON.parse(line.slice('BENCH_MARKS '.length))];
}

try {
  const zotArgs = [ZOT_MAIN, '--json', 'hi', '--no-session', '--provider', 'anthropic'];
  zotArgs.push('--base-url', fake.url, '--api-key', 'k');
  const env = { ...process.env, ZOT_HOME: home };
  await marks(zotArgs, env);
  const body = JSON.stringify(fake.requests[0].body);
  const rawEnv = { ...env, BENCH_BODY: body };
  const samples = await interleave(runs, {
    raw: () => marks([RAW, `${fake.url}/v1/messages`], rawEnv),
    zot: () => marks(zotArgs, env),
  });
  for (const [name, list] of Object.entries(samples)) {
    const keys = ['preload', 'fetchCalled', 'responseHeaders', 'firstDelta'];
    const cols = keys.map((k) => `${k} ${summarize(list.map((m) => m[k])).median.toFixed(1)}`);
    console.log(`${name.padEnd(4)} ${cols.join('  ')}`);
  }
} finally {
  await fake.close();
  rmSync(dir, { recursive: true, force: true });
}
