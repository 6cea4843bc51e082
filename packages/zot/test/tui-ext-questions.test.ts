// End-to-end in tmux: an extension's questions (ui_request) as TUI dialogs. A real extension
// (the TypeScript SDK) asks during a tool call: confirm, select, masked input, two questions at
// once (the second waits for the first), Esc, a deadline that closes its dialog, and a dialog
// that closes when its extension exits. The answers are checked where the model gets them back.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { FAST_TIMEOUTS } from './support/extensions.js';
import { fakeLlmFlags, startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { tsSdkExtension } from './support/sdk-extensions.js';
import { deadline, hangGuard } from './support/timing.js';
import { HAS_TMUX, TmuxZot } from './support/tmux.js';
import { makeSandbox } from './support/zot.js';

const skip = HAS_TMUX ? false : 'tmux is not installed';
let llm: FakeLlm;
before(async () => {
  llm = await startFakeLlm();
});
after(() => llm.close());

const ENV = { ...FAST_TIMEOUTS, ZOT_EXT_TOOL_TIMEOUT_MS: String(hangGuard(120_000)) };

const source = (lateMs: number) => `import { createExtension } from '@zot/sdk';
const ext = createExtension({ name: 'asker', version: '1.0.0' });
const show = (a) => (a.ok ? a.value : a.reason);
ext.tool('ask_tui', 'asks', { type: 'object' }, async () => {
  const out = {};
  out.confirm = show(await ext.ui.confirm('Delete the \\u001b[31mbuild\\u001b[0m folder?'));
  out.select = show(await ext.ui.select('Which branch?', ['main', 'dev', 'release']));
  out.input = show(await ext.ui.input('Token please', { mask: true }));
  const [first, second] = await Promise.all([
    ext.ui.confirm('First of two?'),
    ext.ui.input('Second of two?'),
  ]);
  out.first = show(first);
  out.second = show(second);
  out.esc = show(await ext.ui.select('Escape me?', ['stay']));
  out.late = show(await ext.ui.confirm('Too slow?', { timeoutMs: ${lateMs} }));
  return JSON.stringify(out);
});
ext.tool('ask_and_exit', 'asks, then exits', { type: 'object' }, async () => {
  void ext.ui.confirm('Doomed question?');
  setTimeout(() => process.exit(3), 300);
  return new Promise(() => undefined);
});
await ext.run();
`;

test(
  'questions become dialogs titled with the extension: confirm, select, masked input, queued, Esc, a deadline, an exit',
  { skip },
  async (t) => {
    const box = makeSandbox();
    t.after(() => box.cleanup());
    // Long enough to be seen on a loaded machine, short enough that the test does not wait long.
    const lateMs = deadline(3, 1500);
    const dir = tsSdkExtension(join(box.home, 'exts'), 'asker', source(lateMs));
    const before = llm.requests.length;
    llm.script(
      { toolCalls: [{ id: 't1', name: 'ask_tui', args: {} }] },
      { text: 'all answered' },
      { toolCalls: [{ id: 't2', name: 'ask_and_exit', args: {} }] },
      { text: 'after the exit' },
    );
    const zot = TmuxZot.start([...fakeLlmFlags(llm.url), '--no-session', '--ext', dir], {
      home: box.home,
      cwd: box.project,
      rows: 40,
      env: ENV,
    });
    t.after(() => zot.kill());
    await zot.waitFor('anthropic/');
    zot.submit('go');

    const confirm = await zot.waitFor('Extension asker asks');
    // The escape sequence is shown, not obeyed.
    assert.match(confirm, /Delete the \\x1b\[31mbuild\\x1b\[0m folder\?/);
    assert.match(confirm, /1\. Yes/);
    assert.match(confirm, /2\. No/);
    zot.type('y');

    await zot.waitFor('Which branch?');
    zot.press('Down');
    zot.press('Enter');

    await zot.waitFor('Token please');
    zot.type('hunter2');
    const masked = await zot.waitFor('•••••••');
    assert.doesNotMatch(masked, /hunter2/);
    zot.press('Enter');

    // Two at once: one dialog, then the next.
    const first = await zot.waitFor('First of two?');
    assert.doesNotMatch(first, /Second of two\?/);
    zot.type('n');
    await zot.waitFor('Second of two?');
    zot.type('both');
    zot.press('Enter');

    await zot.waitFor('Escape me?');
    zot.press('Escape');

    // Nobody answers: the deadline closes the dialog.
    await zot.waitFor('Too slow?');
    await zot.waitFor('all answered', { timeoutMs: hangGuard(20_000) });
    const screen = zot.capture();
    assert.doesNotMatch(screen, /Too slow\?|Extension asker asks/);
    const answers = JSON.parse(stringStarting(llm.requests[before + 1]!.body, '{"confirm"'));
    assert.deepEqual(answers, {
      confirm: true,
      select: 'dev',
      input: 'hunter2',
      first: false,
      second: 'both',
      esc: 'cancelled',
      late: 'cancelled',
    });

    // The extension exits with its question open: the dialog closes.
    zot.submit('again');
    await zot.waitFor('Doomed question?');
    await zot.waitFor((s) => !s.includes('Doomed question?') && /asker/.test(s), {
      timeoutMs: hangGuard(20_000),
    });
  },
);

/** The first string inside `value` (at any depth) that starts with `prefix`. */
function stringStarting(value: unknown, prefix: string): string {
  let found: string | undefined;
  JSON.stringify(value, (_key, item: unknown) => {
    if (found === undefined && typeof item === 'string' && item.startsWith(prefix)) found = item;
    return item;
  });
  assert.ok(found, `no string starting ${prefix} in ${JSON.stringify(value)}`);
  return found;
}
