// A frame writes the lines that changed and nothing else: two changes far apart (a streamed
// answer above, the status line below) no longer rewrite what lies between them, and the screen
// is the one pi-tui draws without the filter.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Text, TUI } from '@mariozechner/pi-tui';
import { memoizeFrames } from './frame-memo.js';
import { SparseWrites } from './sparse-writes.js';
import { VirtualTerminal } from './testing/virtual-terminal.js';

const RULE = '─'.repeat(30);

async function draw(sparse: boolean) {
  const terminal = new VirtualTerminal({ columns: 40, rows: 12, scrollback: 100, record: true });
  const tui = new TUI(terminal);
  if (sparse) assert.equal(memoizeFrames(tui), true);
  const answer = new Text('answer', 0, 0);
  const footer = new Text('footer 0', 0, 0);
  tui.addChild(new Text('above', 0, 0));
  tui.addChild(answer);
  tui.addChild(new Text(RULE, 0, 0));
  tui.addChild(new Text('editor text', 0, 0));
  tui.addChild(new Text(RULE, 0, 0));
  tui.addChild(footer);
  const render = (tui as unknown as { doRender(): void }).doRender.bind(tui);
  render();
  const frames: string[] = [];
  for (let frame = 1; frame <= 6; frame++) {
    const from = terminal.recorded.length;
    answer.setText(`answer ${'word '.repeat(frame)}`);
    // The footer changes every other frame; the lines between never.
    if (frame % 2 === 0) footer.setText(`footer ${frame}`);
    render();
    frames.push(terminal.recorded.slice(from));
  }
  // A line added at the end, and one taken away: the frames pi-tui writes whole still work.
  tui.addChild(new Text('appended', 0, 0));
  render();
  tui.removeChild(footer);
  render();
  await terminal.flush();
  const result = { screen: terminal.allLines(), frames, bytes: terminal.bytesWritten };
  tui.stop();
  terminal.dispose();
  return result;
}

test('unchanged lines between two changed ones are not written again; the screen is the same', async () => {
  const plain = await draw(false);
  const sparse = await draw(true);
  assert.deepEqual(sparse.screen, plain.screen);
  for (const [i, frame] of sparse.frames.entries()) {
    assert.ok(!frame.includes(RULE), `frame ${i + 1} rewrote a rule: ${JSON.stringify(frame)}`);
    assert.ok(!frame.includes('editor text'), `frame ${i + 1} rewrote the editor`);
    assert.equal(frame.includes('footer'), (i + 1) % 2 === 0, `frame ${i + 1}: the footer`);
  }
  // Without the filter pi-tui rewrites the range between the two changes.
  assert.ok(plain.frames[1]!.includes(RULE));
  assert.ok(sparse.bytes < plain.bytes);
});

test('a write that does not hold the expected text passes through unchanged', () => {
  const filter = new SparseWrites();
  filter.expect(['a', 'b', 'c', 'd', 'e'], ['A', 'b', 'c', 'd', 'E'], 10);
  const other = '\x1b[?2026hsomething else\x1b[?2026l';
  assert.equal(filter.filter(other), other);
  // The expectation is for one write only.
  const full = '\x1b[2KA\r\n\x1b[2Kb\r\n\x1b[2Kc\r\n\x1b[2Kd\r\n\x1b[2KE';
  assert.equal(filter.filter(full), full);
  filter.expect(['a', 'b', 'c', 'd', 'e'], ['A', 'b', 'c', 'd', 'E'], 10);
  assert.equal(filter.filter(`x${full}y`), 'x\x1b[2KA\x1b[3B\r\n\x1b[2KEy');
});
