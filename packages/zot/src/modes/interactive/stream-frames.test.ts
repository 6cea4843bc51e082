// What a streamed answer costs the terminal, on the screen the app draws (chat, editor, status
// line, on @xterm/headless): each frame writes the lines that changed and the cursor moves,
// nothing more. The editor's rules and the status line are not rewritten when they did not
// change; the status line's live token estimate moves at most once a second.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Editor, TUI } from '@mariozechner/pi-tui';
import type { RuntimeState } from '../../contract/state.js';
import { FittedFrame } from '../../tui/fitted-frame.js';
import { memoizeFrames } from '../../tui/frame-memo.js';
import { VirtualTerminal } from '../../tui/testing/virtual-terminal.js';
import { createTheme, DARK } from '../../tui/theme.js';
import { ChatView } from './chat/chat-view.js';
import { STREAM_ESTIMATE_MS, StatusLine } from './status-line.js';

const state: RuntimeState = {
  provider: 'anthropic',
  model: 'claude-sonnet-4-5',
  cwd: '/p',
  busy: true,
  queue_length: 0,
  message_count: 1,
  session_file: null,
  usage: { input: 1200, output: 0, cache_read: 0, cache_write: 0, cost_usd: 0.01 },
  context: { used: 1200, window: 200_000 },
  yolo: true,
  sandbox: { mode: 'off', status: 'off', network: false },
  extensions: { loaded: [], failed: [] },
  commands_revision: 0,
  open_panel: null,
};

/**
 * Bytes a frame may spend beyond its changed lines: per line a clear, a line end and pi-tui's
 * resets (about 20), per frame cursor moves and synchronized output.
 */
const CURSOR_BYTES = 64;

for (const color of [true, false]) {
  for (const columns of [60, 200]) {
    test(`streaming at ${columns} columns (color ${color}) writes only the changed lines`, async () => {
      let clock = 0;
      const now = () => clock;
      const theme = createTheme(DARK, color);
      const terminal = new VirtualTerminal({ columns, rows: 20, scrollback: 200, record: true });
      const tui = new TUI(terminal);
      assert.equal(memoizeFrames(tui), true);
      const chat = new ChatView({ tui, theme, now });
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
      const status = new StatusLine({ theme, now });
      status.update(state);
      const frame = new FittedFrame();
      frame.addChild(chat.container);
      frame.addChild(editor);
      frame.addChild(status);
      frame.mount(tui);
      tui.setFocus(editor);
      const draw = (tui as unknown as { doRender(): void }).doRender.bind(tui);
      chat.handle({ type: 'user_message', content: [{ type: 'text', text: 'go' }], time: '' });
      draw();
      // The lines of a frame, as drawn at this clock (rendering again at it draws the same).
      const lines = () => frame.render(columns);
      let before = lines();
      let checked = 0;
      let footerWrites = 0;
      for (let word = 0; word < 40; word++) {
        clock += 100;
        const delta = word === 0 ? 'w0' : ` w${word}`;
        chat.handle({ type: 'text_delta', delta });
        status.stream(delta.length * 40);
        const after = lines();
        const last = before;
        before = after;
        const from = terminal.recorded.length;
        draw();
        const written = terminal.recorded.slice(from);
        // A frame whose line count changed moves what lies below: those lines did change.
        if (last.length !== after.length) continue;
        checked++;
        const changed = after.filter((line, i) => line !== last[i]);
        const budget = changed.reduce((sum, line) => sum + Buffer.byteLength(line), 0);
        assert.ok(
          Buffer.byteLength(written) <= budget + changed.length * 20 + CURSOR_BYTES,
          `frame ${word}: ${Buffer.byteLength(written)} bytes for ${changed.length} changed lines`,
        );
        const rule = after.find((line) => line.includes('─'.repeat(columns - 2)))!;
        assert.ok(!written.includes(rule), `frame ${word} rewrote an editor rule`);
        const footer = after.at(-1)!;
        if (written.includes(footer)) {
          footerWrites++;
          assert.notEqual(last.at(-1), footer, `frame ${word} rewrote an unchanged status line`);
        }
      }
      assert.ok(checked >= 20, `only ${checked} frames kept their line count`);
      // 40 frames of 100 ms: the estimate moves about four times, not forty.
      assert.ok(footerWrites <= (40 * 100) / STREAM_ESTIMATE_MS + 1, `${footerWrites} writes`);
      // At 60 columns the status line has no room for tokens (they give way first).
      if (columns > 100)
        assert.ok(footerWrites >= 2, 'the estimate still moves while the answer streams');
      await terminal.flush();
      assert.match(terminal.allLines().join('\n'), /w39/);
      tui.stop();
      terminal.dispose();
    });
  }
}
