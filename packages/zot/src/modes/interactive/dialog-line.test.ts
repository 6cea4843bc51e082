// The tool confirmation and an extension's question on one headless terminal: a question asked
// while the confirmation is open waits behind it (it neither covers nor replaces it) and shows
// once the confirmation is answered; a confirmation asked during a question waits likewise.
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { TUI } from '@mariozechner/pi-tui';
import type { InteractiveSession } from '../../contract/front-end.js';
import { createTheme, DARK } from '../../tui/theme.js';
import { VirtualTerminal } from '../../tui/testing/virtual-terminal.js';
import { DialogLine } from './dialog-line.js';
import { Dialogs } from './dialogs.js';
import { questionDialogs } from './question-dialogs.js';

function mount(context: TestContext) {
  const terminal = new VirtualTerminal({ columns: 100, rows: 30 });
  const tui = new TUI(terminal);
  tui.start();
  context.after(() => {
    tui.stop();
    terminal.dispose();
  });
  const theme = createTheme(DARK, false);
  const dialogs = new Dialogs({
    tui,
    theme,
    session: {} as InteractiveSession,
    surface: { display: () => undefined, replay: () => undefined },
  });
  const line = new DialogLine();
  return {
    terminal,
    confirm: dialogs.confirmer(line),
    ask: questionDialogs(tui, theme, line),
    shows: (text: string) => terminal.screen().join('\n').includes(text),
  };
}

const request = { id: 'c1', tool_name: 'bash', tool_detail: 'rm -rf build', args: {} };
const question = {
  id: 'q1',
  extension: 'weather',
  kind: 'confirm' as const,
  title: 'Fetch the forecast?',
};

test('a question asked while the tool confirmation is open waits for its answer', async (t) => {
  const m = mount(t);
  const decision = m.confirm(request as never, new AbortController().signal);
  await m.terminal.until(() => m.shows('rm -rf build'));
  const answer = m.ask(question, new AbortController().signal);
  await new Promise((resolve) => setTimeout(resolve, 50));
  await m.terminal.flush();
  assert.equal(m.shows('Fetch the forecast?'), false, 'the question stays behind');
  assert.equal(m.shows('rm -rf build'), true, 'the confirmation is still there');
  m.terminal.type('\r'); // yes
  assert.equal(await decision, 'allow');
  await m.terminal.until(() => m.shows('Fetch the forecast?'));
  assert.equal(m.shows('rm -rf build'), false);
  m.terminal.type('n');
  assert.deepEqual(await answer, { value: false });
});

test('a confirmation asked during a question waits; one withdrawn meanwhile never shows', async (t) => {
  const m = mount(t);
  const answer = m.ask(question, new AbortController().signal);
  await m.terminal.until(() => m.shows('Fetch the forecast?'));
  const withdrawn = new AbortController();
  const first = m.confirm(request as never, withdrawn.signal);
  const second = m.confirm(
    { ...request, tool_detail: 'ls -la' } as never,
    new AbortController().signal,
  );
  withdrawn.abort();
  m.terminal.type('y');
  assert.deepEqual(await answer, { value: true });
  assert.equal(await first, 'deny');
  await m.terminal.until(() => m.shows('ls -la'));
  assert.equal(m.shows('rm -rf build'), false);
  m.terminal.type('\x1b'); // no
  assert.equal(await second, 'deny');
});
