// RPC input and output at the edges (design D22): the token is checked before anything
// starts, end of stdin lets work finish, a slow reader gets every byte, a departed one ends
// the run quietly.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import {
  FAST_TIMEOUTS,
  makeExtension,
  NODE_FIXTURE,
  processesMatching,
  waitForNoProcesses,
} from './support/extensions.js';
import { fakeLlmFlags, startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { exitOf, PipeReader, sleep } from './support/pipes.js';
import { jsonLines, makeSandbox, startZot } from './support/zot.js';

let llm: FakeLlm;
before(async () => {
  llm = await startFakeLlm();
});
after(() => llm.close());

const READER_PAUSE_MS = 1500;
const line = (value: unknown) => JSON.stringify(value) + '\n';
const endsWithDone = (reader: PipeReader) => /\{"type":"done"[^\n]*\}\n$/.test(reader.tail);

function setup(t: { after(fn: () => void): void }) {
  const box = makeSandbox();
  t.after(() => box.cleanup());
  const start = (args: string[] = [], env: Record<string, string> = {}) => {
    const child = startZot(['rpc', ...fakeLlmFlags(llm.url), ...args], {
      home: box.home,
      cwd: box.project,
      env: { ...FAST_TIMEOUTS, ...env },
    });
    return {
      child,
      exit: exitOf(child),
      stdout: new PipeReader(child.stdout),
      stderr: new PipeReader(child.stderr),
    };
  };
  return { box, root: join(box.home, 'extensions'), start };
}

test('a wrong token: exactly the unauthorized line, exit 1, nothing started', async (t) => {
  const { box, root, start } = setup(t);
  const marker = join(box.project, 'extension-started');
  // The extension marks its start before it even runs the fixture.
  makeExtension(
    root,
    'marked',
    'well-behaved',
    {},
    {
      manifest: {
        exec: 'sh',
        args: [
          '-c',
          ': > "$1"; shift; exec node "$@"',
          'sh',
          marker,
          NODE_FIXTURE,
          'well-behaved',
          JSON.stringify({ name: 'marked', tag: root }),
        ],
      },
    },
  );
  const sessionFile = join(box.project, 'session.jsonl');
  const bad = start(['--session', sessionFile], { ZOTCORE_RPC_TOKEN: 'secret' });
  bad.child.stdin.write(line({ id: 1, type: 'hello', token: 'wrong' }));
  assert.equal((await bad.exit).code, 1);
  assert.deepEqual(jsonLines(await bad.stdout.ended), [
    {
      type: 'response',
      id: 1,
      command: 'hello',
      success: false,
      error:
        'unauthorized: the first line must be {"type":"hello","token":...} with the ZOTCORE_RPC_TOKEN value',
      error_kind: 'unauthorized',
    },
  ]);
  assert.equal(await bad.stderr.ended, '');
  assert.equal(existsSync(marker), false, 'an extension was spawned before the token was checked');
  assert.equal(existsSync(sessionFile), false);
  assert.deepEqual(processesMatching(root), []);

  // The right token starts everything (and proves the marker works).
  const good = start(['--session', sessionFile], { ZOTCORE_RPC_TOKEN: 'secret' });
  good.child.stdin.write(line({ id: 1, type: 'hello', token: 'secret' }));
  await good.stdout.until((reader) => reader.text().includes('"command":"hello"'));
  assert.match(good.stdout.text(), /"success":true/);
  assert.equal(existsSync(marker), true);
  good.child.stdin.end();
  assert.equal((await good.exit).code, 0, await good.stderr.ended);
  assert.deepEqual(await waitForNoProcesses(root), []);
});

test('end of stdin: running and queued prompts finish, then zot exits 0', async (t) => {
  const { start } = setup(t);
  llm.script({ text: ['one ', 'two ', 'three'], chunkDelayMs: 200 }, { text: 'second answer' });
  const { child, exit, stdout, stderr } = start();
  child.stdin.end(
    line({ id: 'a', type: 'prompt', message: 'first' }) +
      line({ id: 'b', type: 'prompt', message: 'second' }),
  );
  assert.equal((await exit).code, 0, await stderr.ended);
  const events = jsonLines(await stdout.ended);
  const texts = events
    .filter((event) => event.type === 'assistant_message')
    .map((event) => (event.content as Array<{ text: string }>)[0]!.text);
  assert.deepEqual(texts, ['one two three', 'second answer']);
  assert.equal(events.filter((event) => event.type === 'done').length, 2);
  assert.equal(events.at(-1)!.type, 'done');
});

test('end of stdin with --no-yolo: questions nobody can answer are denied, the work finishes', async (t) => {
  const { start } = setup(t);
  const bash = (id: string) => ({
    toolCalls: [{ id, name: 'bash', args: { command: 'echo ran' } }],
  });
  // A question already asked when stdin ends, and one asked after.
  llm.script(bash('call_1'), bash('call_2'), { text: 'understood' });
  const { child, exit, stdout, stderr } = start(['--no-yolo']);
  child.stdin.write(line({ id: 'a', type: 'prompt', message: 'run it' }));
  await stdout.until((reader) => reader.text().includes('"confirm_request"'));
  child.stdin.end();
  assert.equal((await exit).code, 0, await stderr.ended);
  const events = jsonLines(await stdout.ended);
  assert.equal(events.filter((event) => event.type === 'confirm_request').length, 1);
  const results = events.filter((event) => event.type === 'tool_result');
  assert.deepEqual(
    results.map((result) => [result.id, result.is_error]),
    [
      ['call_1', true],
      ['call_2', true],
    ],
  );
  assert.doesNotMatch(JSON.stringify(results), /ran/);
  assert.equal(events.at(-1)!.type, 'done');
});

test('get_messages of a multi-megabyte transcript reaches a slow reader whole', async (t) => {
  const { start } = setup(t);
  const answer = '0123456789'.repeat(200_000);
  llm.script({ text: answer });
  const { child, exit, stdout, stderr } = start();
  child.stdin.write(line({ id: 'p', type: 'prompt', message: 'big' }));
  await stdout.until(endsWithDone);
  stdout.pause();
  const before = stdout.bytes;
  child.stdin.end(line({ id: 'm', type: 'get_messages' }));
  await sleep(READER_PAUSE_MS);
  const text = Buffer.from(await stdout.readAll())
    .subarray(before)
    .toString('utf8');
  assert.equal((await exit).code, 0, await stderr.ended);
  const responses = jsonLines(text);
  assert.equal(responses.length, 1);
  const messages = (responses[0]!.data as { messages: Array<{ content: Array<{ text: string }> }> })
    .messages;
  const received = messages[1]!.content[0]!.text;
  assert.ok(
    received === answer,
    `the answer came back with ${received.length} of ${answer.length} chars`,
  );
});

test('a reader that goes away ends RPC quietly: exit 0, work aborted, extensions stopped', async (t) => {
  const { root, start } = setup(t);
  makeExtension(root, 'bystander', 'well-behaved');
  llm.script({ text: ['0123456789'.repeat(30_000)], hang: true });
  const { child, exit, stdout, stderr } = start();
  // stdin stays open: only the broken stdout can end this run.
  child.stdin.write(line({ id: 'p', type: 'prompt', message: 'hang' }));
  // Once the model is streaming (a closed pipe is noticed at the next write).
  await stdout.until((reader) => reader.text().includes('"text_delta"'));
  child.stdout.destroy();
  assert.equal((await exit).code, 0, await stderr.ended);
  assert.doesNotMatch(await stderr.ended, /EPIPE|Unhandled|\n\s+at /);
  assert.deepEqual(await waitForNoProcesses(root), []);
});
