// End-to-end: the interactive TUI in a real pseudo-terminal (tmux) against the fake LLM server:
// a prompt and its answer, a tool call, the queue while busy, Esc, Ctrl+C once and twice.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fakeLlmFlags, startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { until } from './support/pipes.js';
import { EXIT_MARK, HAS_TMUX, SHELL_PROMPT, TmuxZot } from './support/tmux.js';
import { makeSandbox } from './support/zot.js';

const skip = HAS_TMUX ? false : 'tmux is not installed';

let llm: FakeLlm;
before(async () => {
  llm = await startFakeLlm();
});
after(async () => {
  await llm.close();
});

/** A sandbox and a TUI on the fake LLM; both go away with the test. */
function open(t: { after(fn: () => void): void }, args: string[] = []) {
  const box = makeSandbox();
  const zot = TmuxZot.start([...fakeLlmFlags(llm.url), ...args], {
    home: box.home,
    cwd: box.project,
  });
  t.after(() => {
    zot.kill();
    box.cleanup();
  });
  return { zot, box };
}

/** The TUI is up when its status line shows the model. */
const ready = (zot: TmuxZot) => zot.waitFor('anthropic/');

test('a prompt typed in the editor is answered on screen', { skip }, async (t) => {
  const { zot } = open(t);
  await ready(zot);
  llm.script({ text: ['Streamed ', 'answer ', 'arrives.'], chunkDelayMs: 20 });
  zot.submit('say something');
  const screen = await zot.waitFor('Streamed answer arrives.');
  assert.match(screen, /say something/);
  assert.equal(llm.requests.at(-1)!.body.messages.at(-1).content[0].text, 'say something');
});

test('a tool call runs, and its answer follows', { skip }, async (t) => {
  const { zot, box } = open(t);
  await ready(zot);
  llm.script(
    { toolCalls: [{ name: 'bash', args: { command: 'echo tool-ran > marker.txt' } }] },
    { text: 'The tool ran.' },
  );
  zot.submit('run the tool');
  await zot.waitFor('The tool ran.');
  assert.equal(readFileSync(join(box.project, 'marker.txt'), 'utf8'), 'tool-ran\n');
});

test(
  'a tool row: the tool and its preview, then the collapsed tail with the count; ctrl+o expands',
  { skip },
  async (t) => {
    const { zot } = open(t);
    await ready(zot);
    llm.script(
      { toolCalls: [{ name: 'bash', args: { command: 'seq 1 12' } }] },
      { text: 'Row done.' },
    );
    zot.submit('show a tool row');
    const screen = await zot.waitFor('Row done.');
    assert.match(screen, /✓ bash seq 1 12/);
    assert.match(screen, /… 7 earlier lines, 12 total \(ctrl\+o to expand\)/);
    assert.match(screen, /^ +12$/m, 'the tail is shown');
    assert.doesNotMatch(screen, /^ +3$/m, 'the head is folded away');
    zot.press('C-o');
    const expanded = await zot.waitFor(/^ +3$/m);
    assert.doesNotMatch(expanded, /earlier lines/);
  },
);

test(
  'Enter while a turn runs queues the prompt; both are answered in order',
  { skip },
  async (t) => {
    const { zot } = open(t);
    await ready(zot);
    llm.script(
      { text: ['first ', 'answer ', 'slowly ', 'done'], chunkDelayMs: 400 },
      { text: 'second answer done' },
    );
    zot.submit('first prompt');
    await zot.waitFor('working');
    zot.submit('second prompt');
    await zot.waitFor('queued › second prompt');
    const screen = await zot.waitFor('second answer done');
    const first = screen.indexOf('first answer slowly done');
    const second = screen.indexOf('second answer done');
    assert.ok(first !== -1 && first < second, `answers in order:\n${screen}`);
    assert.doesNotMatch(screen, /queued ›/);
  },
);

test(
  'alt+up takes the last queued message back into the editor; the edited one is what runs',
  { skip },
  async (t) => {
    const { zot } = open(t);
    await ready(zot);
    llm.script(
      { text: ['slow ', 'first ', 'answer'], chunkDelayMs: 500 },
      { text: 'answered the edit' },
    );
    zot.submit('first prompt');
    await zot.waitFor('working');
    zot.submit('typo prompt');
    await zot.waitFor('queued › typo prompt');
    zot.press('M-Up');
    await zot.waitFor((s) => !s.includes('queued › typo prompt'));
    zot.press('C-u');
    zot.submit('fixed prompt');
    await zot.waitFor('answered the edit');
    const sent = JSON.stringify(llm.requests.at(-1)!.body.messages);
    assert.match(sent, /fixed prompt/);
    assert.doesNotMatch(sent, /typo prompt/);
  },
);

