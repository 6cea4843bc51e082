// End-to-end in tmux: the keys people expect from pi and Claude Code. Ctrl+D exits from an
// empty editor (and deletes forward otherwise), Ctrl+Z suspends until SIGCONT, Ctrl+G edits the
// prompt in $EDITOR, Ctrl+T hides and shows thinking, Shift+Tab moves the thinking level (sent
// to the model, kept in config.json), Ctrl+P moves to the next ready model. At 60 and 200
// columns, with colours and under NO_COLOR.
import assert from 'node:assert/strict';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { fakeLlmFlags, startFakeLlm, type FakeLlm } from './support/fake-llm.js';
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
  { columns: 200, color: true },
];
const labelOf = (size: { columns: number; color: boolean }) =>
  `${size.columns} columns${size.color ? '' : ', NO_COLOR'}`;

function open(
  t: { after(fn: () => void): void },
  size: { columns: number; color: boolean },
  env: Record<string, string | undefined> = {},
  wrap?: string[],
) {
  const box = makeSandbox();
  const zot = TmuxZot.start(fakeLlmFlags(llm.url), {
    home: box.home,
    cwd: box.project,
    columns: size.columns,
    rows: 30,
    ...(wrap ? { wrap } : {}),
    env: {
      VISUAL: undefined,
      EDITOR: undefined,
      DISPLAY: undefined,
      WAYLAND_DISPLAY: undefined,
      ...(size.color ? { NO_COLOR: undefined } : {}),
      ...env,
    },
  });
  t.after(() => {
    zot.kill();
    box.cleanup();
  });
  return { zot, box };
}

/** The editor's line: between the two rules, the text typed so far. */
const editorLine = (screen: string) => {
  const lines = screen.split('\n');
  const rules = lines.map((line, i) => (/^─{10,}/.test(line) ? i : -1)).filter((i) => i >= 0);
  return lines
    .slice(rules.at(-2)! + 1, rules.at(-1))
    .join('\n')
    .trim();
};

/** A shell's job control, small: ctrl+z needs a parent that takes the terminal back. */
const JOB_SHELL = fileURLToPath(new URL('../../test/fixtures/job_shell.py', import.meta.url));

for (const size of SIZES) {
  const label = labelOf(size);

  test(
    `ctrl+d deletes forward in a full editor and exits from an empty one (${label})`,
    { skip },
    async (t) => {
      const { zot } = open(t, size);
      await zot.waitFor('anthropic/');
      zot.type('abc');
      zot.press('Left', 'Left', 'C-d');
      await zot.waitFor((s) => editorLine(s) === 'ac');
      zot.press('End', 'BSpace', 'BSpace');
      await zot.waitFor((s) => editorLine(s) === '');
      zot.press('C-d');
      assert.equal(await zot.waitForExit(), 0);
    },
  );

  test(
    `ctrl+t hides and shows thinking; shift+tab moves the thinking level (${label})`,
    { skip },
    async (t) => {
      const { zot, box } = open(t, size);
      await zot.waitFor('anthropic/');
      llm.script({ thinking: 'pondering the secret word', text: 'the answer is here' });
      zot.submit('think first');
      await zot.waitFor('the answer is here');
      await zot.waitFor('pondering the secret word');
      zot.press('C-t');
      await zot.waitFor((s) => s.includes('thinking (hidden)') && !s.includes('pondering'));
      zot.press('C-t');
      await zot.waitFor((s) => s.includes('pondering the secret word') && !s.includes('(hidden)'));

      // The short-lived note says it; the status line too, where it has room.
      zot.press('BTab');
      await zot.waitFor('thinking: low');
      zot.press('BTab');
      await zot.waitFor('thinking: medium');
      llm.script({ text: 'thought about it' });
      zot.submit('again');
      await zot.waitFor('thought about it');
      const body = llm.requests.at(-1)!.body;
      assert.deepEqual(body.thinking, { type: 'enabled', budget_tokens: 8192 });
      const config = JSON.parse(readFileSync(join(box.home, 'config.json'), 'utf8'));
      assert.equal(config.reasoning, 'medium');
      assert.equal(config.show_thinking, true);
      zot.press('BTab', 'BTab');
      await zot.waitFor('thinking: off');
      const config2 = JSON.parse(readFileSync(join(box.home, 'config.json'), 'utf8'));
      assert.equal(config2.reasoning, 'off');
    },
  );
}

