// End-to-end in tmux: a resumed long session opens on its last turns and takes keys at once;
// a streamed answer rewrites only what changed (every byte zot writes is recorded), at 60 and
// 200 columns, with colours and under NO_COLOR. Latency and bytes per frame are measured in
// bench (tui-resume, tui-stream), never timed here.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test, type TestContext } from 'node:test';
import { fakeLlmFlags, startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { writeLongSession } from './support/long-session.js';
import { HAS_TMUX, TmuxZot } from './support/tmux.js';
import { makeSandbox } from './support/zot.js';

const skip = HAS_TMUX ? false : 'tmux is not installed';
let llm: FakeLlm;
before(async () => {
  llm = await startFakeLlm();
});
after(() => llm.close());

const SIZES = [
  { columns: 60, color: false },
  { columns: 200, color: false },
  { columns: 60, color: true },
  { columns: 200, color: true },
];
const label = (s: { columns: number; color: boolean }) =>
  `${s.columns} columns${s.color ? '' : ', NO_COLOR'}`;

/** A 1,000-turn session file in a sandbox of its own, both gone when the test ends. */
function longSession(t: TestContext) {
  const box = makeSandbox();
  t.after(() => box.cleanup());
  const file = join(box.home, 'long.jsonl');
  writeLongSession(file, { turns: 1000, cwd: box.project });
  return { box, file };
}

/** zot resuming that session in tmux, killed when the test ends. */
function resume(
  t: TestContext,
  { box, file }: ReturnType<typeof longSession>,
  columns: number,
  color: boolean,
): TmuxZot {
  const zot = TmuxZot.start([...fakeLlmFlags(llm.url), '--session', file], {
    home: box.home,
    cwd: box.project,
    columns,
    rows: 30,
    ...(color ? { env: { NO_COLOR: undefined } } : {}),
  });
  t.after(() => zot.kill());
  return zot;
}

for (const size of SIZES) {
  test(
    `a resumed 1,000-turn session opens on its last turns (${label(size)})`,
    { skip },
    async (t) => {
      const zot = resume(t, longSession(t), size.columns, size.color);
      // The last turn's answer is on screen, the editor under it takes keys.
      await zot.waitFor('Step 999');
      zot.type('still typing');
      await zot.waitFor('still typing');
      // The older drawn turns follow the first frame, above it; the rest of the file is read
      // after them, and then the notice counts what is not drawn, and the status line holds
      // the file's usage and name.
      await zot.waitFor('Step 980', { scrollback: true });
      await zot.waitFor('3,920 earlier messages of this session not drawn', { scrollback: true });
      // The status line has room for them at 200 columns.
      if (size.columns >= 200) {
        await zot.waitFor('$2.00');
        assert.match(zot.capture(), /“long day”/);
      }
      const all = zot.capture({ scrollback: true });
      assert.doesNotMatch(all, /reading the earlier messages/);
      assert.doesNotMatch(
        all,
        /Step 979\b/,
        'turns before the drawn ones are not in the scrollback',
      );
      assert.match(all, /Step 980\b/);
      // What is not drawn still goes to the model.
      llm.script({ text: 'resumed answer' });
      zot.press('C-u');
      zot.submit('next');
      await zot.waitFor('resumed answer');
      assert.equal(llm.requests.at(-1)!.body.messages.length, 4001);
    },
  );
}

test(
  'a prompt sent before the rest of a resumed file is read goes with the whole transcript',
  { skip },
  async (t) => {
    const long = longSession(t);
    const { file } = long;
    // The last turn's tool call lost its result (zot was killed): the resume repairs it once.
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    const call = lines.findLastIndex((line) => line.includes('"tool_call"'));
    writeFileSync(file, lines.slice(0, call + 1).join('\n') + '\n');
    llm.script({ text: 'answered early' });
    const zot = resume(t, long, 120, false);
    await zot.waitFor('Looking at step 999');
    zot.submit('right away');
    await zot.waitFor('answered early');
    // From the file's first prompt to the repaired result and the new prompt (which the
    // Anthropic wire joins to that result: both are the user's turn).
    const sent = JSON.stringify(llm.requests.at(-1)!.body.messages);
    assert.ok(
      sent.startsWith('[{"role":"user","content":[{"type":"text","text":"please do step 0 '),
    );
    assert.match(sent.slice(-400), /interrupted: zot exited before the tool finished.*right away/);
    assert.equal(llm.requests.at(-1)!.body.messages.length, 3999);
    const repairs = readFileSync(file, 'utf8')
      .split('\n')
      .filter((line) => line.includes('interrupted: zot exited before the tool finished'));
    assert.equal(repairs.length, 1, 'the repair is written once');
  },
);

/** Every frame zot wrote while the answer streamed, from the raw recording. */
function framesOf(raw: string, from: number): string[] {
  return raw.slice(from).split('\x1b[?2026h').slice(1);
}

for (const size of SIZES) {
  test(
    `a streamed answer does not rewrite the editor's rules or an unchanged status line (${label(size)})`,
    { skip },
    async (t) => {
      const box = makeSandbox();
      t.after(() => box.cleanup());
      const zot = TmuxZot.start(fakeLlmFlags(llm.url), {
        home: box.home,
        cwd: box.project,
        columns: size.columns,
        rows: 30,
        raw: join(box.home, '..', 'stream.raw'),
        ...(size.color ? { env: { NO_COLOR: undefined } } : {}),
      });
      t.after(() => zot.kill());
      await zot.waitFor('anthropic/');
      const words = Array.from({ length: 30 }, (_, i) => `w${i} `);
      llm.script({ text: [...words, 'end-of-answer'], chunkDelayMs: 60 });
      const start = (await zot.raw('anthropic/')).length;
      zot.submit('stream please');
      await zot.waitFor('end-of-answer');
      const frames = framesOf(await zot.raw('end-of-answer'), start);
      const rule = '─'.repeat(size.columns);
      const ruleWrites = frames.filter((frame) => frame.includes(rule)).length;
      const footerWrites = frames.filter((frame) => frame.includes('anthropic/')).length;
      assert.ok(frames.length >= 20, `${frames.length} frames`);
      // Before, every frame rewrote both rules and the status line (its token count moved with
      // each word); now only the frames that move them down do (the answer gained a line).
      assert.ok(ruleWrites <= frames.length / 2, `${ruleWrites} of ${frames.length} frames`);
      assert.ok(footerWrites <= frames.length / 2, `${footerWrites} of ${frames.length} frames`);
    },
  );
}
