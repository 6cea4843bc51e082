import assert from 'node:assert/strict';
import { appendFileSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { makeSandbox, runZot } from './support/zot.js';

let llm: FakeLlm;
before(async () => {
  llm = await startFakeLlm();
});
after(() => llm.close());

function sessionFiles(home: string): string[] {
  const root = join(home, 'sessions');
  if (!existsSync(root)) return [];
  return readdirSync(root).flatMap((dir) =>
    readdirSync(join(root, dir)).map((name) => join(root, dir, name)),
  );
}
const entries = (path: string) =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { type: string; message?: { role: string } });

test('print runs record a session; --continue resumes it; --session picks a file', async (t) => {
  const box = makeSandbox();
  t.after(() => box.cleanup());
  const run = (args: string[]) =>
    runZot([...args, '--base-url', llm.url, '--api-key', 'k'], {
      home: box.home,
      cwd: box.project,
    });
  llm.script({ text: 'first' });
  assert.equal((await run(['-p', 'remember 42'])).code, 0);
  const [file] = sessionFiles(box.home);
  assert.ok(file, 'a session file was written');
  assert.deepEqual(
    entries(file!).map((e) => e.message?.role ?? e.type),
    ['session', 'user', 'usage', 'assistant'],
  );

  llm.script({ text: 'second' });
  const resumed = await run(['-p', '-c', 'what number?']);
  assert.equal(resumed.code, 0, resumed.stderr);
  const sent = llm.requests
    .at(-1)!
    .body.messages.map(
      (m: { role: string; content: Array<{ text: string }> }) => m.content[0]!.text,
    );
  assert.deepEqual(sent, ['remember 42', 'first', 'what number?']);
  assert.equal(sessionFiles(box.home).length, 1);
  assert.equal(entries(file!).length, 7);

  const explicit = join(box.project, 'my-session.jsonl');
  llm.script({ text: 'third' });
  assert.equal((await run(['-p', '--session', explicit, 'hello'])).code, 0);
  assert.equal(entries(explicit).length, 4);
});

test('a session whose last line was cut resumes with a warning and stays appendable', async (t) => {
  const box = makeSandbox();
  t.after(() => box.cleanup());
  const run = (args: string[]) =>
    runZot([...args, '--base-url', llm.url, '--api-key', 'k'], {
      home: box.home,
      cwd: box.project,
    });
  llm.script({ text: 'kept' });
  await run(['-p', 'before the crash']);
  const [file] = sessionFiles(box.home);
  appendFileSync(file!, '{"type":"message","message":{"role":"assistant","content":[{"type":"te');
  llm.script({ text: 'after' });
  const resumed = await run(['-p', '-c', 'again']);
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.match(resumed.stderr, /skipped unreadable trailing line 5/);
  const sent = llm.requests
    .at(-1)!
    .body.messages.map((m: { content: Array<{ text: string }> }) => m.content[0]!.text);
  assert.deepEqual(sent, ['before the crash', 'kept', 'again']);
  // New entries start on a fresh line: everything after the cut parses.
  const lines = readFileSync(file!, 'utf8').split('\n').filter(Boolean);
  assert.equal(lines.length, 8);
  assert.doesNotThrow(() => lines.slice(5).forEach((line) => JSON.parse(line)));
});

test('no session file for --no-session or for runs that never prompted', async (t) => {
  const box = makeSandbox();
  t.after(() => box.cleanup());
  const run = (args: string[]) => runZot(args, { home: box.home, cwd: box.project });
  const flags = ['--base-url', llm.url, '--api-key', 'k'];
  const asked = llm.requests.length;
  llm.script({ text: 'x' });
  const quiet = await run(['-p', 'hi', '--no-session', ...flags]);
  // The run did its work (so there was a session to write) and wrote none.
  assert.equal(quiet.code, 0, quiet.stderr);
  assert.equal(quiet.stdout, 'x\n');
  assert.equal(llm.requests.length, asked + 1, 'the prompt reached the model');
  assert.deepEqual(sessionFiles(box.home), []);

  const failed = await run(['-p', 'hi']);
  assert.equal(failed.code, 1);
  assert.match(failed.stderr, /no API key for anthropic/, 'it stopped before the prompt');
  assert.deepEqual(sessionFiles(box.home), []);

  // The same run without --no-session records one where sessionFiles looks.
  llm.script({ text: 'y' });
  const recorded = await run(['-p', 'hi', ...flags]);
  assert.equal(recorded.code, 0, recorded.stderr);
  assert.equal(sessionFiles(box.home).length, 1);
});

test('a turn that fills 85% of the context window triggers compaction, recorded in the session', async (t) => {
  const box = makeSandbox();
  t.after(() => box.cleanup());
  writeFileSync(
    join(box.home, 'models.json'),
    JSON.stringify([{ provider: 'anthropic', id: 'tiny', contextWindow: 1000, maxTokens: 100 }]),
  );
  const run = (args: string[]) =>
    runZot([...args, '--model', 'tiny', '--base-url', llm.url, '--api-key', 'k'], {
      home: box.home,
      cwd: box.project,
    });
  llm.script({ text: 'a1', usage: { input: 100, output: 10 } });
  await run(['-p', 'q1']);
  llm.script({ text: 'a2', usage: { input: 800, output: 60 } }, { text: 'THE SUMMARY' });
  const result = await run(['--json', '-c', 'q2']);
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /"type":"compact_done","summary":"THE SUMMARY"/);
  const [file] = sessionFiles(box.home);
  assert.ok(entries(file!).some((e) => e.type === 'compaction'));
  llm.script({ text: 'a3' });
  await run(['-p', '-c', 'q3']);
  // Anthropic merges the summary and the next user message into one user turn.
  const sent = llm.requests
    .at(-1)!
    .body.messages.flatMap((m: { content: Array<{ text: string }> }) =>
      m.content.map((block) => block.text),
    );
  assert.match(sent[0], /THE SUMMARY/);
  assert.deepEqual(sent.slice(1), ['q2', 'a2', 'q3']);
});
