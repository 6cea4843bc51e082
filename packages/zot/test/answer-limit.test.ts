// A model's answer is capped (ZOT_STREAM_MAX_BYTES): past it zot stops reading the response,
// ends the turn with an error, and keeps in the session what had arrived.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fakeLlmFlags, startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { hangGuard } from './support/timing.js';
import { makeSandbox, runZot } from './support/zot.js';

let llm: FakeLlm;
before(async () => {
  llm = await startFakeLlm();
});
after(() => llm.close());

/** Resolves once the server saw the connection of `request` close (a reply ends with that). */
async function closed(request: { delivered?: boolean }): Promise<boolean> {
  const deadline = performance.now() + hangGuard(10_000);
  while (request.delivered === undefined) {
    assert.ok(performance.now() < deadline, 'the server saw the connection close');
    await new Promise((resolve) => setImmediate(resolve));
  }
  return request.delivered;
}

test('an answer past the cap ends the turn: error, partial text kept in the session, response not read on', async (t) => {
  const box = makeSandbox();
  t.after(() => box.cleanup());
  // 32 MB in 2 KB pieces: more than socket buffers hold, so an early close shows.
  llm.script({
    text: Array.from({ length: 16_000 }, (_, n) => `${n % 10}`.repeat(2048)),
    paced: true,
  });
  const out = await runZot(['-p', 'write a lot', ...fakeLlmFlags(llm.url)], {
    home: box.home,
    cwd: box.project,
    env: { ZOT_STREAM_MAX_BYTES: String(64 * 1024) },
  });
  assert.equal(out.code, 1, out.stderr);
  assert.equal(
    out.stderr.trim(),
    'zot: anthropic: the answer passed the 64 KB limit (text, thinking and tool arguments); ' +
      'stopped reading it and kept what had arrived (ZOT_STREAM_MAX_BYTES sets the limit)',
  );
  assert.equal(out.stdout, '');
  assert.equal(await closed(llm.requests.at(-1)!), false, 'zot stopped reading the response');

  const dir = join(box.home, 'sessions', readdirSync(join(box.home, 'sessions'))[0]!);
  const entries = readFileSync(join(dir, readdirSync(dir)[0]!), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
  const answer = entries.find((e) => e.type === 'message' && e.message.role === 'assistant');
  // 32 pieces fit in 64 KiB; the 33rd would pass it.
  const kept = Array.from({ length: 32 }, (_, n) => `${n % 10}`.repeat(2048)).join('');
  assert.deepEqual(answer?.message.content, [{ type: 'text', text: kept }]);
});
