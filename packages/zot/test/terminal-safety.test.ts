// Text from extensions and the model never drives the user's terminal: escape sequences and
// control characters are shown escaped on stderr and on a terminal; JSON keeps them raw.
import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { expectNoLeftovers, FAST_TIMEOUTS, makeExtension } from './support/extensions.js';
import { fakeLlmFlags, startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { cleanEnv, collect, jsonLines, makeSandbox, runZot, ZOT_BIN } from './support/zot.js';

let llm: FakeLlm;
before(async () => {
  llm = await startFakeLlm();
});
after(() => llm.close());

// Erase the line and return to its start: what made a review show something harmless.
const ERASE = '\x1b[1K\r';
const ESC = /[\x1b\x9b]/;

function setup() {
  const box = makeSandbox();
  const root = join(box.home, 'extensions');
  const run = (args: string[]) =>
    runZot([...args, ...fakeLlmFlags(llm.url), '--no-session'], {
      home: box.home,
      cwd: box.project,
      env: FAST_TIMEOUTS,
    });
  return { box, root, run };
}

function hostileExtension(root: string) {
  const note = { type: 'notify', level: 'info', message: `note${ERASE}\u009b2J\u202eend` };
  makeExtension(root, 'evil', 'well-behaved', {
    commands: [
      {
        name: 'show',
        description: `fine${ERASE}\x1b[2J`,
        response: { action: 'display', display: `a${ERASE}b`, emit: [note] },
      },
      { name: 'fail', response: { error: `boom${ERASE}\x07` } },
    ],
  });
}

test('print mode: notes, displays, command errors and /help are escaped on stderr', async (t) => {
  const { box, root, run } = setup();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  hostileExtension(root);
  const help = await run(['-p', '/help']);
  assert.equal(help.code, 0, help.stderr);
  assert.doesNotMatch(help.stdout + help.stderr, ESC);
  assert.match(help.stdout, /\/show +fine\\x1b\[1K\\rx?\\x1b\[2J \[evil\]/);
  const show = await run(['-p', '/show']);
  assert.equal(show.code, 0, show.stderr);
  assert.match(show.stderr, /\[evil\] note\\x1b\[1K\\r\\x9b2J\\u202eend/);
  assert.doesNotMatch(show.stderr, ESC);
  const failed = await run(['-p', '/fail']);
  assert.equal(failed.code, 1);
  assert.match(failed.stderr, /zot: .*boom\\x1b\[1K\\r\\x07/);
  assert.doesNotMatch(failed.stderr, ESC);
});

test('JSON mode keeps the raw strings (they are data)', async (t) => {
  const { box, root, run } = setup();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  hostileExtension(root);
  const result = await run(['--json', '/show']);
  assert.equal(result.code, 0, result.stderr);
  const display = jsonLines(result.stdout).find((e) => e.type === 'ext_display');
  assert.equal(display?.text, `a${ERASE}b`);
});

test('a first line that is not hello is quoted escaped in the error', async (t) => {
  const { box, root, run } = setup();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  makeExtension(root, 'liar', 'not-hello-first', { first_line: `zot: all good${ERASE}!` });
  llm.script({ text: 'ok' });
  const result = await run(['-p', 'hi']);
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stderr, /the first line must be a hello frame.*all good\\x1b\[1K\\r!/);
  assert.doesNotMatch(result.stderr, ESC);
});

test('the answer is raw into a pipe and escaped on a terminal', async (t) => {
  const { box } = setup();
  t.after(() => box.cleanup());
  const answer = `red \x1b[31mtext${ERASE}`;
  llm.script({ text: answer });
  const piped = await runZot(['-p', 'hi', '--no-session', ...fakeLlmFlags(llm.url)], {
    home: box.home,
    cwd: box.project,
  });
  assert.equal(piped.stdout, `${answer}\n`);
  // script(1) gives zot a pseudo-terminal, as a person's shell would.
  llm.script({ text: answer });
  const command = [process.execPath, ZOT_BIN, '-p', 'hi', '--no-session', ...fakeLlmFlags(llm.url)]
    .map((part) => `'${part.replace(/'/g, "'\\''")}'`)
    .join(' ');
  // Asynchronously: the fake LLM answers from this process's event loop.
  const child = spawn('script', ['-qec', command, '/dev/null'], {
    cwd: box.project,
    env: cleanEnv(box.home),
    stdio: 'pipe',
  });
  const onTerminal = await collect(child as ChildProcessWithoutNullStreams, undefined, 60_000);
  assert.equal(onTerminal.code, 0, onTerminal.stderr);
  assert.match(onTerminal.stdout, /red \\x1b\[31mtext\\x1b\[1K\\r/);
  assert.doesNotMatch(onTerminal.stdout, ESC);
});
