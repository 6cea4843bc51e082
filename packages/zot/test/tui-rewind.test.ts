// End-to-end: the TUI's /rewind dialog and Esc Esc in tmux, over a real repository whose files a
// scripted model changes with bash: the turn list, what a rewind would change (conflicts named),
// the coloured diff, restoring code and conversation, and a file changed after the preview.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test, type TestContext } from 'node:test';
import { fakeLlmFlags, startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { HAS_TMUX, TmuxZot } from './support/tmux.js';
import { makeSandbox } from './support/zot.js';

const skip = HAS_TMUX ? false : 'tmux is not installed';
/** The dark theme's diffAdded and diffRemoved colours, as tmux reports them. */
const GREEN = '\x1b[38;2;158;206;106m';
const RED = '\x1b[38;2;247;118;142m';

let llm: FakeLlm;
before(async () => {
  llm = await startFakeLlm();
});
after(async () => {
  await llm.close();
});

function repository(t: TestContext) {
  const box = makeSandbox();
  t.after(box.cleanup);
  const git = (...args: string[]) =>
    execFileSync('git', args, {
      cwd: box.project,
      env: {
        ...process.env,
        GIT_AUTHOR_NAME: 't',
        GIT_AUTHOR_EMAIL: 't@t',
        GIT_COMMITTER_NAME: 't',
        GIT_COMMITTER_EMAIL: 't@t',
      },
    });
  git('init', '-q');
  writeFileSync(join(box.project, 'a.txt'), 'one\ntwo\nthree\n');
  writeFileSync(join(box.project, 'b.txt'), 'bee\n');
  writeFileSync(join(box.project, 'c.txt'), 'sea\n');
  git('add', '-A');
  git('commit', '-q', '-m', 'first');
  return box;
}

const read = (box: { project: string }, name: string) =>
  readFileSync(join(box.project, name), 'utf8');

async function open(t: TestContext, box: { home: string; project: string }) {
  const zot = TmuxZot.start([...fakeLlmFlags(llm.url)], {
    home: box.home,
    cwd: box.project,
    columns: 110,
    rows: 36,
    env: { NO_COLOR: undefined },
  });
  t.after(() => zot.kill());
  await zot.waitFor('anthropic/');
  return zot;
}

/** Every line of every session file under `home` (a waiting loop reads them afresh). */
function sessionLines(home: string): string {
  const dir = join(home, 'sessions');
  if (!existsSync(dir)) return '';
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.jsonl'))
    .map((name) => readFileSync(join(dir, name), 'utf8'))
    .join('');
}

/** Waits until the turn's closing checkpoint is recorded (the answer is shown before it). */
async function turnRecorded(zot: TmuxZot, home: string, turn: number) {
  const mark = new RegExp(`"turn":${turn},"phase":"after"`);
  await zot.waitFor(() => mark.test(sessionLines(home)));
}

/** One prompt whose model runs `command` with bash, then answers `answer`. */
async function bashTurn(zot: TmuxZot, prompt: string, command: string, answer: string) {
  llm.script({ toolCalls: [{ name: 'bash', args: { command } }] }, { text: answer });
  zot.submit(prompt);
  await zot.waitFor(answer);
}

test(
  '/rewind: the turns with their files, a conflict named, the diff in colour, then code and conversation come back',
  { skip },
  async (t) => {
    const box = repository(t);
    const zot = await open(t, box);
    await bashTurn(
      zot,
      'change the files',
      "sed -i 's/two/TWO/' a.txt && echo fresh > new.txt && rm c.txt",
      'first turn done',
    );
    await bashTurn(zot, 'append to b', 'echo more >> b.txt', 'second turn done');
    await turnRecorded(zot, box.home, 2);
    // The user edits a.txt in an editor after zot last recorded the tree.
    writeFileSync(join(box.project, 'a.txt'), 'one\nTWO\nthree\nby hand\n');

    zot.submit('/rewind');
    const list = await zot.waitFor('Rewind to before which turn?');
    assert.match(list, /turn 2\s+append to b\s+.*1 file \+1 −0/);
    assert.match(list, /turn 1\s+change the files\s+.*3 files \+2 −2/);
    // Newest first: turn 2 is highlighted; down picks turn 1.
    zot.press('Down');
    zot.press('Enter');
    // The whole dialog (a look can land between the writes of one redraw): its last line too.
    const plan = await zot.waitFor(
      (s) => s.includes('Rewind to before turn 1: change the files') && /1\. Restore code/.test(s),
    );
    assert.match(plan, /Restoring the code changes 4 files:/);
    assert.match(plan, /restore\s+a\.txt\s+\(\+1 −2\)/);
    assert.match(plan, /restore\s+b\.txt\s+\(\+0 −1\)/);
    assert.match(plan, /bring back\s+c\.txt\s+\(\+1 −0\)/);
    assert.match(plan, /remove\s+new\.txt\s+\(\+0 −1\)/);
    assert.match(
      plan,
      /Changed outside zot since its last checkpoint:[^]*?│ {3}a\.txt +│[^]*?\(restoring the code overwrites it\)/,
    );
    assert.match(plan, /1\. Restore code and conversation, overwriting 1 edited file/);
    assert.match(plan, /2\. Restore code only, overwriting 1 edited file/);
    assert.match(plan, /3\. Restore conversation only/);
    assert.match(plan, /4\. Show the diff first/);
    assert.match(plan, /5\. Cancel/);

    // The diff, coloured; Esc goes back to the choices.
    zot.press('d');
    const diff = await zot.waitFor(
      (s) => s.includes('What restoring the code of turn 1 changes') && s.includes('+two'),
      { escapes: true },
    );
    const line = (text: string) => diff.split('\n').find((row) => row.includes(text)) ?? '';
    assert.ok(line('+two').includes(GREEN), 'an added line is green');
    assert.ok(line('-by hand').includes(RED), 'a removed line is red');
    zot.press('Escape');
    await zot.waitFor('5. Cancel');
    assert.equal(read(box, 'b.txt'), 'bee\nmore\n', 'nothing changed yet');

    // Leaving the turns writes a summary of them: the model is asked for one.
    llm.script({ text: 'a summary of the turns left' });
    zot.press('1');
    await zot.waitFor(/the conversation is back to before turn 1 \(0 messages\)/);
    await zot.waitFor(() => llm.pending() === 0);
    const screen = await zot.waitFor(
      /rewound the files to before turn 1: 3 files restored, 1 removed/,
    );
    assert.match(screen, /\/rewind to turn 3 undoes it/);
    assert.doesNotMatch(screen, /first turn done/, 'the chat was replayed without the later turns');
    assert.equal(read(box, 'a.txt'), 'one\ntwo\nthree\n');
    assert.equal(read(box, 'b.txt'), 'bee\n');
    assert.equal(read(box, 'c.txt'), 'sea\n');
    assert.equal(existsSync(join(box.project, 'new.txt')), false);

    // The next prompt carries no message of the rewound turns.
    llm.script({ text: 'a fresh start' });
    zot.submit('hello again');
    await zot.waitFor('a fresh start');
    const sent = JSON.stringify(llm.requests.at(-1)!.body.messages);
    assert.doesNotMatch(sent, /change the files|append to b/);

    // Esc Esc on the empty editor opens the dialog again: the rewind is a turn of its own.
    zot.press('Escape');
    await zot.waitFor('press esc again to rewind');
    zot.press('Escape');
    const again = await zot.waitFor('Rewind to before which turn?');
    assert.match(again, /turn 3\s+rewind to turn 1/);
    zot.press('Escape');
    await zot.waitFor((s) => !s.includes('Rewind to before which turn?'));
  },
);

test(
  '/rewind: a file changed after the preview is not overwritten; code only keeps the chat',
  { skip },
  async (t) => {
    const box = repository(t);
    const zot = await open(t, box);
    await bashTurn(zot, 'edit a', "sed -i 's/one/ONE/' a.txt", 'edited a');
    zot.submit('/rewind');
    await zot.waitFor('Rewind to before which turn?');
    zot.press('Enter');
    const plan = await zot.waitFor('Rewind to before turn 1: edit a');
    assert.doesNotMatch(plan, /Changed outside zot/);
    assert.match(plan, /2\. Restore code only(?!,)/);
    // Changed by hand while the dialog is open: the rewind refuses and names it.
    writeFileSync(join(box.project, 'b.txt'), 'edited meanwhile\n');
    zot.press('2');
    const refused = await zot.waitFor(
      /not rewound: "b\.txt" changed outside zot since the preview/,
    );
    assert.match(refused, /nothing was restored/);
    assert.equal(read(box, 'a.txt'), 'ONE\ntwo\nthree\n');
    assert.equal(read(box, 'b.txt'), 'edited meanwhile\n');

    // Again, now with b.txt named: code only restores both and the chat keeps the turn.
    zot.submit('/rewind');
    await zot.waitFor('Rewind to before which turn?');
    zot.press('Enter');
    const named = await zot.waitFor('Rewind to before turn 1: edit a');
    assert.match(named, /Changed outside zot since its last checkpoint[^]*b\.txt/);
    zot.press('2');
    await zot.waitFor(/rewound the files to before turn 1: 2 files restored/);
    assert.equal(read(box, 'a.txt'), 'one\ntwo\nthree\n');
    assert.equal(read(box, 'b.txt'), 'bee\n');
    assert.match(zot.capture({ scrollback: true }), /edited a/, 'the conversation stays');
  },
);
