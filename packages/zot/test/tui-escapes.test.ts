// End-to-end in tmux, recording every byte zot writes to its terminal: hostile text from an
// extension's insert, the prompt history, a file name, the model's tool call and a session file
// is shown as visible escapes and never reaches the terminal as a sequence it obeys (an OSC 52
// clipboard write, a clear screen, a C1 control, a right-to-left override).
import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { cwdKey, sessionDir } from '../src/session/store.js';
import { HOSTILE, HOSTILE_SHOWN, terminalHazards } from '../src/tui/testing/terminal-bytes.js';
import { makeExtension } from './support/extensions.js';
import { fakeLlmFlags, startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { HAS_TMUX, TmuxZot } from './support/tmux.js';
import { makeSandbox } from './support/zot.js';

const skip = HAS_TMUX ? false : 'tmux is not installed';
let llm: FakeLlm;
before(async () => {
  llm = await startFakeLlm();
});
after(() => llm.close());

type Box = ReturnType<typeof makeSandbox>;

function sandbox(t: { after(fn: () => void): void }): Box {
  const box = makeSandbox();
  t.after(() => box.cleanup());
  return box;
}

/** zot in tmux, every byte it writes recorded in `<home>/../<name>.raw`. */
function open(t: { after(fn: () => void): void }, box: Box, name: string, args: string[] = []) {
  const zot = TmuxZot.start([...fakeLlmFlags(llm.url), ...args], {
    home: box.home,
    cwd: box.project,
    rows: 30,
    columns: 120,
    raw: join(box.home, '..', `${name}.raw`),
  });
  t.after(() => zot.kill());
  return zot;
}

/** Waits until the recording holds `shown`, then checks that nothing in it is more than text. */
async function assertOnlyText(zot: TmuxZot, shown: string): Promise<void> {
  const raw = await zot.raw(shown);
  assert.deepEqual(terminalHazards(raw), [], 'nothing but text reached the terminal');
}

test(
  "an extension's insert shows escaped, is sent as shown, and is recalled escaped from the history after a restart",
  { skip },
  async (t) => {
    const box = sandbox(t);
    const root = join(box.home, 'extensions');
    makeExtension(root, 'inserter', 'well-behaved', {
      commands: [{ name: 'put', response: { action: 'insert', insert: `say ${HOSTILE}` } }],
    });
    const first = open(t, box, 'first');
    await first.waitFor(/· ext 1/);
    first.submit('/put');
    await first.waitFor(`say ${HOSTILE_SHOWN}`);
    llm.script({ text: 'noted it' });
    first.press('Enter');
    await first.waitFor('noted it');
    const sent = llm.requests.at(-1)!.body.messages.at(-1).content[0].text;
    assert.equal(sent, `say ${HOSTILE_SHOWN}`, 'what was sent is what was shown');
    await assertOnlyText(first, 'noted it');
    first.kill();

    // No extension now; the history file is untrusted too: a line written by hand, raw.
    rmSync(root, { recursive: true, force: true });
    const history = join(box.home, 'history', `${cwdKey(box.project)}.jsonl`);
    appendFileSync(history, `${JSON.stringify(`by hand ${HOSTILE}`)}\n`);
    const second = open(t, box, 'second');
    await second.waitFor('anthropic/');
    second.press('Up');
    await second.waitFor(`by hand ${HOSTILE_SHOWN}`);
    second.press('Up');
    await second.waitFor(`say ${HOSTILE_SHOWN}`);
    await assertOnlyText(second, `say ${HOSTILE_SHOWN}`);
  },
);

test(
  'file names with an escape sequence or a right-to-left override complete escaped on @ and Tab',
  { skip },
  async (t) => {
    const box = sandbox(t);
    writeFileSync(join(box.project, 'evil\x1b]52;c;SEFDSw==\x07name.txt'), '');
    writeFileSync(join(box.project, 'report\u202etxt.exe'), '');
    const zot = open(t, box, 'names');
    await zot.waitFor('anthropic/');
    zot.type('@ev');
    await zot.waitFor('evil\\x1b]52;c;SEFDSw==\\x07name.txt');
    zot.press('Tab');
    await zot.waitFor(/^@evil\\x1b\]52;c;SEFDSw==\\x07name\.txt\s*$/m);
    zot.press('C-c');
    await zot.waitFor((screen) => !screen.includes('@evil'));
    zot.type('@rep');
    await zot.waitFor('report\\u202etxt.exe');
    zot.press('Tab');
    await zot.waitFor(/^@report\\u202etxt\.exe\s*$/m);
    await assertOnlyText(zot, '@report\\u202etxt.exe');
  },
);

test(
  "a tool call's hostile name from the model, and from a session file opened with /sessions, is escaped in its row",
  { skip },
  async (t) => {
    const box = sandbox(t);
    const zot = open(t, box, 'tools');
    await zot.waitFor('anthropic/');
    llm.script(
      { toolCalls: [{ name: `bash${HOSTILE}`, args: { command: 'ls' } }] },
      { text: 'after the tool' },
    );
    zot.submit('run it');
    const screen = await zot.waitFor('after the tool');
    assert.ok(screen.includes(`bash${HOSTILE_SHOWN}`), screen);
    await assertOnlyText(zot, 'after the tool');

    // A crafted session: its name, first prompt, tool call and tool result all hostile.
    const dir = sessionDir(join(box.home, 'sessions'), box.project);
    mkdirSync(dir, { recursive: true });
    const time = '2025-01-01T00:00:00.000Z';
    const entries = [
      {
        type: 'session',
        version: 1,
        cwd: box.project,
        created: time,
        provider: 'anthropic',
        model: 'claude-sonnet-4-5',
      },
      {
        type: 'message',
        message: { role: 'user', content: [{ type: 'text', text: `asked ${HOSTILE}` }], time },
      },
      {
        type: 'message',
        message: {
          role: 'assistant',
          content: [{ type: 'tool_call', id: 'c1', name: `grep${HOSTILE}`, args: {} }],
          time,
        },
      },
      {
        type: 'message',
        message: {
          role: 'tool',
          content: [
            {
              type: 'tool_result',
              call_id: 'c1',
              is_error: true,
              content: [{ type: 'text', text: `failed ${HOSTILE}` }],
            },
          ],
          time,
        },
      },
      { type: 'name', time, name: `crafted ${HOSTILE}` },
    ];
    const file = join(dir, '2025-01-01T00-00-00-000Z_abcdef.jsonl');
    writeFileSync(file, entries.map((e) => JSON.stringify(e)).join('\n') + '\n');
    const old = new Date(time);
    utimesSync(file, old, old);
    zot.submit('/sessions');
    await zot.waitFor(`crafted ${HOSTILE_SHOWN.slice(0, 20)}`);
    // The crafted one is the older; the list starts on the open session.
    zot.press('Down');
    zot.press('Enter');
    const replayed = await zot.waitFor(`grep${HOSTILE_SHOWN}`);
    assert.ok(replayed.includes(`asked ${HOSTILE_SHOWN}`), replayed);
    assert.ok(replayed.includes(`failed ${HOSTILE_SHOWN}`), replayed);
    await assertOnlyText(zot, `failed ${HOSTILE_SHOWN}`);
  },
);
