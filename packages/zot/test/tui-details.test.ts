// End-to-end in tmux: details a newcomer met in the TUI. A command line is echoed and an
// extension's output is headed with its name; a tool row names its extension once; /help lines
// up; /sessions leaves out runs that were never answered; a prompt without a key stays in the
// editor; a cancelled reply says so, live and after -c.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fakeLlmFlags, startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { makeExtension } from './support/extensions.js';
import { HAS_TMUX, TmuxZot, type TmuxOptions } from './support/tmux.js';
import { makeSandbox, runZot } from './support/zot.js';

const skip = HAS_TMUX ? false : 'tmux is not installed';
const CANCELLED = '⊘ reply cancelled';

let llm: FakeLlm;
before(async () => {
  llm = await startFakeLlm();
});
after(() => llm.close());

/** A sandbox removed after the test, once every zot started in it (`open`) has exited. */
function sandbox(t: { after(fn: () => void): void }) {
  const box = { ...makeSandbox(), zots: [] as TmuxZot[] };
  t.after(() => {
    for (const zot of box.zots) zot.kill();
    box.cleanup();
  });
  return box;
}

type Box = ReturnType<typeof sandbox>;

function open(box: Box, args: string[], extra: Partial<TmuxOptions> = {}) {
  const zot = TmuxZot.start(args, { home: box.home, cwd: box.project, ...extra });
  box.zots.push(zot);
  return zot;
}

const lines = (screen: string) => screen.split('\n').map((line) => line.trimEnd());

/** What the editor holds: the lines between its two rules (the last two on screen). */
function editorLines(screen: string): string[] {
  const all = lines(screen);
  const rules = all.flatMap((line, i) => (/^─{10,}/.test(line) ? [i] : []));
  const [top, bottom] = rules.slice(-2);
  return all.slice(top! + 1, bottom).filter((line) => line.trim() !== '');
}

/** The terminal column each row's second cell starts at (`  first  second`). */
function secondColumns(rows: string[]): number[] {
  return rows.map((row) => {
    const match = /^( {2}\S.*? {2,})\S/u.exec(row);
    assert.ok(match, `not a two-column row: ${JSON.stringify(row)}`);
    return match[1]!.length;
  });
}

test(
  "a command line is echoed, an extension's output is headed with its name, a tool row names it once",
  { skip },
  async (t) => {
    const box = sandbox(t);
    const root = join(box.home, 'extensions');
    makeExtension(root, 'words', 'well-behaved', {
      commands: [{ name: 'reverse', response: { action: 'display', display: 'desserts' } }],
    });
    makeExtension(root, 'dice', 'well-behaved', {
      tools: [{ name: 'roll_dice', result: { content: [{ type: 'text', text: 'rolled 4' }] } }],
    });
    const zot = open(box, fakeLlmFlags(llm.url));
    await zot.waitFor(/· ext 2/);
    zot.submit('/reverse stressed');
    const shown = lines(await zot.waitFor('desserts'));
    const at = shown.findIndex((line) => line === 'desserts');
    assert.equal(shown[at - 1], '[words]', shown.join('\n'));
    assert.ok(shown.slice(0, at).includes('› /reverse stressed'), shown.join('\n'));

    llm.script(
      { toolCalls: [{ id: 'r1', name: 'roll_dice', args: { sides: 6 } }] },
      { text: 'you rolled a four' },
    );
    zot.submit('roll one');
    const screen = lines(await zot.waitFor('you rolled a four'));
    const row = screen.find((line) => line.includes('roll_dice'))!;
    // How long it took, then the extension, named once.
    assert.match(row, /^✓ roll_dice \{"sides":6\} \d+\.\ds \[dice\]$/);
    zot.submit('/exit');
    assert.equal(await zot.waitForExit(), 0);

    // Read back with -c, the row still names its extension, once.
    const resumed = open(box, [...fakeLlmFlags(llm.url), '-c']);
    const replayed = lines(await resumed.waitFor(/· ext 2/));
    // A row read back has no duration: how long it took was not recorded.
    assert.ok(replayed.includes('✓ roll_dice {"sides":6} [dice]'), replayed.join('\n'));
  },
);

