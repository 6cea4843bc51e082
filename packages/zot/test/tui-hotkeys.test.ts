// End-to-end in tmux: the keybindings file (a bad entry is named at start-up and skipped, the
// good ones move the keys), /hotkeys listing what is in force, /copy (OSC 52 in what zot wrote,
// a clipboard program on PATH, the answer made safe) and /settings changing the thinking level.
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
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

for (const size of [
  { columns: 60, color: false },
  { columns: 200, color: true },
]) {
  const label = `${size.columns} columns${size.color ? '' : ', NO_COLOR'}`;
  test(
    `keybindings.json: a bad entry is named and skipped, a good one moves the key; /hotkeys lists them (${label})`,
    { skip },
    async (t) => {
      const box = makeSandbox();
      const file = join(box.home, 'keybindings.json');
      writeFileSync(file, JSON.stringify({ 'app.exit': 'alt+x', 'app.clear': 'ctrl+shft+c' }));
      const zot = TmuxZot.start(fakeLlmFlags(llm.url), {
        home: box.home,
        cwd: box.project,
        columns: size.columns,
        rows: 40,
        ...(size.color ? { env: { NO_COLOR: undefined } } : {}),
      });
      t.after(() => {
        zot.kill();
        box.cleanup();
      });
      const start = await zot.waitFor('anthropic/');
      const flat = start.replace(/\s+/g, ' ');
      assert.ok(
        flat.includes('keybindings.json: "app.clear": "ctrl+shft+c": "shft" is not a modifier'),
        start,
      );
      zot.submit('/hotkeys');
      const listed = (await zot.waitFor('Problems in that file:', { scrollback: true })).replace(
        /\s+/g,
        ' ',
      );
      assert.match(listed, /alt\+x exit \(when the editor is empty\)/);
      assert.ok(
        listed.replace(/\s+/g, '').includes(`Changethemin${file}`.replace(/\s+/g, '')),
        listed,
      );
      // ctrl+d is no longer exit; alt+x is.
      zot.press('C-d');
      zot.press('M-x');
      assert.equal(await zot.waitForExit(), 0);
    },
  );
}

test(
  '/copy puts the last answer, made safe, on the clipboard through OSC 52 and wl-copy',
  { skip },
  async (t) => {
    const box = makeSandbox();
    const bin = join(box.project, 'bin');
    mkdirSync(bin);
    const copied = join(box.project, 'copied.txt');
    writeFileSync(join(bin, 'wl-copy'), `#!/bin/sh\ncat > '${copied}'\n`);
    chmodSync(join(bin, 'wl-copy'), 0o755);
    const raw = join(box.project, '..', 'raw.out');
    const zot = TmuxZot.start(fakeLlmFlags(llm.url), {
      home: box.home,
      cwd: box.project,
      columns: 100,
      rows: 30,
      raw,
      env: {
        WAYLAND_DISPLAY: 'wayland-test',
        DISPLAY: undefined,
        PATH: `${bin}:${process.env.PATH}`,
      },
    });
    t.after(() => {
      zot.kill();
      box.cleanup();
    });
    await zot.waitFor('anthropic/');
    zot.submit('/copy');
    await zot.waitFor('no answer to copy yet');
    llm.script({ text: 'copy me \x1b[31mred\x1b[0m please' });
    zot.submit('say something');
    await zot.waitFor('please');
    zot.submit('/copy');
    await zot.waitFor(
      /copied the last answer \(\d+ characters\)\s+through the terminal \(OSC 52\) and\s+wl-copy/,
    );
    const safe = 'copy me \\x1b[31mred\\x1b[0m please';
    const recorded = await zot.raw('\x1b]52;c;');
    const osc = /\x1b\]52;c;([A-Za-z0-9+/=]+)\x07/.exec(recorded)!;
    assert.equal(Buffer.from(osc[1]!, 'base64').toString('utf8'), safe);
    assert.equal(readFileSync(copied, 'utf8'), safe);
  },
);

test('/settings sets the thinking level from a list, and it is kept', { skip }, async (t) => {
  const box = makeSandbox();
  const zot = TmuxZot.start(fakeLlmFlags(llm.url), {
    home: box.home,
    cwd: box.project,
    columns: 120,
  });
  t.after(() => {
    zot.kill();
    box.cleanup();
  });
  await zot.waitFor('anthropic/');
  zot.submit('/settings');
  await zot.waitFor('show thinking');
  zot.press('Enter'); // the first row: thinking level
  await zot.waitFor('Thinking level');
  zot.press('Down', 'Down', 'Down', 'Enter'); // off, low, medium, high
  await zot.waitFor('thinking: high (saved)');
  await zot.waitFor('· thinking high');
  const config = JSON.parse(readFileSync(join(box.home, 'config.json'), 'utf8'));
  assert.equal(config.reasoning, 'high');
  llm.script({ text: 'deep thoughts' });
  zot.submit('think hard');
  await zot.waitFor('deep thoughts');
  assert.deepEqual(llm.requests.at(-1)!.body.thinking, { type: 'enabled', budget_tokens: 24576 });
});
