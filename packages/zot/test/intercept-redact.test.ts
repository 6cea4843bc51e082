// Redaction by an assistant_message interceptor holds everywhere the text goes: events, RPC
// get_messages, later model requests, compaction, the extension's log. Only the session file
// (0600, as the audit record) keeps the original.
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { FAST_TIMEOUTS, expectNoLeftovers, makeExtension } from './support/extensions.js';
import { fakeLlmFlags, startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { ZotRpc } from './support/rpc-client.js';
import { jsonLines, makeSandbox, runZot } from './support/zot.js';

const SECRET = 'sk-SECRET';

let llm: FakeLlm;
before(async () => {
  llm = await startFakeLlm();
});
after(() => llm.close());

const modeOf = (path: string) => statSync(path).mode & 0o777;

/**
 * A sandbox with the fixture extension that redacts SECRET from assistant text, from the
 * transcript too ("scope": "transcript", protocol version 2).
 */
function setup() {
  const box = makeSandbox();
  makeExtension(join(box.home, 'extensions'), 'redactor', 'well-behaved', {
    hello_extra: { protocol_version: 2 },
    subscribe: { intercept: ['assistant_message'] },
    intercept_responses: {
      assistant_message: { redact: SECRET, reason: 'a secret', scope: 'transcript' },
    },
  });
  return box;
}

const secretReply = {
  thinking: `The user wants ${SECRET}; I will share it.`,
  text: ['Your key is sk-', 'SECRET.'],
};

test('JSON mode: thinking and text are redacted in events, later requests and the log; the session file keeps the audit', async (t) => {
  const box = setup();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  // A log directory and file left behind with wider modes are tightened.
  const logs = join(box.home, 'logs');
  mkdirSync(logs, { mode: 0o755 });
  chmodSync(logs, 0o755);
  const logFile = join(logs, 'ext-redactor.log');
  writeFileSync(logFile, 'an older run\n', { mode: 0o644 });
  chmodSync(logFile, 0o644);

  const first = llm.requests.length;
  llm.script(
    { ...secretReply, toolCalls: [{ id: 'r1', name: 'bash', args: { command: 'true' } }] },
    { thinking: `Done; ${SECRET} again.`, text: `All set, ${SECRET}` },
    { text: 'third' },
  );
  const run = (args: string[]) =>
    runZot([...args, ...fakeLlmFlags(llm.url), '--reasoning', 'high'], {
      home: box.home,
      cwd: box.project,
      env: FAST_TIMEOUTS,
    });
  const result = await run(['--json', 'key?']);
  assert.equal(result.code, 0, result.stderr);
  assert.ok(!result.stdout.includes(SECRET), result.stdout);
  const events = jsonLines(result.stdout);
  // Nothing of the message streams while it is intercepted (design D15): not its text, not
  // its thinking, not its tool arguments (stream-detail.test.ts shows they stream otherwise).
  assert.deepEqual(
    events.filter((e) => ['text_delta', 'thinking_delta', 'tool_call_delta'].includes(e.type)),
    [],
  );
  assert.ok(events.some((e) => e.type === 'tool_call'));
  const shown = events.filter((e) => e.type === 'assistant_message').map((e) => e.content);
  assert.deepEqual(shown[0], [
    { type: 'thinking', thinking: 'The user wants [redacted]; I will share it.' },
    { type: 'text', text: 'Your key is [redacted].' },
    { type: 'tool_call', id: 'r1', name: 'bash', args: { command: 'true' } },
  ]);
  assert.deepEqual(shown[1], [
    { type: 'thinking', thinking: 'Done; [redacted] again.' },
    { type: 'text', text: 'All set, [redacted]' },
  ]);
  const audit = events.filter((e) => e.type === 'intercept');
  assert.equal(audit.length, 4, 'one record per rewritten thinking block and text');

  // The continuation within the prompt sends the redacted message back; a rewritten thinking
  // block has lost its signature, so it is left out and thinking is off for that one request.
  const continuation = llm.requests[first + 1]!.body;
  assert.ok(!JSON.stringify(continuation).includes(SECRET));
  assert.match(JSON.stringify(continuation.messages), /Your key is \[redacted\]\./);
  assert.equal(continuation.thinking, undefined);

  // A later prompt on the same session (-c) sends only the redacted transcript.
  const again = await run(['-p', '-c', 'again']);
  assert.equal(again.code, 0, again.stderr);
  assert.equal(again.stdout, 'third\n');
  const later = llm.requests.at(-1)!.body;
  assert.ok(!JSON.stringify(later).includes(SECRET));
  assert.match(JSON.stringify(later.messages), /All set, \[redacted\]/);

  // The log: tightened modes, hashes instead of the original.
  const log = readFileSync(logFile, 'utf8');
  assert.ok(!log.includes(SECRET), log);
  assert.match(log, /^an older run$/m);
  assert.match(log, /intercept assistant_message: replace_text sha256=[0-9a-f]{64} chars=\d+ ->/);
  assert.equal(modeOf(logFile), 0o600);
  assert.equal(modeOf(logs), 0o700);

  // The session file: 0600 in a 0700 directory; messages redacted, the audit keeps originals.
  const sessions = join(box.home, 'sessions');
  const [sub] = readdirSync(sessions);
  const dir = join(sessions, sub!);
  const [name] = readdirSync(dir);
  const file = join(dir, name!);
  assert.equal(modeOf(file), 0o600);
  assert.equal(modeOf(dir), 0o700);
  const entries = readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
  const messages = entries.filter((e) => e.type === 'message');
  assert.ok(!JSON.stringify(messages).includes(SECRET));
  const originals = entries.filter((e) => e.type === 'intercept').map((e) => e.before);
  assert.ok(originals.includes(`The user wants ${SECRET}; I will share it.`));
  assert.ok(originals.includes(`Your key is ${SECRET}.`));
});

test('RPC: get_messages, compaction and compact_done carry only the redacted text', async (t) => {
  const box = setup();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  const client = ZotRpc.start(fakeLlmFlags(llm.url), {
    home: box.home,
    cwd: box.project,
    env: FAST_TIMEOUTS,
  });
  llm.script(secretReply, { text: 'a2' }, { text: 'a3' }, { text: `SUMMARY: key ${SECRET}` });
  for (const message of ['q1', 'q2', 'q3']) await client.request('prompt', { message });
  await client.doneCount(3);
  const listed = await client.request('get_messages');
  const text = JSON.stringify(listed.data);
  assert.ok(!text.includes(SECRET), text);
  assert.match(text, /The user wants \[redacted\]/);
  assert.match(text, /Your key is \[redacted\]\./);

  const from = client.lines.length;
  await client.request('compact');
  const done = await client.waitFor((line) => line.type === 'compact_done', 10_000, from);
  // The summariser read the redacted transcript, and its own answer is screened like any other.
  const summaryRequest = JSON.stringify(llm.requests.at(-1)!.body);
  assert.ok(!summaryRequest.includes(SECRET), summaryRequest);
  assert.match(summaryRequest, /Your key is \[redacted\]\./);
  assert.equal(done.summary, 'SUMMARY: key [redacted]');
  const compacted = await client.request('get_messages');
  assert.match(JSON.stringify(compacted.data), /SUMMARY: key \[redacted\]/);
  await client.close();
  assert.ok(!JSON.stringify(client.lines).includes(SECRET));
  // A log created fresh (the child's stderr and zot's lines) is private from the start.
  const logs = join(box.home, 'logs');
  const log = join(logs, 'ext-redactor.log');
  assert.equal(modeOf(logs), 0o700);
  assert.equal(modeOf(log), 0o600);
  assert.ok(!readFileSync(log, 'utf8').includes(SECRET));
});
