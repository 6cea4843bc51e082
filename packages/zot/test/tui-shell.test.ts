// End-to-end in tmux: `!cmd` runs a shell command through the bash tool (its row shows the
// command, its output and how long it took) and the command and its output go to the model
// with the next prompt; `!!cmd` runs it without telling the model; the permission rules hold
// for both. At 60 and 200 columns, with colours and under NO_COLOR.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fakeLlmFlags, startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { HAS_TMUX, TmuxZot } from './support/tmux.js';
import { makeSandbox } from './support/zot.js';

const skip = HAS_TMUX ? false : 'tmux is not installed';
let llm: FakeLlm;
before(async () => {
  llm = await startFakeLlm();
});
after(() => llm.close());

function open(
  t: { after(fn: () => void): void },
  size: { columns: number; color: boolean },
  args: string[] = [],
) {
  const box = makeSandbox();
  const zot = TmuxZot.start([...fakeLlmFlags(llm.url), ...args], {
    home: box.home,
    cwd: box.project,
    columns: size.columns,
    rows: 30,
    ...(size.color ? { env: { NO_COLOR: undefined } } : {}),
  });
  t.after(() => {
    zot.kill();
    box.cleanup();
  });
  return { zot, box };
}

/** The text of every message of the last request the model got. */
const lastRequest = () => JSON.stringify(llm.requests.at(-1)!.body.messages);

for (const size of [
  { columns: 60, color: false },
  { columns: 200, color: true },
]) {
  const label = `${size.columns} columns${size.color ? '' : ', NO_COLOR'}`;
  test(
    `!cmd runs as a bash row and joins the context; !!cmd does not (${label})`,
    { skip },
    async (t) => {
      const { zot } = open(t, size);
      await zot.waitFor('anthropic/');
      const before = llm.requests.length;
      zot.submit('!echo shell-one; echo shell-two');
      const screen = await zot.waitFor(/✓ bash echo shell-one; echo shell-two \d+\.\ds/);
      assert.match(screen, /shell-two/);
      zot.submit('!!echo kept-out-of-context');
      await zot.waitFor(/✓ bash echo kept-out-of-context/);
      assert.equal(llm.requests.length, before, 'no model call for a shell command');
      llm.script({ text: 'seen it' });
      zot.submit('what did it print?');
      await zot.waitFor('seen it');
      const sent = lastRequest();
      assert.match(sent, /\$ echo shell-one; echo shell-two/);
      assert.match(sent, /shell-one\\nshell-two/);
      assert.doesNotMatch(sent, /kept-out-of-context/);
    },
  );
}

test(
  'a shell command meets the permission rules: a denied one does not run',
  { skip },
  async (t) => {
    const { zot, box } = open(t, { columns: 100, color: false }, ['--deny', 'bash(touch *)']);
    await zot.waitFor('anthropic/');
    zot.submit('!touch denied.txt');
    await zot.waitFor(/✗ bash touch denied\.txt/);
    assert.equal(existsSync(join(box.project, 'denied.txt')), false);
    zot.submit('!!touch denied.txt');
    await zot.waitFor((s) => s.split('✗ bash touch denied.txt').length === 3);
    assert.equal(existsSync(join(box.project, 'denied.txt')), false);
  },
);
