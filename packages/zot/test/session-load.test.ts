// Session files are untrusted input: a crash mid-tool, a FIFO, a device, a huge file, corrupt
// lines or a dangling symlink must neither hang zot nor poison every later prompt.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  truncateSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { fakeLlmFlags, startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { ZotRpc } from './support/rpc-client.js';
import { collect, makeSandbox, runZot, startZot } from './support/zot.js';
import { sessionHeader, sessionLine as line } from '../src/session/testing/session-lines.js';

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

type Box = ReturnType<typeof makeSandbox>;
const run = (box: Box, args: string[]) =>
  runZot([...args, ...fakeLlmFlags(llm.url)], { home: box.home, cwd: box.project });

const header = sessionHeader('/x');
const message = (role: string, content: unknown[]) =>
  line({ type: 'message', message: { role, content, time: 't' } });
const text = (value: string) => ({ type: 'text', text: value });

/** The texts and tool results of the last request, one string per block. */
function sentBlocks(): string[] {
  return llm.requests
    .at(-1)!
    .body.messages.flatMap((m: { role: string; content: Array<Record<string, unknown>> }) =>
      m.content.map((block) =>
        block.type === 'text'
          ? `${m.role}:${block.text}`
          : block.type === 'tool_result'
            ? `result:${block.tool_use_id}:${JSON.stringify(block.content)}`
            : `${m.role}:${block.type}`,
      ),
    );
}

test('a session killed mid-tool resumes: the dangling call gets an interrupted result', async (t) => {
  const box = makeSandbox();
  t.after(() => box.cleanup());
  const pidFile = join(box.project, 'sleeper.pid');
  let sleeper = 0;
  // The bash tool's process group outlives zot's SIGKILL; end it (the pid file goes with the box).
  t.after(() => {
    try {
      if (sleeper > 1) process.kill(-sleeper, 'SIGKILL');
    } catch {
      // already gone
    }
  });
  llm.script({
    toolCalls: [
      {
        id: 'toolu_sleep',
        name: 'bash',
        args: { command: `echo $$ > ${pidFile}; exec sleep 600` },
      },
    ],
  });
  const child = startZot(['-p', 'run the long thing', ...fakeLlmFlags(llm.url)], {
    home: box.home,
    cwd: box.project,
  });
  const exited = collect(child, undefined, 120_000);
  // Kill zot once the tool call is on disk and the tool is running.
  for (let i = 0; ; i++) {
    const [file] = sessionFiles(box.home);
    const pid = existsSync(pidFile) ? readFileSync(pidFile, 'utf8') : '';
    if (pid.endsWith('\n')) sleeper = Number(pid) || 0; // written whole
    if (file && readFileSync(file, 'utf8').includes('"tool_call"') && sleeper > 1) break;
    assert.ok(i < 600, 'the tool call reached the session file');
    await sleep(100);
  }
  child.kill('SIGKILL');
  assert.equal((await exited).signal, 'SIGKILL');

  llm.script({ text: 'resumed fine' });
  const resumed = await run(box, ['-c', '-p', 'what happened?']);
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.equal(resumed.stdout.trim(), 'resumed fine');
  assert.match(
    resumed.stderr,
    /warning: .*tool call "bash" \("toolu_sleep"\) on line 4 has no result/,
  );
  assert.deepEqual(sentBlocks(), [
    'user:run the long thing',
    'assistant:tool_use',
    `result:toolu_sleep:${JSON.stringify([
      { type: 'text', text: 'interrupted: zot exited before the tool finished' },
    ])}`,
    'user:what happened?',
  ]);
  assert.equal(llm.requests.at(-1)!.body.messages[2].content[0].is_error, true);

  // The repair was written back: the next resume needs none and warns no more.
  llm.script({ text: 'still fine' });
  const again = await run(box, ['-c', '-p', 'and now?']);
  assert.equal(again.code, 0, again.stderr);
  assert.doesNotMatch(again.stderr, /warning/);
  assert.equal(sentBlocks().length, 6);
});

test('a tool result whose call is missing is dropped with a warning', async (t) => {
  const box = makeSandbox();
  t.after(() => box.cleanup());
  const file = join(box.project, 'orphan.jsonl');
  const result = {
    type: 'tool_result',
    call_id: 'toolu_gone',
    is_error: false,
    content: [text('out')],
  };
  writeFileSync(
    file,
    header +
      message('user', [text('q')]) +
      message('tool', [result]) +
      message('assistant', [text('a')]),
  );
  llm.script({ text: 'ok' });
  const out = await run(box, ['-p', '--session', file, 'next']);
  assert.equal(out.code, 0, out.stderr);
  assert.match(out.stderr, /dropped the tool result for call "toolu_gone" on line 3/);
  assert.deepEqual(sentBlocks(), ['user:q', 'assistant:a', 'user:next']);
});

