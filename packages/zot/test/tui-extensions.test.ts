// End-to-end in tmux: what extensions show in the TUI. Each command action, notes and their
// clearing, submit while busy, a panel an extension opens itself during a tool call, a reload
// after the extension changed on disk, and an extension that dies with its panel open.
import assert from 'node:assert/strict';
import { cpSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import { fakeLlmFlags, startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { HAS_TMUX, TmuxZot } from './support/tmux.js';
import { makeSandbox } from './support/zot.js';
import { makeExtension, processesMatching } from './support/extensions.js';

const skip = HAS_TMUX ? false : 'tmux is not installed';
const APPROVE = fileURLToPath(
  new URL('../../../../examples/extensions/approve-py', import.meta.url),
);
/** The dark theme's error colour, as the terminal receives it. */
const ERROR_COLOUR = '38;2;247;118;142m';

let llm: FakeLlm;
before(async () => {
  llm = await startFakeLlm();
});
after(() => llm.close());

/** A sandbox with global extensions made by `make(root)`, and the TUI on it. */
function open(
  t: { after(fn: () => void): void },
  make: (root: string) => void,
  options: { args?: string[]; env?: Record<string, string | undefined> } = {},
) {
  const box = makeSandbox();
  t.after(() => box.cleanup());
  const root = join(box.home, 'extensions');
  make(root);
  const zot = TmuxZot.start([...fakeLlmFlags(llm.url), ...(options.args ?? [])], {
    home: box.home,
    cwd: box.project,
    rows: 30,
    ...(options.env ? { env: options.env } : {}),
  });
  t.after(() => zot.kill());
  return { box, root, zot };
}

/** The screen line holding `text`, with its escapes. */
function lineWith(screen: string, text: string): string {
  return screen.split('\n').find((line) => line.includes(text)) ?? '';
}

test(
  'command actions: prompt runs a turn, insert fills the editor, display and error are lines',
  { skip },
  async (t) => {
    const { zot } = open(
      t,
      (root) =>
        makeExtension(root, 'acts', 'well-behaved', {
          commands: [
            { name: 'ask', response: { action: 'prompt', prompt: 'question from the extension' } },
            { name: 'put', response: { action: 'insert', insert: 'inserted text' } },
            { name: 'show', response: { action: 'display', display: 'a shown block' } },
            { name: 'quiet', response: { action: 'noop' } },
            {
              name: 'fail',
              response: { action: 'display', display: 'unseen', error: 'it failed' },
            },
          ],
        }),
      { env: { NO_COLOR: undefined } },
    );
    await zot.waitFor(/· ext 1/);
    llm.script({ text: 'answer to the extension' });
    zot.submit('/ask');
    await zot.waitFor('answer to the extension');
    const asked = llm.requests.at(-1)!.body.messages.at(-1).content;
    assert.equal(asked[0].text, 'question from the extension');

    zot.submit('/put');
    await zot.waitFor(/│?\s*inserted text/);
    zot.press('C-c');
    await zot.waitFor((screen) => !screen.includes('inserted text'));

    zot.submit('/quiet');
    zot.submit('/show');
    await zot.waitFor('a shown block');
    zot.submit('/fail');
    const failed = await zot.waitFor('it failed', { escapes: true });
    assert.ok(lineWith(failed, 'it failed').includes(ERROR_COLOUR), 'the error is red');
    assert.doesNotMatch(failed, /unseen/, 'an error wins over the action');
    assert.equal(llm.pending(), 0);
    assert.equal(llm.requests.length >= 1, true);
  },
);

test(
  'notes: [name] message below the chat; clear_notes takes only its own; the next prompt clears the rest',
  { skip },
  async (t) => {
    const { zot } = open(t, (root) => {
      makeExtension(root, 'noter', 'well-behaved', {
        emit_after_ready: [{ type: 'notify', level: 'warn', message: 'heads up' }],
        commands: [
          { name: 'unnote', response: { action: 'noop', emit: [{ type: 'clear_notes' }] } },
        ],
      });
      makeExtension(root, 'other', 'well-behaved', {
        emit_after_ready: [{ type: 'notify', level: 'info', message: 'other note' }],
      });
    });
    const both = await zot.waitFor(
      (s) => s.includes('[noter] heads up') && s.includes('[other] other note'),
    );
    // Below the chat: the notes come after the banner and before the editor's rule.
    assert.ok(both.indexOf('[noter] heads up') > both.indexOf('zot 0.1.0'));
    zot.submit('/unnote');
    await zot.waitFor((s) => !s.includes('[noter]') && s.includes('[other] other note'));
    llm.script({ text: 'noted' });
    zot.submit('hello');
    await zot.waitFor((s) => s.includes('noted') && !s.includes('[other]'));
  },
);

test('submit while a turn runs is queued behind it like typed input', { skip }, async (t) => {
  const { zot } = open(t, (root) =>
    makeExtension(root, 'sub', 'well-behaved', {
      commands: [
        {
          name: 'later',
          response: {
            action: 'noop',
            emit: [{ type: 'submit', text: 'submitted by the extension' }],
          },
        },
      ],
    }),
  );
  await zot.waitFor(/· ext 1/);
  llm.script(
    { text: ['first ', 'answer ', 'slowly ', 'done'], chunkDelayMs: 400 },
    { text: 'second answer done' },
  );
  zot.submit('first prompt');
  await zot.waitFor('working');
  zot.submit('/later');
  await zot.waitFor('queued › submitted by the extension');
  const screen = await zot.waitFor('second answer done');
  assert.ok(screen.indexOf('first answer slowly done') < screen.indexOf('second answer done'));
  assert.equal(
    llm.requests.at(-1)!.body.messages.at(-1).content[0].text,
    'submitted by the extension',
  );
});

test(
  'an extension asks during a tool call (approve-py, ext.ui.confirm): y lets the tool finish',
  { skip },
  async (t) => {
    const box = makeSandbox();
    t.after(() => box.cleanup());
    const dir = join(box.project, '..', 'approve-py');
    cpSync(APPROVE, dir, { recursive: true });
    const zot = TmuxZot.start([...fakeLlmFlags(llm.url), '--ext', dir], {
      home: box.home,
      cwd: box.project,
      rows: 30,
      env: { ZOT_EXT_TOOL_TIMEOUT_MS: '60000' },
    });
    t.after(() => zot.kill());
    await zot.waitFor(/· ext 1/);
    llm.script(
      { toolCalls: [{ name: 'approve_write', args: { path: 'note.txt', content: 'hi there\n' } }] },
      { text: 'the note is written' },
    );
    zot.submit('write the note');
    const dialog = await zot.waitFor('Write note.txt?');
    assert.match(dialog, /Extension approve-py asks/);
    assert.match(dialog, /hi there/);
    assert.equal(existsSync(join(box.project, 'note.txt')), false, 'nothing before the answer');
    zot.type('y');
    await zot.waitFor('the note is written');
    assert.equal(readFileSync(join(box.project, 'note.txt'), 'utf8'), 'hi there\n');
  },
);

test(
  'an extension changed on disk and /reload-ext: its new tool is called in the next turn',
  { skip },
  async (t) => {
    const { zot, root } = open(t, (dir) =>
      makeExtension(dir, 'grows', 'well-behaved', { tools: ['old_tool'] }),
    );
    await zot.waitFor(/· ext 1/);
    makeExtension(root, 'grows', 'well-behaved', { tools: ['new_tool'] });
    zot.submit('/reload-ext');
    await zot.waitFor('reloaded extensions: 1 ready');
    llm.script({ toolCalls: [{ name: 'new_tool', args: {} }] }, { text: 'the new tool answered' });
    zot.submit('use the new tool');
    await zot.waitFor('the new tool answered');
    const request = llm.requests.at(-2)!.body;
    const offered = request.tools.map((tool: { name: string }) => tool.name);
    assert.ok(offered.includes('new_tool') && !offered.includes('old_tool'), offered.join(', '));
    const result = JSON.stringify(llm.requests.at(-1)!.body.messages.at(-1));
    assert.match(result, /new_tool:\{\}/, 'the extension answered the call');
  },
);

test(
  'an extension that dies with its panel open: the panel closes with a red line; zot goes on',
  { skip },
  async (t) => {
    const { zot, root } = open(
      t,
      (dir) =>
        makeExtension(dir, 'doomed', 'well-behaved', {
          commands: [
            {
              name: 'board',
              response: {
                action: 'open_panel',
                open_panel: { id: 'board', title: 'Doomed board', lines: ['one line'] },
              },
            },
          ],
        }),
      { env: { NO_COLOR: undefined } },
    );
    await zot.waitFor(/· ext 1/);
    zot.submit('/board');
    await zot.waitFor('Doomed board');
    const [pid] = processesMatching(root).map((line) => Number(line.trim().split(/\s+/)[0]));
    assert.ok(pid, 'the extension runs');
    process.kill(pid!, 'SIGKILL');
    const screen = await zot.waitFor(
      (s) => !s.includes('Doomed board') && s.includes('ext-doomed.log'),
      { escapes: true },
    );
    const line = lineWith(screen, 'doomed');
    assert.ok(line.includes(ERROR_COLOUR), `red: ${line}`);
    assert.equal(screen.split('ext-doomed.log').length - 1, 1, 'reported once');
    llm.script({ text: 'still working' });
    zot.submit('are you there');
    await zot.waitFor('still working');
  },
);
