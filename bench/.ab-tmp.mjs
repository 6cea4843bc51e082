import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { interleave, summarize, timedNode } from './lib/common.mjs';
const { startFakeLlm } = await import('/tmp/zcur/packages/zot/dist/test/support/fake-llm.js');
const fake = await startFakeLlm();
const home = mkdtempSync(join(tmpdir(), 'zb-'));
const env = { ...process.env, ZOT_HOME: home };
async function first(args, e) {
  fake.script({ text: ['Hello', ' there'] });
  let f; let seen = '';
  const r = await timedNode(args, { env: e, onStdout(c, t) { if (f === undefined) { seen += c; if (seen.includes('"type":"text_delta"')) f = t; } } });
  if (f === undefined) throw new Error(r.stderr);
  return f;
}
const zot = (main) => [main, '--json', 'hi', '--no-session', '--provider', 'anthropic', '--base-url', fake.url, '--api-key', 'k'];
await first(zot('/tmp/zcur/packages/zot/dist/src/main.js'), env);
const rawEnv = { ...env, BENCH_BODY: JSON.stringify(fake.requests[0].body) };
const fns = {
  raw: () => first(['/work/main/bench/support/raw-anthropic.mjs', `${fake.url}/v1/messages`], rawEnv),
  current: () => first(zot('/tmp/zcur/packages/zot/dist/src/main.js'), env),
  noAjv: () => first(zot('/tmp/zexp-ajv/packages/zot/dist/src/main.js'), env),
  noAjvNoDiff: () => first(zot('/tmp/zexp/packages/zot/dist/src/main.js'), env),
};
await interleave(2, fns);
const s = await interleave(Number(process.argv[2] ?? 25), fns);
const base = summarize(s.raw).median;
for (const [k, v] of Object.entries(s)) { const m = summarize(v); console.log(k.padEnd(12), m.median.toFixed(1), 'p90', m.p90.toFixed(1), (m.median / base).toFixed(2) + 'x'); }
await fake.close();
