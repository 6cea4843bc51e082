// What `zot rpc` does with its input when the client misbehaves: stops reading requests while
// their answers are not read (memory stays bounded), and refuses lines that are not UTF-8.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { ZotRpc } from './support/rpc-client.js';
import { deadline, hangGuard } from './support/timing.js';
import { makeSandbox } from './support/zot.js';

let llm: FakeLlm;
const box = makeSandbox();
before(async () => {
  llm = await startFakeLlm();
});
after(async () => {
  await llm.close();
  box.cleanup();
});

const start = () =>
  ZotRpc.start(['--base-url', llm.url, '--api-key', 'k', '--no-session'], {
    home: box.home,
    cwd: box.project,
  });

/** Resident memory of a process in bytes (Linux). */
function rssOf(pid: number): number {
  const line = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  assert.ok(line, `no VmRSS for ${pid}`);
  return Number(line[1]) * 1024;
}

const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

test('with stdout unread, zot stops reading requests: memory stays bounded, all are answered later', async (t) => {
  const client = start();
  t.after(() => client.child.kill('SIGKILL'));
  const answer = 'x'.repeat(900_000);
  llm.script({ text: answer });
  assert.equal((await client.request('prompt', { message: 'big' })).success, true);
  await client.doneCount(1);
  // Read one answer as a client should: the baseline, with everything it allocates.
  const one = await client.requestRaw({ id: 'warm', type: 'get_messages' });
  const answerBytes = Buffer.byteLength(JSON.stringify(one));
  assert.ok(answerBytes > 900_000);
  const baseline = rssOf(client.child.pid!);

  // Then stop reading and send many requests, more bytes than the pipes and buffers hold.
  client.child.stdout.pause();
  const count = 100;
  const pad = 'p'.repeat(40_000); // 4 MB of requests in all
  const ids = Array.from({ length: count }, (_, n) => `q${n}-${pad}`);
  // Answers are counted, not kept (90 MB of them).
  const answered = new Set<unknown>();
  let allAnswered: () => void = () => undefined;
  const everyAnswer = new Promise<void>((resolve) => (allAnswered = resolve));
  client.keep = (line) => {
    if (line.type !== 'response' || line.command !== 'get_messages') return true;
    answered.add(line.id);
    if (answered.size === count) allAnswered();
    return false;
  };
  const accepted = client.child.stdin.write(
    ids.map((id) => JSON.stringify({ id, type: 'get_messages' }) + '\n').join(''),
  );
  assert.equal(accepted, false, 'the requests fill the pipe');
  // Unbounded, zot reads them all (the pipe drains) and queues every answer (each chunk of
  // requests it reads adds megabytes); bounded, it stops after an answer or two and the pipe
  // stays full. Either way, look after a while.
  const readAll = await new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), deadline(5, 1000));
    client.child.stdin.once('drain', () => (clearTimeout(timer), resolve(true)));
  });
  const grown = rssOf(client.child.pid!) - baseline;
  t.diagnostic(
    `answer ${mib(answerBytes)}, baseline RSS ${mib(baseline)}, grown by ${mib(grown)} ` +
      `with ${count} requests unanswered`,
  );
  assert.equal(readAll, false, 'zot read every request while nobody read its answers');
  assert.ok(
    grown < (count * answerBytes) / 4,
    `RSS grew by ${mib(grown)} (${count} answers of ${mib(answerBytes)} were asked for)`,
  );

  // Reading again: every request is answered, and zot keeps serving.
  const t0 = performance.now();
  client.child.stdout.resume();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, hangGuard(60_000))));
  await Promise.race([everyAnswer, timeout]);
  clearTimeout(timer);
  t.diagnostic(`read back in ${Math.round(performance.now() - t0)} ms`);
  assert.deepEqual(
    ids.filter((id) => !answered.has(id)),
    [],
  );
  assert.equal((await client.request('ping')).success, true);
  assert.equal((await client.close()).code, 0);
});

test('a request line that is not UTF-8 gets a named error response; the next is served', async (t) => {
  const client = start();
  t.after(() => client.child.kill('SIGKILL'));
  // A valid request but for one byte: a lone continuation byte inside the id.
  const bad = Buffer.concat([
    Buffer.from('{"id":"u1","type":"ping","note":"'),
    Buffer.from([0x80, 0xff]),
    Buffer.from('"}\n'),
  ]);
  client.child.stdin.write(bad);
  client.child.stdin.write(Buffer.from([0xc3, 0x28, 0x0a])); // no JSON at all
  const pong = await client.requestRaw({ id: 'after', type: 'ping' });
  assert.equal(pong.success, true);
  const refused = client.lines.filter((line) => line.type === 'response' && line.id !== 'after');
  assert.deepEqual(
    refused.map((line) => [line.id, line.command, line.success, line.error]),
    [
      [
        'u1',
        'ping',
        false,
        `line of ${bad.length - 1} bytes is not valid UTF-8; requests are JSON in UTF-8`,
      ],
      [
        undefined,
        'unknown',
        false,
        'line of 2 bytes is not valid UTF-8; requests are JSON in UTF-8',
      ],
    ],
  );
  assert.equal((await client.close()).code, 0);
});
