// End-to-end in tmux: the trust dialog. A project extension nobody trusted is shown at start with
// what it would run; "run once" starts it for this session only, /trust pins it for good, Esc
// skips it, and the next run asks only about what is still untrusted.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { startedExtensions, writeExtension } from './support/ext-fixtures.js';
import { fakeLlmFlags, startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { HAS_TMUX, TmuxZot } from './support/tmux.js';
import { makeSandbox } from './support/zot.js';

const skip = HAS_TMUX ? false : 'tmux is not installed';
let llm: FakeLlm;
before(async () => {
  llm = await startFakeLlm();
});
after(() => llm.close());

/** The dialog drawn down to its legend (a capture can catch a frame half drawn). */
const WHOLE_DIALOG = (screen: string) =>
  screen.includes('Project extension proj') && /esc (skip|keep).*│/.test(screen);

function setup(t: { after(fn: () => void): void }) {
  const box = makeSandbox();
  t.after(() => box.cleanup());
  const dir = writeExtension(join(box.project, '.zot', 'extensions'), {
    name: 'proj',
    commands: ['projcmd'],
  });
  const marker = join(box.home, 'started.txt');
  const start = () => {
    const zot = TmuxZot.start(fakeLlmFlags(llm.url), {
      home: box.home,
      cwd: box.project,
      rows: 40,
      env: { ZOT_TEST_MARKER: marker },
    });
    t.after(() => zot.kill());
    return zot;
  };
  const starts = () => startedExtensions(marker).filter((entry) => entry.name === 'proj').length;
  return { box, dir, start, starts };
}

test(
  'run once, then /trust pins it: the next run starts it without asking',
  { skip },
  async (t) => {
    const { box, dir, start, starts } = setup(t);
    const first = start();
    const dialog = await first.waitFor(WHOLE_DIALOG);
    assert.match(dialog, /runs: +\S*node ext\.mjs/);
    assert.match(dialog, /never trusted/);
    assert.match(dialog, /hash: +sha256:[0-9a-f]+/);
    assert.match(dialog, /access: UNSCOPED, your full rights \(no "permissions" block\)/);
    assert.ok(dialog.includes(dir), 'names the directory');
    assert.equal(starts(), 0, 'nothing runs before the answer');
    first.type('o');
    await first.waitFor('proj runs for this session only');
    await first.waitFor(/· ext 1/); // the status line: started and registered
    // Its command is there: autocomplete lists it.
    first.type('/projc');
    await first.waitFor(/projcmd +projcmd/);
    first.press('C-c');
    await first.waitFor((screen) => !screen.includes('/projc'));
    assert.equal(starts(), 1);

    first.submit('/trust');
    await first.waitFor('running for this session only');
    first.type('t');
    await first.waitFor('trusted proj');
    const store = JSON.parse(readFileSync(join(box.home, 'trust.json'), 'utf8'));
    assert.match(store.extensions[dir].hash, /^sha256:/);
    assert.equal(starts(), 1, 'trusting a running extension does not restart it');
    first.kill();

    const second = start();
    await second.waitFor(/· ext 1/);
    second.submit('/trust');
    const screen = await second.waitFor('no project extension here waits for trust');
    assert.doesNotMatch(screen, /Project extension proj/);
    second.type('/projc');
    await second.waitFor(/projcmd +projcmd/);
    assert.equal(starts(), 2);
  },
);

test('Esc skips it: nothing starts, and the next run asks again', { skip }, async (t) => {
  const { start, starts } = setup(t);
  const first = start();
  await first.waitFor('Project extension proj');
  first.press('Escape');
  await first.waitFor('skipped proj');
  first.type('/projc');
  // The suggestions are drawn in the frame that shows the typed text.
  assert.doesNotMatch(await first.waitFor('/projc'), /projcmd/);
  assert.equal(starts(), 0);
  first.kill();
  const second = start();
  await second.waitFor('Project extension proj');
  second.type('s');
  await second.waitFor('skipped proj');
  assert.equal(starts(), 0);
});

test(
  'a project extension with the name of a global one: the dialog names both; only an answer replaces it',
  { skip },
  async (t) => {
    const { box, dir, start } = setup(t);
    const mine = writeExtension(join(box.home, 'extensions'), {
      name: 'proj',
      commands: ['minecmd'],
    });
    const first = start();
    const screen = await first.waitFor(WHOLE_DIALOG);
    const dialog = screen.slice(screen.indexOf('Project extension proj'));
    assert.ok(dialog.includes(dir), 'names the project directory');
    assert.ok(dialog.includes(mine), 'names the global one');
    assert.match(dialog, /replaces it in this project;[^\n]*\n[^\n]*skipping keeps yours/);
    assert.match(dialog, /Run it this session only, in place of your global proj/);
    first.press('Escape');
    await first.waitFor('skipped proj');
    first.type('/minec');
    await first.waitFor(/minecmd +minecmd/);
    first.press('C-c');
    await first.waitFor((screen) => !screen.includes('/minec'));
    first.submit('/trust');
    await first.waitFor('Project extension proj');
    first.type('o');
    await first.waitFor('proj runs for this session only');
    first.type('/projc');
    await first.waitFor(/projcmd +projcmd/);
  },
);
