// Output and exit through real pipes (design D22): a slow reader gets every byte, a reader
// that goes away ends the run quietly with status 0, extensions included.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { FAST_TIMEOUTS, makeExtension, waitForNoProcesses } from './support/extensions.js';
import { fakeLlmFlags, startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { exitOf, PipeReader, sleep, until } from './support/pipes.js';
import { jsonLines, makeSandbox, startZot } from './support/zot.js';

let llm: FakeLlm;
before(async () => {
  llm = await startFakeLlm();
});
after(() => llm.close());

// 300,000 characters: with the newline print mode writes 300,001 bytes, far more than a pipe holds.
const BIG = '0123456789'.repeat(30_000);
const FLAGS = () => [...fakeLlmFlags(llm.url), '--no-session'];
// Long enough that zot, which finishes within milliseconds, would have exited meanwhile.
const READER_PAUSE_MS = 1500;

function setup(t: { after(fn: () => void): void }) {
  const box = makeSandbox();
  t.after(() => box.cleanup());
  const start = (args: string[], env: Record<string, string> = {}) => {
    const child = startZot([...args, ...FLAGS()], {
      home: box.home,
      cwd: box.project,
      env: { ...FAST_TIMEOUTS, ...env },
    });
    child.stdin.end();
    return child;
  };
  return { box, root: join(box.home, 'extensions'), start };
}

/** Starts zot, lets the model answer, leaves stdout unread for a while, then reads it all. */
async function runWithSlowReader(start: () => ReturnType<ReturnType<typeof setup>['start']>) {
  const requests = llm.requests.length;
  const child = start();
  const exit = exitOf(child);
  const stdout = new PipeReader(child.stdout, { paused: true });
  const stderr = new PipeReader(child.stderr);
  await until(() => llm.requests.length > requests);
  await sleep(READER_PAUSE_MS);
  return { stdout: await stdout.readAll(), ...(await exit), stderr: await stderr.ended };
}

test('print mode: a 300,001-byte answer reaches a slow reader whole, exit 0', async (t) => {
  const { start } = setup(t);
  llm.script({ text: BIG });
  const result = await runWithSlowReader(() => start(['-p', 'big']));
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout.length, BIG.length + 1);
  assert.ok(result.stdout === `${BIG}\n`);
});

test('JSON mode: a large answer reaches a slow reader whole and ends with done', async (t) => {
  const { start } = setup(t);
  llm.script({ text: BIG });
  const result = await runWithSlowReader(() => start(['--json', 'big']));
  assert.equal(result.code, 0, result.stderr);
  assert.ok(result.stdout.endsWith('\n'));
  const events = jsonLines(result.stdout);
  const message = events.find((event) => event.type === 'assistant_message');
  assert.equal((message?.content as Array<{ text: string }>)[0]!.text, BIG);
  assert.equal(events.at(-1)!.type, 'done');
});

test('SIGTERM with a slow reader: the output still ends with done, exit 143', async (t) => {
  const { start } = setup(t);
  llm.script({ text: [BIG], hang: true });
  const child = start(['--json', 'hang']);
  const exit = exitOf(child);
  const stdout = new PipeReader(child.stdout);
  const stderr = new PipeReader(child.stderr);
  await stdout.until((reader) => reader.text().includes('"text_delta"'));
  stdout.pause();
  child.kill('SIGTERM');
  await sleep(READER_PAUSE_MS);
  const text = await stdout.readAll();
  assert.equal((await exit).code, 143, await stderr.ended);
  const events = jsonLines(text);
  assert.deepEqual(
    events.filter((event) => event.type === 'turn_end'),
    [{ type: 'turn_end', stop: 'aborted' }],
  );
  assert.equal(events.at(-1)!.type, 'done');
});

/** No stack trace, no unhandled error event, nothing about EPIPE: a quiet end. */
function assertQuiet(stderr: string): void {
  assert.doesNotMatch(stderr, /EPIPE|Unhandled|\n\s+at /, stderr);
}

test('JSON mode: a reader that goes away ends the run quietly, exit 0, extensions stopped', async (t) => {
  const { root, start } = setup(t);
  makeExtension(root, 'bystander', 'well-behaved');
  // One big delta, then the model hangs: only the stop on EPIPE can end this run.
  llm.script({ text: [BIG], hang: true });
  const child = start(['--json', 'hang']);
  const exit = exitOf(child);
  const stderr = new PipeReader(child.stderr);
  // Once the model is streaming (a closed pipe is noticed at the next write).
  await new PipeReader(child.stdout).until((reader) => reader.text().includes('"text_delta"'));
  child.stdout.destroy();
  assert.equal((await exit).code, 0, await stderr.ended);
  assertQuiet(await stderr.ended);
  assert.deepEqual(await waitForNoProcesses(root), []);
});

test('print mode: stdout closed before the answer is written ends quietly, exit 0', async (t) => {
  const { start } = setup(t);
  llm.script({ text: BIG });
  const child = start(['-p', 'big']);
  child.stdout.destroy();
  const exit = exitOf(child);
  const stderr = new PipeReader(child.stderr);
  assert.equal((await exit).code, 0, await stderr.ended);
  assertQuiet(await stderr.ended);
});

test('a closed stderr does not crash zot: the answer still arrives, exit 0', async (t) => {
  const { start } = setup(t);
  llm.script({ text: 'still here' });
  // --no-yolo in print mode writes a warning to stderr before the prompt runs.
  const child = start(['-p', 'hi', '--no-yolo']);
  child.stderr.destroy();
  const exit = exitOf(child);
  const stdout = new PipeReader(child.stdout);
  assert.equal((await exit).code, 0);
  assert.equal(await stdout.ended, 'still here\n');
});
