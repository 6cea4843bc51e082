// theme.json files as users and extensions write them, good and bad, and what they look like.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createTheme } from './theme.js';
import { parseThemeFile } from './theme-file.js';
import { renderLines, VirtualTerminal } from './testing/virtual-terminal.js';
import { Text } from '@mariozechner/pi-tui';

test('a theme sets some roles; the rest come from its base; the colour reaches the screen', async () => {
  const { theme, errors, warnings } = parseThemeFile(
    JSON.stringify({ name: 'ocean', base: 'light', colors: { error: '#FF0000', accent: 33 } }),
    'ocean/theme.json',
  );
  assert.deepEqual([errors, warnings], [[], []]);
  assert.equal(theme?.name, 'ocean');
  const styles = createTheme(theme, true);
  const terminal = new VirtualTerminal({ columns: 20, rows: 2 });
  terminal.write(styles.error('boom') + ' ' + styles.accent('ok'));
  await terminal.flush();
  const red = terminal.cell(0, 0)!;
  assert.equal(red.char, 'b');
  assert.equal(red.fg, 0xff0000);
  assert.equal(terminal.cell(0, 5)!.fg, 33);
  terminal.dispose();
  // Under NO_COLOR the same theme draws plain text.
  const plain = await renderLines(new Text(createTheme(theme, false).error('boom'), 0, 0), 20);
  assert.deepEqual(plain, ['boom']);
});

test('bad files are refused with the file and the field named; bad roles are skipped', () => {
  const cases: Array<[string, RegExp]> = [
    ['{', /t\.json: is not valid JSON/],
    ['[]', /must be a JSON object/],
    ['{"colors":{}}', /"name" must be/],
    ['{"name":"../evil","colors":{}}', /"name" must be/],
    ['{"name":"x","base":"blue","colors":{}}', /"base" must be "dark" or "light"/],
    ['{"name":"x","colors":[]}', /"colors" must be an object/],
    [JSON.stringify({ name: 'x', colors: {}, pad: 'x'.repeat(70_000) }), /over 64 KiB/],
  ];
  for (const [text, expected] of cases) {
    const result = parseThemeFile(text, 't.json');
    assert.equal(result.theme, undefined, text.slice(0, 40));
    assert.match(result.errors.join('\n'), expected);
  }
  const partial = parseThemeFile(
    '{"name":"x","colors":{"error":"red","nonsense":1,"accent":256,"muted":"#123456"}}',
    't.json',
  );
  assert.equal(partial.theme?.colors.muted, '#123456');
  assert.equal(partial.warnings.length, 3);
  assert.match(partial.warnings.join('\n'), /unknown colour role "nonsense"/);
  assert.match(partial.warnings.join('\n'), /"error" must be "#rrggbb".*got "red"/);
});
