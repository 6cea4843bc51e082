// Extension panels on screen: the spec's key names, runes in order, lines cut (never wrapped),
// long panels scrolled, extension text made inert; at 60 and 200 columns, without colour too.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { visibleWidth } from '@mariozechner/pi-tui';
import { normalizePanelKey, PanelView } from './panel-view.js';
import { createTheme, DARK } from './theme.js';
import { renderLines } from './testing/virtual-terminal.js';

test('terminal keys get the spec names; printable text is runes in order', () => {
  const keys: Array<[string, string | undefined]> = [];
  let closed = 0;
  const view = new PanelView({
    theme: createTheme(DARK, false),
    maxRows: () => 20,
    onKey: (key, text) => keys.push([key, text]),
    onClose: () => closed++,
  });
  for (const data of [
    '\x1b[A',
    '\x1b[B',
    '\r',
    '\t',
    '\x1b[5~',
    '\x1b[6~',
    '\x1b[H',
    '\x1b[F',
    '\x7f',
    '\x1b[3~',
    'buy milk',
  ]) {
    view.handleInput(data);
  }
  assert.deepEqual(
    keys.slice(0, 10).map(([key]) => key),
    ['up', 'down', 'enter', 'tab', 'pageup', 'pagedown', 'home', 'end', 'backspace', 'delete'],
  );
  assert.equal(
    keys
      .slice(10)
      .map(([, text]) => text)
      .join(''),
    'buy milk',
  );
  assert.ok(keys.slice(10).every(([key]) => key === 'rune'));
  view.handleInput('\x1b');
  view.handleInput('\x03');
  assert.equal(closed, 2, 'esc and ctrl+c close');
  assert.equal(normalizePanelKey('\x01'), undefined, 'other control keys are not sent');
});

test('lines are cut to the width, long panels scroll, escapes are shown not obeyed', async () => {
  const theme = createTheme(DARK, true);
  const view = new PanelView({ theme, maxRows: () => 10, onKey: () => {}, onClose: () => {} });
  view.set({
    title: 'Todos',
    lines: Array.from({ length: 30 }, (_, i) => `item ${i} ${'x'.repeat(300)}`).concat(
      '\x1b[2Jboom',
    ),
    footer: 'a add · esc close',
  });
  for (const width of [60, 200]) {
    const lines = view.render(width);
    assert.ok(
      lines.every((line) => visibleWidth(line) <= width),
      `width ${width}`,
    );
    assert.equal(lines.length, 10, 'the frame keeps its height');
  }
  const shown = await renderLines(view, 60);
  assert.match(shown.join('\n'), /\\x1b\[2Jboom/, 'the last line is shown (it follows the end)');
  assert.match(shown.join('\n'), /26-31\/31 \(alt\+↑↓ scroll\)/);
  view.handleInput('\x1b[1;3A'); // alt+up scrolls back
  const back = await renderLines(view, 60);
  assert.match(back.join('\n'), /25-30\/31/);
});
