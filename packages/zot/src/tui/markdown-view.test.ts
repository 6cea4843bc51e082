// Streaming markdown: the answer looks the same however it was cut into deltas, finished blocks
// are not parsed again, and what the model sends cannot drive the terminal.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { visibleWidth } from '@mariozechner/pi-tui';
import { MarkdownView } from './markdown-view.js';
import { createTheme, DARK } from './theme.js';
import { renderLines } from './testing/virtual-terminal.js';

const ANSWER = [
  '# Title',
  '',
  '### Deeper',
  '',
  'Some **bold** text.',
  '',
  '```js',
  'const a = 1;',
  '',
  'const b = 2;',
  '```',
  '',
  '| col | other |',
  '|---|---|',
  '| 1 | 2 |',
  '',
  '- item [docs](https://example.com)',
].join('\n');

test('headings, tables, code fences and links; the same whatever the deltas', async () => {
  const theme = createTheme(DARK, false);
  const whole = await renderLines(new MarkdownView(theme, ANSWER), 60);
  assert.equal(whole[0], 'Title');
  assert.ok(whole.includes('Deeper'), 'deeper headings lose their # too');
  assert.ok(!whole.some((line) => line.includes('#')), 'no heading keeps a #');
  assert.ok(whole.includes('```js'), 'the fence and its language stay visible');
  assert.ok(
    whole.some((line) => line.includes('const b = 2;')),
    'a blank line inside a fence does not split it',
  );
  assert.ok(
    whole.some((line) => /^┌─+┬─+┐$/.test(line)),
    'tables are drawn with box characters',
  );
  assert.ok(whole.some((line) => line.includes('docs (https://example.com)')));
  const streamed = new MarkdownView(theme);
  for (let i = 0; i < ANSWER.length; i += 7) {
    streamed.append(ANSWER.slice(i, i + 7));
    streamed.render(60);
  }
  assert.deepEqual(await renderLines(streamed, 60), whole);
});

test('lines never exceed the width; escape sequences from the model are shown, not obeyed', async () => {
  const theme = createTheme(DARK, true);
  const view = new MarkdownView(theme, `${'word '.repeat(80)}\n\nclear \x1b[2J now`);
  for (const width of [60, 200])
    assert.ok(view.render(width).every((line) => visibleWidth(line) <= width));
  const lines = await renderLines(view, 60);
  assert.ok(lines.some((line) => line.includes('clear \\x1b[2J now')));
});

test('appending only re-parses the open block: earlier blocks keep their rendered lines', () => {
  const view = new MarkdownView(createTheme(DARK, false), 'first block\n\nsecond');
  const before = view.render(60);
  const firstLines = before.slice(0, 1);
  view.append(' grows');
  const after = view.render(60);
  assert.equal(after[0], firstLines[0], 'the finished block is unchanged');
  assert.match(after.at(-1)!, /second grows/);
});
