// The user's prompt takes the terminal's whole width, with colours or without: its styled
// prefix counts for the columns it shows, not for its escape sequences.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { visibleWidth } from '@mariozechner/pi-tui';
import { StyledBlock, ThinkingBlock, UserMessageBlock } from './text-blocks.js';
import { createTheme, DARK } from './theme.js';

for (const color of [true, false]) {
  for (const width of [60, 200]) {
    test(`a prompt wraps at the full width (${width} columns, color ${color})`, () => {
      const theme = createTheme(DARK, color);
      const words = 'word '.repeat(width).trim();
      const lines = new UserMessageBlock(words, theme).render(width);
      assert.ok(lines.every((line) => visibleWidth(line) <= width));
      // Every line but the last is filled to within a word of the width.
      for (const line of lines.slice(0, 5)) assert.ok(visibleWidth(line) >= width - 5, line);
      const thinking = new ThinkingBlock(theme);
      thinking.append(words);
      thinking.expanded = true;
      for (const line of thinking.render(width).slice(0, 3))
        assert.ok(visibleWidth(line) >= width - 5, line);
      const styled = new StyledBlock(words, theme.muted).render(width);
      assert.ok(visibleWidth(styled[0]!) >= width - 5);
    });
  }
}