test('Esc cancels the running turn and the queue; the next prompt works', { skip }, async (t) => {
  const { zot } = open(t);
  await ready(zot);
  llm.script({ text: 'never finished', hang: true }, { text: 'dropped reply' });
  zot.submit('hang please');
  await zot.waitFor('working');
  // The request is at the server (its reply taken) before Esc: on a loaded machine 'working'
  // can show before the request has arrived, and a cancel then leaves the hang reply queued.
  await until(() => llm.pending() === 1);
  zot.submit('queued then dropped');
  await zot.waitFor('queued › queued then dropped');
  zot.press('Escape');
  await zot.waitFor((s) => /cancelled/.test(s) && !/working/.test(s));
  assert.doesNotMatch(zot.capture(), /queued ›/);
  // The queued prompt never reached the model (its reply is still scripted): it is back in the
  // editor, to be changed or sent again.
  assert.equal(llm.pending(), 1);
  assert.match(zot.capture(), /queued message is back in the editor/);
  assert.match(zot.capture(), /│?\s*queued then dropped/);
  zot.press('C-u');
  await zot.waitFor((s) => !s.includes('queued then dropped'));
  llm.script({ text: 'after the cancel' });
  // The dropped reply answers the next prompt; then ours.
  zot.submit('again');
  await zot.waitFor('dropped reply');
  zot.submit('once more');
  await zot.waitFor('after the cancel');
});

test(
  'Ctrl+C once warns and clears; twice exits, leaving the transcript above the shell',
  { skip },
  async (t) => {
    const { zot } = open(t);
    await ready(zot);
    llm.script({ text: 'kept in the scrollback' });
    zot.submit('remember me');
    await zot.waitFor('kept in the scrollback');
    zot.type('draft text');
    await zot.waitFor('draft text');
    zot.press('C-c'); // clears the editor, does not exit
    await zot.waitFor((s) => !s.includes('draft text'));
    zot.press('C-c');
    await zot.waitFor('press ctrl+c again to exit');
    assert.doesNotMatch(zot.capture({ scrollback: true }), new RegExp(`\\${EXIT_MARK}`));
    zot.press('C-c');
    assert.equal(await zot.waitForExit(), 0);
    const all = zot.capture({ scrollback: true });
    const answer = all.lastIndexOf('kept in the scrollback');
    const exit = all.indexOf(EXIT_MARK);
    assert.ok(answer !== -1 && answer < exit, `transcript above the exit:\n${all}`);
    assert.ok(all.indexOf(SHELL_PROMPT) > exit);
    // Nothing of the editor or status line is left below the transcript.
    assert.doesNotMatch(all.slice(answer, exit), /anthropic\/|press ctrl\+c/);
  },
);

test('zot "text" opens the TUI and sends the text as the first prompt', { skip }, async (t) => {
  llm.script({ text: 'first prompt answered' });
  const { zot, box } = open(t, ['hello from argv']);
  await zot.waitFor('first prompt answered');
  assert.match(zot.capture(), /hello from argv/);
  // The prompt joined this project's history.
  zot.press('Up');
  await zot.waitFor((s) => s.split('\n').filter((l) => l.includes('hello from argv')).length >= 2);
  assert.ok(existsSync(join(box.home, 'history')));
});

test(
  'Alt+Enter while a tool runs steers: the model sees it after the tool result',
  { skip },
  async (t) => {
    const { zot } = open(t);
    await ready(zot);
    llm.script(
      { toolCalls: [{ name: 'bash', args: { command: 'sleep 2' } }] },
      { text: 'steered answer' },
    );
    zot.submit('start a slow tool');
    await zot.waitFor('working');
    zot.type('also mention tests');
    zot.press('M-Enter');
    await zot.waitFor('steered answer');
    const messages = llm.requests.at(-1)!.body.messages as Array<{ role: string; content: any }>;
    const last = messages.at(-1)!;
    assert.equal(last.role, 'user');
    const texts = last.content.filter((b: { type: string }) => b.type === 'text');
    assert.equal(texts.at(-1).text, 'also mention tests');
    assert.ok(last.content.some((b: { type: string }) => b.type === 'tool_result'));
  },
);

test('Ctrl+J inserts a newline; Enter sends both lines', { skip }, async (t) => {
  const { zot } = open(t);
  await ready(zot);
  llm.script({ text: 'two lines received' });
  zot.type('line one');
  zot.press('C-j');
  zot.type('line two');
  await zot.waitFor('line two');
  zot.press('Enter');
  await zot.waitFor('two lines received');
  assert.equal(llm.requests.at(-1)!.body.messages.at(-1).content[0].text, 'line one\nline two');
});
