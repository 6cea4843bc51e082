// End-to-end in tmux: the `/` list never changes what Enter sends. The rest of a command line and
// Enter arriving together (a paste, a fast typist over SSH) run exactly what was typed; Tab, or
// a choice made with the arrow keys, completes; commands registered while the list is open join it.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fakeLlmFlags, startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { makeExtension } from './support/extensions.js';
import { HAS_TMUX, TmuxZot } from './support/tmux.js';
import { makeSandbox } from './support/zot.js';

const skip = HAS_TMUX ? false : 'tmux is not installed';
/** The list's key legend, drawn while it is open. */
const LIST_OPEN = /tab complete/;

let llm: FakeLlm;
before(async () => {
  llm = await startFakeLlm();
});
after(() => llm.close());

/** The TUI with one extension, `words`, whose commands answer `ran <name> <args>`. */
async function open(t: { after(fn: () => void): void }) {
  const box = makeSandbox();
  makeExtension(join(box.home, 'extensions'), 'words', 'well-behaved', {
    commands: ['reverse', 'roll', 'todo', 'todclear'],
  });
  const zot = TmuxZot.start(fakeLlmFlags(llm.url), { home: box.home, cwd: box.project });
  t.after(() => {
    zot.kill();
    box.cleanup();
  });
  await zot.waitFor(/· ext 1/);
  return zot;
}

/** Types `first`, waits for the list, then sends `rest` and Enter in one piece. */
async function race(zot: TmuxZot, first: string, rest: string): Promise<void> {
  zot.type(first);
  await zot.waitFor(LIST_OPEN);
  zot.submitAtOnce(rest);
}

test(
  'the rest of a command line and Enter arriving at once run exactly what was typed',
  { skip },
  async (t) => {
    const zot = await open(t);
    await race(zot, '/rev', 'erse abc');
    await zot.waitFor('ran reverse abc');
    await race(zot, '/r', 'oll 4d6');
    await zot.waitFor('ran roll 4d6');
    await race(zot, '/', 'todo');
    const screen = await zot.waitFor('ran todo');
    assert.doesNotMatch(screen, /reversereverse|todclear|unknown command/, screen);
    assert.equal(llm.requests.length, 0, 'nothing went to the model');
  },
);

test(
  'Enter sends what is typed; Tab, or an item chosen with the arrows, completes',
  { skip },
  async (t) => {
    const zot = await open(t);
    // The list is open on its best match, but Enter sends the text as it is.
    zot.type('/rev');
    await zot.waitFor(/› \/reverse/);
    zot.press('Enter');
    await zot.waitFor(/unknown command \/rev\b.*did you mean \/reverse/);
    // Chosen with the arrows: Enter runs the chosen command.
    zot.type('/rev');
    await zot.waitFor(/› \/reverse/);
    zot.press('Down');
    await zot.waitFor(/enter run/);
    zot.press('Enter');
    await zot.waitFor(/ran reverse\s*$/m);
    // Tab arriving with the end of the name completes what the editor holds, never the stale
    // list: at worst it asks for the list again.
    zot.type('/rev');
    await zot.waitFor(LIST_OPEN);
    zot.type('erse\t');
    await zot.waitFor(/│?\s*\/reverse/);
    zot.press('Tab');
    zot.type('x');
    zot.press('Enter');
    const screen = await zot.waitFor('ran reverse x');
    assert.doesNotMatch(screen, /\/rev\/reverse|reversereverse/);
  },
);

test(
  'a command registered while the list is open joins it, with no key pressed',
  { skip },
  async (t) => {
    const box = makeSandbox();
    const pids = join(box.home, 'late.pids');
    makeExtension(join(box.home, 'extensions'), 'late', 'late-register', {
      on_signal: true,
      late_command: 'lately',
      pid_log: pids,
    });
    const zot = TmuxZot.start(fakeLlmFlags(llm.url), { home: box.home, cwd: box.project });
    t.after(() => {
      zot.kill();
      box.cleanup();
    });
    await zot.waitFor(/· ext 1/);
    zot.type('/lat');
    const before = await zot.waitFor(/› \/reload-ext/);
    assert.doesNotMatch(before, /\/lately/);
    process.kill(Number(readFileSync(pids, 'utf8').trim().split('\n').at(-1)), 'SIGUSR1');
    await zot.waitFor(/\/lately/);
    // The list was made again, not completed: Enter still sends what was typed.
    zot.press('Enter');
    await zot.waitFor(/unknown command \/lat\b.*did you mean \/lately/);
  },
);
