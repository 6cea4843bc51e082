// End-to-end: the interactive TUI's session handling in tmux: no credentials, --no-yolo,
// /model, -c, /new, a provider error and the prompt after it.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fakeLlmFlags, startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { HAS_TMUX, TmuxZot, type TmuxOptions } from './support/tmux.js';
import { makeSandbox } from './support/zot.js';

const skip = HAS_TMUX ? false : 'tmux is not installed';
/** The theme's error colour (dark theme, #f7768e), as tmux reports it. */
const RED = /\x1b\[38;2;247;118;142m/;

let llm: FakeLlm;
before(async () => {
  llm = await startFakeLlm();
});
after(async () => {
  await llm.close();
});

type Box = ReturnType<typeof makeSandbox>;

function sandbox(t: { after(fn: () => void): void }): Box {
  const box = makeSandbox();
  t.after(() => box.cleanup());
  return box;
}

function open(
  t: { after(fn: () => void): void },
  box: Box,
  args: string[],
  extra: Partial<TmuxOptions> = {},
) {
  const zot = TmuxZot.start(args, { home: box.home, cwd: box.project, ...extra });
  t.after(() => zot.kill());
  return zot;
}

test(
  'without credentials the TUI opens and a prompt shows the error with /login, in red',
  { skip },
  async (t) => {
    const box = sandbox(t);
    const zot = open(t, box, ['--provider', 'anthropic'], { env: { NO_COLOR: undefined } });
    const start = await zot.waitFor('anthropic/');
    assert.match(start, /no API key for anthropic yet: \/login stores one/, 'said at start');
    zot.submit('hello');
    const screen = await zot.waitFor(
      (s) => s.split('\n').some((l) => l.includes('error: no API key')),
      { escapes: true },
    );
    assert.match(screen, /\/login/);
    const line = screen.split('\n').find((l) => l.includes('error: no API key'))!;
    assert.match(line, RED);
  },
);

test('--no-yolo asks before a tool runs: Enter allows it', { skip }, async (t) => {
  const box = sandbox(t);
  const zot = open(t, box, [...fakeLlmFlags(llm.url), '--no-yolo']);
  await zot.waitFor('anthropic/');
  llm.script(
    { toolCalls: [{ name: 'bash', args: { command: 'echo yes > allowed.txt' } }] },
    { text: 'Allowed and done.' },
  );
  zot.submit('make a file');
  const dialog = await zot.waitFor('Allow bash?');
  assert.match(dialog, /echo yes > allowed\.txt/);
  assert.equal(existsSync(join(box.project, 'allowed.txt')), false);
  zot.press('Enter');
  await zot.waitFor('Allowed and done.');
  assert.equal(readFileSync(join(box.project, 'allowed.txt'), 'utf8'), 'yes\n');
  assert.doesNotMatch(zot.capture(), /Allow bash\?/);
});

test('--no-yolo asks before a tool runs: Esc denies it', { skip }, async (t) => {
  const box = sandbox(t);
  const zot = open(t, box, [...fakeLlmFlags(llm.url), '--no-yolo']);
  await zot.waitFor('anthropic/');
  llm.script(
    { toolCalls: [{ name: 'bash', args: { command: 'echo no > denied.txt' } }] },
    { text: 'Denied, so I stopped.' },
  );
  zot.submit('make another file');
  await zot.waitFor('Allow bash?');
  zot.press('Escape');
  await zot.waitFor('Denied, so I stopped.');
  assert.equal(existsSync(join(box.project, 'denied.txt')), false);
  // The model was told: the second request carries an error result for the call.
  const results = llm.requests
    .at(-1)!
    .body.messages.flatMap((m: { content: unknown }) => (Array.isArray(m.content) ? m.content : []))
    .filter((b: { type: string }) => b.type === 'tool_result');
  assert.equal(results.at(-1).is_error, true);
});

test('/model <id> switches the model and the status line shows it', { skip }, async (t) => {
  const box = sandbox(t);
  const zot = open(t, box, fakeLlmFlags(llm.url));
  await zot.waitFor('anthropic/claude-sonnet-4-5');
  zot.submit('/model claude-haiku-4-5');
  await zot.waitFor((s) => s.split('\n').some((l) => l.includes('· anthropic/claude-haiku-4-5')));
  llm.script({ text: 'from haiku' });
  zot.submit('which model?');
  await zot.waitFor('from haiku');
  assert.equal(llm.requests.at(-1)!.body.model, 'claude-haiku-4-5');
});

test('-c resumes the newest session and replays its transcript', { skip }, async (t) => {
  const box = sandbox(t);
  const first = open(t, box, fakeLlmFlags(llm.url));
  await first.waitFor('anthropic/');
  llm.script({ text: 'an answer worth keeping' });
  first.submit('a question from before');
  await first.waitFor('an answer worth keeping');
  first.submit('/exit');
  assert.equal(await first.waitForExit(), 0);

  const second = open(t, box, [...fakeLlmFlags(llm.url), '-c']);
  const screen = await second.waitFor('an answer worth keeping');
  assert.match(screen, /a question from before/);
  llm.script({ text: 'continued' });
  second.submit('and now?');
  await second.waitFor('continued');
  // The model saw the earlier exchange.
  assert.equal(llm.requests.at(-1)!.body.messages.length, 3);
});

test('/new starts a new session: the screen and the transcript start over', { skip }, async (t) => {
  const box = sandbox(t);
  const zot = open(t, box, fakeLlmFlags(llm.url));
  await zot.waitFor('anthropic/');
  llm.script({ text: 'old conversation' });
  zot.submit('before new');
  await zot.waitFor('old conversation');
  zot.submit('/new');
  await zot.waitFor((s) => s.includes('new session:') && !s.includes('old conversation'));
  llm.script({ text: 'fresh start' });
  zot.submit('after new');
  await zot.waitFor('fresh start');
  assert.equal(llm.requests.at(-1)!.body.messages.length, 1);
});

test('a provider error is shown in red and the next prompt works', { skip }, async (t) => {
  const box = sandbox(t);
  const zot = open(t, box, fakeLlmFlags(llm.url), { env: { NO_COLOR: undefined } });
  await zot.waitFor('anthropic/');
  llm.script({ status: 401, errorMessage: 'invalid x-api-key' });
  zot.submit('first try');
  const screen = await zot.waitFor('HTTP 401', { escapes: true });
  const line = screen.split('\n').find((l) => l.includes('HTTP 401'))!;
  assert.match(line, RED);
  // A key the provider refused: the error's kind (auth), not its words, brings the hint.
  await zot.waitFor('hint: /login stores an API key');
  llm.script({ text: 'working again' });
  zot.submit('second try');
  await zot.waitFor('working again');
});