test('--session refuses a FIFO and a device at once, naming the file', async (t) => {
  const box = makeSandbox();
  t.after(() => box.cleanup());
  const fifo = join(box.project, 'pipe.jsonl');
  assert.equal(spawnSync('mkfifo', [fifo]).status, 0);
  const piped = await run(box, ['-p', '--session', fifo, 'hi']);
  assert.equal(piped.code, 1);
  assert.match(piped.stderr, /pipe\.jsonl is a FIFO; sessions are regular files only/);

  const device = await run(box, ['-p', '--session', '/dev/zero', 'hi']);
  assert.equal(device.code, 1);
  assert.match(device.stderr, /session file \/dev\/zero is a character device/);
});

test('a session file over the size limit is refused, naming the file and the limit', async (t) => {
  const box = makeSandbox();
  t.after(() => box.cleanup());
  const big = join(box.project, 'big.jsonl');
  writeFileSync(big, header);
  truncateSync(big, 257 * 1024 * 1024); // sparse: no disk used, nothing read
  const out = await run(box, ['-p', '--session', big, 'hi']);
  assert.equal(out.code, 1);
  assert.match(out.stderr, /big\.jsonl is 257 MiB, over the 256 MiB limit/);
});

test('malformed lines are skipped with warnings naming the line; the rest still works', async (t) => {
  const box = makeSandbox();
  t.after(() => box.cleanup());
  const file = join(box.project, 'bad.jsonl');
  const deep = '['.repeat(200) + ']'.repeat(200);
  writeFileSync(
    file,
    Buffer.concat([
      Buffer.from(header),
      Buffer.from(message('user', [text('one')]).replace('\n', '\r\n')), // 2: CRLF is fine
      Buffer.from(message('assistant', [{ type: 'text' }])), // 3: text missing
      Buffer.from(message('assistant', [{ type: 'tool_call', id: 'a', name: 'bash', args: null }])),
      Buffer.from(message('user', [{ type: 'bogus' }])), // 5
      Buffer.from(line({ type: 'message', message: { role: 'user', content: [text(deep)] } })),
      Buffer.from(`{"type":"message","message":${deep}}\n`), // 7: too deep
      Buffer.from([0x7b, 0xff, 0xfe, 0x7d, 0x0a]), // 8: not UTF-8
      Buffer.alloc(64), // 9: NUL bytes (a crash on some file systems)
      Buffer.from('\n'),
      Buffer.from(message('assistant', [text('two')])), // 10
      Buffer.from(line({ type: 'compaction', time: 't', summary: 's', kept: -1 })), // 11
      Buffer.from(line({ type: 'mystery' })), // 12
    ]),
  );
  llm.script({ text: 'ok' });
  const out = await run(box, ['-p', '--session', file, 'three']);
  assert.equal(out.code, 0, out.stderr);
  for (const expected of [
    /bad\.jsonl: skipped line 3: entry\.message\.content\[0\]\.text: expected a string/,
    /skipped line 4: entry\.message\.content\[0\]\.args: expected an object/,
    /skipped line 5: entry\.message\.content\[0\]\.type: unknown "bogus"/,
    /skipped line 6: entry\.message\.time: expected a string/,
    /skipped line 7: it is nested deeper than 128 levels/,
    /skipped line 8: it is not valid UTF-8/,
    /skipped line 9: it contains NUL bytes/,
    /skipped line 11: entry\.kept: expected an integer/,
    /skipped line 12: entry\.type: unknown "mystery"/,
  ]) {
    assert.match(out.stderr, expected);
  }
  assert.doesNotMatch(out.stderr, /line (1|2|10):/);
  assert.deepEqual(sentBlocks(), ['user:one', 'assistant:two', 'user:three']);
});

test('--continue passes over a dangling symlink and a FIFO named *.jsonl', async (t) => {
  const box = makeSandbox();
  t.after(() => box.cleanup());
  llm.script({ text: 'first' });
  assert.equal((await run(box, ['-p', 'remember 7'])).code, 0);
  const [real] = sessionFiles(box.home);
  const dir = join(real!, '..');
  const past = new Date(Date.now() - 60_000);
  utimesSync(real!, past, past);
  symlinkSync(join(dir, 'gone'), join(dir, 'zzzz-dangling.jsonl'));
  assert.equal(spawnSync('mkfifo', [join(dir, 'zzzz-fifo.jsonl')]).status, 0);
  llm.script({ text: 'second' });
  const resumed = await run(box, ['-c', '-p', 'which number?']);
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.deepEqual(sentBlocks(), ['user:remember 7', 'assistant:first', 'user:which number?']);
});