test('ctrl+p moves to the next model of a ready provider, and saves it', { skip }, async (t) => {
  const { zot, box } = open(t, SIZES[1]!);
  const first = await zot.waitFor(/anthropic\/\S+/);
  const before = /anthropic\/(\S+)/.exec(first)![1];
  zot.press('C-p');
  const after = await zot.waitFor((s) => {
    const now = /· anthropic\/(\S+)/.exec(s)?.[1];
    return now !== undefined && now !== before;
  });
  const model = /· anthropic\/(\S+)/.exec(after)![1]!;
  assert.match(after, new RegExp(`model: anthropic/${model}`));
  const config = JSON.parse(readFileSync(join(box.home, 'config.json'), 'utf8'));
  assert.equal(config.model, model);
  llm.script({ text: 'on the next model' });
  zot.submit('hello');
  await zot.waitFor('on the next model');
  assert.equal(llm.requests.at(-1)!.body.model, model);
});

for (const size of SIZES) {
  test(
    `ctrl+g edits the prompt in $EDITOR and takes it back (${labelOf(size)})`,
    { skip },
    async (t) => {
      const box0 = makeSandbox();
      t.after(() => box0.cleanup());
      const editor = join(box0.project, 'fake-editor.sh');
      // An editor that appends to the file and records the file's mode and what it was given.
      writeFileSync(
        editor,
        `#!/bin/sh\nstat -c %a "$1" > "${box0.project}/mode"\nprintf ' and more from the editor\\n' >> "$1"\n`,
      );
      chmodSync(editor, 0o755);
      const { zot } = open(t, size, { EDITOR: editor });
      await zot.waitFor('anthropic/');
      zot.type('draft');
      zot.press('C-g');
      await zot.waitFor((s) => editorLine(s).includes('draft and more from the editor'));
      assert.equal(readFileSync(join(box0.project, 'mode'), 'utf8').trim(), '600');
      // The TUI is back and takes keys: the edited prompt is sent as it stands.
      llm.script({ text: 'got the edited prompt' });
      zot.press('Enter');
      await zot.waitFor('got the edited prompt');
      assert.match(
        JSON.stringify(llm.requests.at(-1)!.body.messages),
        /draft and more from the editor/,
      );
    },
  );
}

test(
  "ctrl+c in the editor's terminal ends the editor, not zot; the prompt stays",
  { skip },
  async (t) => {
    const box0 = makeSandbox();
    t.after(() => box0.cleanup());
    const editor = join(box0.project, 'waiting-editor.sh');
    // A GUI editor's `--wait` launcher: it says so, then waits for a window that never closes.
    writeFileSync(editor, `#!/bin/sh\necho 'waiting for the editor window'\nexec sleep 600\n`);
    chmodSync(editor, 0o755);
    const { zot } = open(t, SIZES[0]!, { EDITOR: editor });
    await zot.waitFor('anthropic/');
    zot.type('kept draft');
    zot.press('C-g');
    await zot.waitFor('waiting for the editor window');
    zot.press('C-c');
    // The note and the editor are drawn by one redraw after the editor ends: a look can land
    // between the two writes, so wait for the whole frame (a lost draft never shows up in it).
    await zot.waitFor(
      (s) => s.includes('the prompt is as it was') && editorLine(s) === 'kept draft',
    );
    // zot took no SIGINT: it is still running and takes keys (and a ctrl+c of its own again).
    llm.script({ text: 'still here after the editor' });
    zot.press('Enter');
    await zot.waitFor('still here after the editor');
  },
);

test(
  'ctrl+g without $VISUAL or $EDITOR says how to set one; the prompt stays',
  { skip },
  async (t) => {
    const { zot } = open(t, SIZES[0]!);
    await zot.waitFor('anthropic/');
    zot.type('kept text');
    zot.press('C-g');
    const screen = await zot.waitFor('set $VISUAL or $EDITOR');
    assert.equal(editorLine(screen), 'kept text');
  },
);

test(
  'ctrl+z suspends zot to the shell; fg brings the TUI back, keys and all',
  { skip },
  async (t) => {
    const { zot } = open(t, SIZES[1]!, {}, ['python3', JOB_SHELL]);
    await zot.waitFor('anthropic/');
    zot.type('before');
    zot.press('C-z');
    const stopped = await zot.waitFor('[job stopped]');
    // The terminal is the shell's again: zot's editor and status line are left behind as text.
    assert.doesNotMatch(stopped.split('[job stopped]')[1]!, /anthropic\//);
    zot.submit('fg');
    zot.type(' after');
    await zot.waitFor((s) => editorLine(s) === 'before after');
    zot.press('C-c', 'C-d');
    assert.equal(await zot.waitForExit(), 0);
  },
);

test('ctrl+z where no shell has job control says so, and zot goes on', { skip }, async (t) => {
  const { zot } = open(t, SIZES[0]!);
  await zot.waitFor('anthropic/');
  zot.type('still here');
  zot.press('C-z');
  await zot.waitFor('no shell with job control started zot');
  zot.type(' and typing');
  await zot.waitFor((s) => editorLine(s) === 'still here and typing');
});
