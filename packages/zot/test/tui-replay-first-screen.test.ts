// A resumed session's first frame draws only the newest blocks (what fits on the screen);
// the older drawn turns follow in one later frame, above them. The terminal must end up holding
// exactly what drawing everything at once leaves (scrollback included, the shell's lines above
// untouched), on @xterm/headless at 60 and 200 columns, with colours and under NO_COLOR.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { Editor, TUI } from '@mariozechner/pi-tui';
import type { Message } from '../src/contract/content.js';
import { ChatView } from '../src/modes/interactive/chat/chat-view.js';
import { loadSessionText } from '../src/session/load.js';
import { FittedFrame } from '../src/tui/fitted-frame.js';
import { memoizeFrames } from '../src/tui/frame-memo.js';
import { VirtualTerminal } from '../src/tui/testing/virtual-terminal.js';
import { createTheme, DARK } from '../src/tui/theme.js';
import { writeLongSession } from './support/long-session.js';

const ROWS = 30;

function longTranscript(turns: number): Message[] {
  const dir = mkdtempSync(join(tmpdir(), 'zot-replay-'));
  try {
    const file = join(dir, 'long.jsonl');
    writeLongSession(file, { turns, cwd: dir });
    return loadSessionText(readFileSync(file), file).messages as Message[];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The app's screen (chat, editor) on a headless terminal whose shell printed two lines. */
function screen(columns: number, color: boolean) {
  const terminal = new VirtualTerminal({ columns, rows: ROWS, scrollback: 5000, record: true });
  terminal.write('$ earlier shell output\r\n$ zot --continue\r\n');
  const tui = new TUI(terminal);
  memoizeFrames(tui);
  const theme = createTheme(DARK, color);
  const chat = new ChatView({ tui, theme, preview: (name) => `${name} call` });
  const editor = new Editor(tui, {
    borderColor: theme.border,
    selectList: {
      selectedPrefix: theme.selected,
      selectedText: theme.selected,
      description: theme.muted,
      scrollInfo: theme.dim,
      noMatch: theme.muted,
    },
  });
  const frame = new FittedFrame();
  frame.addChild(chat.container);
  frame.addChild(editor);
  frame.mount(tui);
  tui.setFocus(editor);
  chat.display('zot · banner');
  return { terminal, tui, chat, frame };
}

/** Waits (on frames, not on time) until the chat draws `expected`. */
async function untilDrawn(
  view: ReturnType<typeof screen>,
  expected: readonly string[],
  columns: number,
): Promise<void> {
  for (let i = 0; i < 10_000; i++) {
    const lines = view.chat.container.render(columns);
    if (lines.length === expected.length && lines.every((line, j) => line === expected[j])) return;
    await new Promise((wake) => setImmediate(wake));
  }
  assert.fail('the older turns were never drawn');
}

const messages = longTranscript(40);

for (const color of [true, false]) {
  for (const columns of [60, 200]) {
    const label = `${columns} columns${color ? '' : ', NO_COLOR'}`;

    test(`the first frame holds the newest turns only; the terminal ends as if drawn at once (${label})`, async () => {
      const whole = screen(columns, color);
      whole.chat.replay(messages);
      whole.tui.start();
      await whole.terminal.until((rows) => rows.some((row) => row.includes('Step 39')));
      const expected = whole.chat.container.render(columns);

      const lazy = screen(columns, color);
      lazy.chat.replay(messages, { firstScreen: true });
      lazy.tui.start();
      await lazy.terminal.until((rows) => rows.some((row) => row.includes('Step 39')));
      const recorded = lazy.terminal.recorded;
      const first = recorded.slice(0, recorded.indexOf('\x1b[?2026l'));
      // The first frame fits the screen: later frames can draw above it without a clear.
      const firstLines = first.split('\r\n').length;
      assert.ok(firstLines <= ROWS, `${firstLines} lines in the first frame`);
      assert.ok(first.length < expected.join('\n').length / 4, `${first.length} bytes first`);
      const newest = expected.filter((line) => line.trim() !== '').at(-1)!;
      assert.ok(first.includes(newest), 'the newest lines are in the first frame');
      assert.ok(!first.includes('Step 30'), 'older turns are not');
      await untilDrawn(lazy, expected, columns);
      // The frame that draws them, on the terminal.
      const oldest = 'please do step 20 of the plan';
      await lazy.terminal.until(() => lazy.terminal.allLines().some((l) => l.includes(oldest)));
      await lazy.terminal.until(
        () => lazy.terminal.allLines().length >= whole.terminal.allLines().length,
      );
      await whole.terminal.flush();
      assert.deepEqual(lazy.terminal.allLines(), whole.terminal.allLines());
      assert.equal(lazy.terminal.allLines()[0], '$ earlier shell output');
      assert.ok(!lazy.terminal.recorded.includes('\x1b[3J'), 'the scrollback was never cleared');
      for (const view of [whole, lazy]) {
        view.tui.stop();
        view.terminal.dispose();
      }
    });
  }
}

test('ctrl+o while the older turns are built applies to them too; a clear stops them', async () => {
  const columns = 100;
  const whole = screen(columns, false);
  whole.chat.replay(messages);
  const plain = whole.chat.container.render(columns);
  whole.chat.toggleExpanded();
  const expected = whole.chat.container.render(columns);

  const lazy = screen(columns, false);
  lazy.chat.replay(messages, { firstScreen: true });
  lazy.tui.start();
  lazy.chat.toggleExpanded();
  await untilDrawn(lazy, expected, columns);

  // A clear while the older turns are built: none of them come back afterwards. Another view
  // replays the same at the same time; once it has drawn them all, so would the cleared one.
  const cleared = screen(columns, false);
  const alongside = screen(columns, false);
  for (const view of [cleared, alongside]) {
    view.chat.replay(messages, { firstScreen: true });
    view.tui.start();
  }
  cleared.chat.clear();
  cleared.chat.display('after the clear');
  await untilDrawn(alongside, plain, columns);
  assert.deepEqual(cleared.chat.container.render(columns), ['after the clear']);
  for (const view of [whole, lazy, cleared, alongside]) {
    view.tui.stop();
    view.terminal.dispose();
  }
});