const modeOf = (path: string) => statSync(path).mode & 0o777;

/** A file of the user's, 0644, and what it held. */
function userFile(path: string, content: string): () => void {
  writeFileSync(path, content);
  chmodSync(path, 0o644);
  return () => {
    assert.equal(readFileSync(path, 'utf8'), content, `${path} is unchanged`);
    assert.equal(modeOf(path), 0o644, `${path} keeps its mode`);
  };
}

test('--session and -c refuse a file that is not a zot session, leaving it as it was', async (t) => {
  const box = makeSandbox();
  t.after(() => box.cleanup());
  const notes = join(box.project, 'notes.txt');
  const unchanged = userFile(notes, 'my notes\n');
  const before = llm.requests.length;
  const out = await run(box, ['-p', '--session', notes, 'hi']);
  assert.equal(out.code, 1);
  assert.match(
    out.stderr,
    /notes\.txt is not a zot session file \(its first line is not JSON\); zot writes only to/,
  );
  unchanged();
  const json = join(box.project, 'data.jsonl');
  const untouched = userFile(json, '{"type":"message","note":"mine"}\n');
  const other = await run(box, ['-p', '--session', json, 'hi']);
  assert.equal(other.code, 1);
  assert.match(
    other.stderr,
    /data\.jsonl is not a zot session file \(its first line is not a zot session header\)/,
  );
  untouched();
  assert.equal(llm.requests.length, before, 'nothing was sent');

  // The newest file in zot's own directory of sessions is checked the same way by -c.
  llm.script({ text: 'first' });
  assert.equal((await run(box, ['-p', 'remember 7'])).code, 0);
  const [real] = sessionFiles(box.home);
  const past = new Date(Date.now() - 60_000);
  utimesSync(real!, past, past);
  const planted = join(real!, '..', 'zzzz-planted.jsonl');
  const same = userFile(planted, 'not a session\n');
  const resumed = await run(box, ['-c', '-p', 'which number?']);
  assert.equal(resumed.code, 1);
  assert.match(resumed.stderr, /zzzz-planted\.jsonl is not a zot session file/);
  same();
});

test('--session makes a new file 0600 and leaves the modes of an empty file and a directory alone', async (t) => {
  const box = makeSandbox();
  t.after(() => box.cleanup());
  const shared = join(box.project, 'shared');
  mkdirSync(shared);
  chmodSync(shared, 0o755);
  const fresh = join(shared, 'new.jsonl');
  llm.script({ text: 'one' });
  assert.equal((await run(box, ['-p', '--session', fresh, 'hi'])).code, 0);
  assert.deepEqual([modeOf(shared), modeOf(fresh)], [0o755, 0o600]);

  const empty = join(shared, 'empty.jsonl');
  writeFileSync(empty, '');
  chmodSync(empty, 0o644);
  llm.script({ text: 'two' });
  assert.equal((await run(box, ['-p', '--session', empty, 'hi'])).code, 0);
  assert.equal(modeOf(empty), 0o644);
  const types = readFileSync(empty, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line).type);
  assert.equal(types[0], 'session');
  assert.equal(types.filter((type) => type === 'message').length, 2);
  // Written again: still its mode, and so is the directory's.
  llm.script({ text: 'three' });
  assert.equal((await run(box, ['-p', '--session', empty, 'again'])).code, 0);
  assert.deepEqual([modeOf(shared), modeOf(empty)], [0o755, 0o644]);
});

test('RPC switch_session refuses a file that is not a zot session; the session goes on', async (t) => {
  const box = makeSandbox();
  t.after(() => box.cleanup());
  const notes = join(box.project, 'notes.txt');
  const unchanged = userFile(notes, 'line one\nline two\n');
  const client = ZotRpc.start(fakeLlmFlags(llm.url), { home: box.home, cwd: box.project });
  t.after(() => client.child.kill('SIGKILL'));
  llm.script({ text: 'first' });
  client.send({ type: 'prompt', message: 'one' });
  await client.doneCount(1);
  const refused = await client.request('switch_session', { path: notes });
  assert.equal(refused.success, false);
  assert.match(
    String(refused.error),
    /notes\.txt is not a zot session file \(its first line is not JSON\)/,
  );
  llm.script({ text: 'second' });
  client.send({ type: 'prompt', message: 'two' });
  await client.doneCount(2);
  assert.deepEqual(sentBlocks(), ['user:one', 'assistant:first', 'user:two']);
  assert.equal((await client.close()).code, 0);
  unchanged();
});
