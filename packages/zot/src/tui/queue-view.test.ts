// The queue under the chat: one line per message with its kind, the edit hint, cut at 60 columns.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { visibleWidth } from '@mariozechner/pi-tui';
import { QueueView } from './queue-view.js';
import { createTheme, DARK } from './theme.js';
import { renderLines } from './testing/virtual-terminal.js';

test('an empty queue takes no room', async () => {
  const view = new QueueView({ theme: createTheme(DARK, true) });
  assert.deepEqual(view.render(80), []);
  view.setMessages([{ text: 'x', kind: 'steer' }]);
  view.setMessages([]);
  assert.deepEqual(view.render(80), []);
});

for (const color of [true, false]) {
  for (const columns of [60, 200]) {
    test(`at ${columns} columns (${color ? 'colour' : 'NO_COLOR'}) each message is one marked line`, async () => {
      const view = new QueueView({ theme: createTheme(DARK, color), editKey: 'alt+up' });
      view.setMessages([
        { text: 'then run the tests\nand fix what fails', kind: 'follow-up' },
        { text: 'use pnpm, not npm '.repeat(20), kind: 'steer' },
      ]);
      const lines = await renderLines(view, columns);
      assert.equal(lines.length, 3);
      assert.match(lines[0]!, /↳ follow-up then run the tests and fix what fails$/);
      assert.match(lines[1]!, /↳ steer {5}use pnpm, not npm .*…$/);
      assert.match(lines[2]!, /2 queued · alt\+up to edit the last/);
      for (const line of view.render(columns)) assert.ok(visibleWidth(line) <= columns);
    });
  }
}

test('the hint names the key it is given, and a tiny width still fits', async () => {
  const view = new QueueView({ theme: createTheme(DARK, true), editKey: 'ctrl+e' });
  view.setMessages([{ text: 'next', kind: 'follow-up' }]);
  assert.ok((await renderLines(view, 80)).some((line) => line.includes('ctrl+e to edit the last')));
  for (const width of [1, 5, 12]) {
    for (const line of view.render(width)) assert.ok(visibleWidth(line) <= width);
  }
});