test('/help: keys and commands each line up in two columns', { skip }, async (t) => {
  const box = sandbox(t);
  makeExtension(join(box.home, 'extensions'), 'weather', 'well-behaved', {
    commands: ['a-rather-long-weather-command'],
  });
  const zot = open(box, fakeLlmFlags(llm.url), { columns: 160, rows: 60 });
  await zot.waitFor(/· ext 1/);
  zot.submit('/help');
  const screen = lines(await zot.waitFor('/a-rather-long-weather-command', { scrollback: true }));
  const block = (title: string) => {
    const from = screen.indexOf(title) + 1;
    const to = screen.findIndex((line, i) => i >= from && (line === '' || /^─{10,}/.test(line)));
    return screen.slice(from, to);
  };
  const keys = block('Keys:');
  const commands = block('Commands:');
  assert.ok(keys.length >= 8 && commands.length >= 15, screen.join('\n'));
  assert.ok(
    commands.some((line) => line.startsWith('  /a-rather-long-weather-command ')),
    commands.join('\n'),
  );
  assert.equal(new Set(secondColumns(keys)).size, 1, keys.join('\n'));
  assert.equal(new Set(secondColumns(commands)).size, 1, commands.join('\n'));
});

test(
  '/sessions: a run the model never answered is not listed; "2 messages"',
  { skip },
  async (t) => {
    const box = sandbox(t);
    const run = (prompt: string) =>
      runZot([...fakeLlmFlags(llm.url), '-p', prompt], { home: box.home, cwd: box.project });
    llm.script({ text: 'an answer' });
    assert.equal((await run('a run that was answered')).code, 0);
    llm.script({ status: 400, errorMessage: 'no such model' });
    assert.equal((await run('a run that failed')).code, 1);
    const zot = open(box, fakeLlmFlags(llm.url), { columns: 160 });
    await zot.waitFor('anthropic/');
    zot.submit('/sessions');
    const screen = lines(await zot.waitFor('a run that was answered'));
    const answered = screen.find((line) => line.includes('a run that was answered'))!;
    assert.match(answered, /· 2 messages · \$0\.\d\d\b/);
    assert.doesNotMatch(screen.join('\n'), /a run that failed|msgs/);
  },
);

test(
  'a prompt sent without a key stays in the editor, with how to add one',
  { skip },
  async (t) => {
    const box = sandbox(t);
    const zot = open(box, ['--provider', 'anthropic']);
    await zot.waitFor('anthropic/');
    zot.submit('a prompt worth keeping');
    const screen = await zot.waitFor('your prompt is still in the editor');
    assert.match(screen, /error: no API key for anthropic/);
    assert.match(screen, /\/login/);
    assert.deepEqual(
      editorLines(screen).map((line) => line.trim()),
      ['a prompt worth keeping'],
      screen,
    );
  },
);

test('a cancelled reply is marked, live and after -c', { skip }, async (t) => {
  const box = sandbox(t);
  const first = open(box, fakeLlmFlags(llm.url));
  await first.waitFor('anthropic/');
  // Cancelled while the first reply is under way, then after the second one's first text.
  llm.script({ text: 'never seen', hang: true });
  first.submit('first question');
  await first.waitFor('working');
  first.press('Escape');
  await first.waitFor((s) => s.includes(CANCELLED) && !s.includes('working'));
  // The stream stops after its first piece of text (hang) until the user cancels.
  llm.script({ text: ['the start of it ', 'the end'], hang: true });
  first.submit('second question');
  await first.waitFor('the start of it');
  first.press('Escape');
  const live = await first.waitFor(
    (s) => s.split(CANCELLED).length === 3 && !s.includes('working'),
  );
  assert.doesNotMatch(live, /the end/);
  first.submit('/exit');
  assert.equal(await first.waitForExit(), 0);

  const second = open(box, [...fakeLlmFlags(llm.url), '-c']);
  const resumed = lines(await second.waitFor('second question'));
  const order = ['first question', CANCELLED, 'second question', 'the start of it', CANCELLED];
  let from = 0;
  for (const text of order) {
    const at = resumed.findIndex((line, i) => i >= from && line.includes(text));
    assert.ok(at >= 0, `${text} after line ${from}:\n${resumed.join('\n')}`);
    from = at + 1;
  }
});
