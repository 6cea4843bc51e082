// Extensions observing turn_start hear of a turn only once the turn_start interceptors let it
// through: a blocked turn never happened for them (neither turn_start nor turn_end).
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { expectNoLeftovers, FAST_TIMEOUTS, makeExtension } from './support/extensions.js';
import { fakeLlmFlags, startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { jsonLines, makeSandbox, runZot } from './support/zot.js';

let llm: FakeLlm;
before(async () => {
  llm = await startFakeLlm();
});
after(() => llm.close());

const events = (file: string) =>
  (existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n').filter(Boolean) : [])
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((frame) => frame.type === 'event')
    .map((frame) => frame.event);

function setup(t: { after(fn: () => void): void }) {
  const box = makeSandbox();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  const root = join(box.home, 'extensions');
  const record = join(box.project, 'recorder.jsonl');
  // Loaded first, so it would hear a turn_start before the gate is even asked.
  makeExtension(root, 'a-recorder', 'well-behaved', {
    record,
    subscribe: { events: ['session_start', 'turn_start', 'turn_end'] },
  });
  const run = (args: string[]) =>
    runZot([...args, ...fakeLlmFlags(llm.url), '--no-session'], {
      home: box.home,
      cwd: box.project,
      env: FAST_TIMEOUTS,
    });
  return { root, record, run };
}

test('a turn blocked by a turn_start interceptor is never announced to observers', async (t) => {
  const { root, record, run } = setup(t);
  makeExtension(root, 'b-gate', 'well-behaved', {
    subscribe: { intercept: ['turn_start'] },
    intercept_responses: { turn_start: { block: true, reason: 'closed' } },
  });
  const before = llm.requests.length;
  const result = await run(['--json', 'work']);
  assert.equal(result.code, 1);
  const types = jsonLines(result.stdout).map((e) => e.type);
  assert.ok(types.includes('turn_start'), 'front ends still see the attempt');
  assert.equal(llm.requests.length, before);
  assert.deepEqual(events(record), ['session_start'], 'no turn_start, no turn_end');
});

test('an allowed turn is announced after its interceptors, with its turn_end', async (t) => {
  const { root, record, run } = setup(t);
  const gate = join(root, '..', 'gate.jsonl');
  makeExtension(root, 'b-gate', 'well-behaved', {
    record: gate,
    subscribe: { intercept: ['turn_start'] },
  });
  llm.script({ text: 'ok' });
  const result = await run(['-p', 'work']);
  assert.equal(result.code, 0, result.stderr);
  assert.deepEqual(events(record), ['session_start', 'turn_start', 'turn_end']);
  const asked = readFileSync(gate, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
  assert.ok(asked.some((f) => f.type === 'event_intercept' && f.event === 'turn_start'));
});
