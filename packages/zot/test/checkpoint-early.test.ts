// A turn's checkpoint starts as soon as the model begins to stream the turn's first tool call,
// not when the call is complete: the time it takes is spent while the arguments stream in. The
// scripted model sends the start of a call's arguments and then never finishes, so the only way
// a checkpoint can appear in the session file is the early start (no tool ever runs).
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fakeLlmFlags, startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { hangGuard } from './support/timing.js';
import { makeSandbox, startZot } from './support/zot.js';

let llm: FakeLlm;
before(async () => {
  llm = await startFakeLlm();
});
after(async () => {
  await llm.close();
});

/** The text of the one session file under `home`, once it exists. */
function sessionText(home: string): string {
  const root = join(home, 'sessions');
  if (!existsSync(root)) return '';
  for (const dir of readdirSync(root))
    for (const name of readdirSync(join(root, dir)))
      return readFileSync(join(root, dir, name), 'utf8');
  return '';
}

test('the checkpoint is written while the first tool call is still streaming', async (t) => {
  const box = makeSandbox();
  writeFileSync(join(box.project, 'a.txt'), 'one\n');
  llm.script({ toolCalls: [{ name: 'bash', args: { command: 'echo hi' } }], hang: true });
  const zot = startZot([...fakeLlmFlags(llm.url), '-p', 'run it'], {
    home: box.home,
    cwd: box.project,
  });
  const closed = new Promise((resolve) => zot.on('close', resolve));
  t.after(async () => {
    // Interrupted, zot ends the turn (its closing checkpoint) and exits; then its files go.
    zot.kill('SIGINT');
    const guard = setTimeout(() => zot.kill('SIGKILL'), hangGuard(10_000));
    await closed;
    clearTimeout(guard);
    rmSync(join(box.home, '..'), { recursive: true, force: true, maxRetries: 10 });
  });
  let stderr = '';
  zot.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const deadline = Date.now() + hangGuard(10_000);
  // The file is appended by the zot under test: read it again until the entry shows.
  while (
    !/"type":"checkpoint","time":"[^"]*","turn":1,"phase":"before"/.test(sessionText(box.home))
  ) {
    assert.ok(Date.now() < deadline, `no checkpoint while the call streamed\n${stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.doesNotMatch(sessionText(box.home), /"role":"tool"/, 'no tool ran');
});
