// End-to-end in tmux: naming a session (/name, shown in the status line), the session picker at
// launch (`zot -r`): names, the named-only filter, a rename that keeps the list's order, a delete
// after a yes; and the model picker listing only providers with a key until ctrl+a. At 60 and
// 200 columns, with colours and under NO_COLOR.
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
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

/** Every session file zot wrote for the sandbox's project. */
function sessionFiles(home: string): string[] {
  const root = join(home, 'sessions');
  return readdirSync(root).flatMap((dir) =>
    readdirSync(join(root, dir)).map((name) => join(root, dir, name)),
  );
}

for (const size of [
  { columns: 60, color: false },
  { columns: 200, color: true },
]) {
  const label = `${size.columns} columns${size.color ? '' : ', NO_COLOR'}`;
  test(
    `/name names the session; zot -r picks, filters, renames and deletes (${label})`,
    { skip },
    async (t) => {
      const box = makeSandbox();
      const zots: TmuxZot[] = [];
      t.after(() => {
        for (const zot of zots) zot.kill();
        box.cleanup();
      });
      const open = (args: string[]) => {
        const zot = TmuxZot.start([...fakeLlmFlags(llm.url), ...args], {
          home: box.home,
          cwd: box.project,
          columns: size.columns,
          rows: 30,
          ...(size.color ? { env: { NO_COLOR: undefined } } : {}),
        });
        zots.push(zot);
        return zot;
      };
      const first = open([]);
      await first.waitFor('anthropic/');
      first.submit('/name');
      await first.waitFor('this session has no name');
      llm.script({ text: 'answer one' });
      first.submit('question one');
      await first.waitFor('answer one');
      first.submit('/name  deploy work ');
      await first.waitFor('session name: deploy work');
      // The status line leads with the name.
      await first.waitFor((screen) =>
        screen.trimEnd().split('\n').at(-1)!.startsWith('“deploy work” · '),
      );
      first.submit('/new');
      await first.waitFor((s) => !s.includes('question one'));
      llm.script({ text: 'answer two' });
      first.submit('question two');
      await first.waitFor('answer two');
      first.submit('/exit');
      assert.equal(await first.waitForExit(), 0);
      const [named, other] = [...sessionFiles(box.home)].sort((a, b) => a.localeCompare(b));
      assert.ok(named && other);

      const picker = open(['-r']);
      const list = await picker.waitFor('Sessions');
      assert.ok(list.indexOf('question two') < list.indexOf('“deploy work”'), list);
      picker.press('C-n');
      const namedOnly = await picker.waitFor('named only');
      assert.doesNotMatch(namedOnly, /question two/);
      picker.press('C-n');
      await picker.waitFor('question two');
      // The filter kept the named one highlighted: up to the newest.
      picker.press('Up');
      // A rename keeps the order (the renamed one does not jump to the top).
      picker.press('C-r');
      await picker.waitFor('Rename session');
      picker.type('scratch');
      picker.press('Enter');
      const renamed = await picker.waitFor('“scratch”');
      assert.ok(renamed.indexOf('“scratch”') < renamed.indexOf('“deploy work”'), renamed);
      // Delete the newest (highlighted) after a yes.
      picker.press('C-d');
      await picker.waitFor('Delete this session?');
      picker.press('y');
      await picker.waitFor((s) => !s.includes('“scratch”') && s.includes('“deploy work”'));
      assert.equal(sessionFiles(box.home).length, 1);
      picker.press('Enter');
      const resumed = await picker.waitFor(/resumed\s+\//);
      assert.match(resumed, /question one/);
      await picker.waitFor((screen) =>
        screen.trimEnd().split('\n').at(-1)!.startsWith('“deploy work” · '),
      );
      assert.ok(existsSync(sessionFiles(box.home)[0]!));
    },
  );
}

test(
  'zot -r with Esc starts a new session; -r is refused outside the interactive UI',
  { skip },
  async (t) => {
    const box = makeSandbox();
    const zot = TmuxZot.start([...fakeLlmFlags(llm.url), '-r'], {
      home: box.home,
      cwd: box.project,
    });
    t.after(() => {
      zot.kill();
      box.cleanup();
    });
    await zot.waitFor('no recorded sessions in this directory yet');
    llm.script({ text: 'fresh answer' });
    zot.submit('fresh question');
    await zot.waitFor('fresh answer');
    zot.submit('/exit');
    await zot.waitForExit();
    const again = TmuxZot.start([...fakeLlmFlags(llm.url), '-r'], {
      home: box.home,
      cwd: box.project,
    });
    t.after(() => again.kill());
    await again.waitFor('Sessions');
    again.press('Escape');
    await again.waitFor('new session (no session picked)');
    const shell = TmuxZot.start([...fakeLlmFlags(llm.url), '-r', '-p', 'hi'], {
      home: box.home,
      cwd: box.project,
    });
    t.after(() => shell.kill());
    await shell.waitFor('-r/--resume picks a session in the interactive UI');
  },
);

test('/model lists only providers with a key; ctrl+a shows every provider', { skip }, async (t) => {
  const box = makeSandbox();
  const zot = TmuxZot.start(fakeLlmFlags(llm.url), {
    home: box.home,
    cwd: box.project,
    columns: 120,
    rows: 40,
  });
  t.after(() => {
    zot.kill();
    box.cleanup();
  });
  await zot.waitFor('anthropic/');
  zot.submit('/model');
  const keyed = await zot.waitFor('providers with a key');
  assert.match(keyed, /claude-sonnet-4-5 ✓/);
  assert.doesNotMatch(keyed, /gpt-5/);
  zot.type('gpt');
  await zot.waitFor('no matches');
  zot.press('C-a');
  // The title before ctrl+a names "every provider" too, as what ctrl+a would show.
  const every = await zot.waitFor('Model: every provider');
  assert.match(every, /gpt-5.*no key/);
  zot.press('Escape');
  await zot.waitFor((s) => !s.includes('every provider'));
});
