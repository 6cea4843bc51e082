// Slash-command, @mention and path completion: the provider's suggestions, and what the user sees
// under a real pi-tui Editor on a headless terminal (divider, legend, counter; 60 and 200 columns;
// NO_COLOR).
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test, type TestContext } from 'node:test';
import { Editor, TUI, visibleWidth } from '@mariozechner/pi-tui';
import {
  CommandAutocompleteProvider,
  commandSuggestions,
  SuggestionList,
  useSuggestionList,
  type CommandInfo,
  type Suggestion,
} from './command-autocomplete.js';
import { createTheme, DARK, type Theme } from './theme.js';
import { renderLines, VirtualTerminal } from './testing/virtual-terminal.js';

const DOWN = '\x1b[B';
const TAB = '\t';

const BUILTINS: CommandInfo[] = [
  { name: 'model', description: 'Pick a model', argumentHint: '[id]', source: 'builtin' },
  { name: 'help', description: 'Keys and commands', source: 'builtin' },
  { name: 'sessions', description: 'Resume a session', source: 'builtin' },
  { name: 'compact', description: 'Summarise the conversation', source: 'builtin' },
  { name: 'clear', description: 'Clear the screen', source: 'builtin' },
  { name: 'new', description: 'Start a new session', source: 'builtin' },
  {
    name: 'login',
    description: 'Log in to a provider',
    argumentHint: '[provider]',
    source: 'builtin',
  },
];
const EXTENSIONS: CommandInfo[] = [
  { name: 'todo', description: 'Show the todo panel', source: 'todo' },
  { name: 'weather', description: 'Weather for a city', argumentHint: '<city>', source: 'weather' },
];

let cwd = '';
before(() => {
  cwd = mkdtempSync(join(tmpdir(), 'zot-autocomplete-'));
  mkdirSync(join(cwd, 'src', 'tui'), { recursive: true });
  mkdirSync(join(cwd, 'node_modules', 'left-pad'), { recursive: true });
  writeFileSync(join(cwd, 'README.md'), '# hi\n');
  writeFileSync(join(cwd, 'src', 'main.ts'), '');
  writeFileSync(join(cwd, 'src', 'tui', 'editor.ts'), '');
  writeFileSync(join(cwd, 'my notes.txt'), '');
  writeFileSync(join(cwd, 'node_modules', 'left-pad', 'index.js'), '');
});
after(() => rmSync(cwd, { recursive: true, force: true }));

const signal = () => new AbortController().signal;

async function suggest(provider: CommandAutocompleteProvider, text: string, force = false) {
  return provider.getSuggestions([text], 0, text.length, { signal: signal(), force });
}

test('with nothing typed: built-ins first, then extension commands, each sorted by name', () => {
  const items = commandSuggestions([...EXTENSIONS, ...BUILTINS], '');
  assert.deepEqual(
    items.map((item) => `${item.group}:${item.value}`),
    [
      'builtin:clear',
      'builtin:compact',
      'builtin:help',
      'builtin:login',
      'builtin:model',
      'builtin:new',
      'builtin:sessions',
      'extension:todo',
      'extension:weather',
    ],
  );
});

test('matching is fuzzy and case-insensitive, best match first within each group', () => {
  assert.deepEqual(
    commandSuggestions([...BUILTINS, ...EXTENSIONS], 'MOD').map((item) => item.value),
    ['model'],
  );
  assert.deepEqual(
    commandSuggestions([...BUILTINS, ...EXTENSIONS], 'ses').map((item) => item.value),
    ['sessions'],
  );
  const items = commandSuggestions([...BUILTINS, ...EXTENSIONS], 'wthr');
  assert.deepEqual(
    items.map((item) => item.value),
    ['weather'],
  );
  assert.equal(items[0]!.source, 'weather');
  assert.equal(commandSuggestions(BUILTINS, 'zzz').length, 0);
});

test('the command list is asked for on every keystroke, so later commands show up', async () => {
  const commands = [...BUILTINS];
  let calls = 0;
  const provider = new CommandAutocompleteProvider({
    commands: () => {
      calls++;
      return commands;
    },
    cwd,
  });
  assert.equal(await suggest(provider, '/tod'), null);
  commands.push(EXTENSIONS[0]!);
  const found = await suggest(provider, '/tod');
  assert.deepEqual(
    found?.items.map((item) => item.value),
    ['todo'],
  );
  assert.equal(calls, 2);
  assert.equal(await suggest(provider, '/model gpt'), null);
});

test('@ mentions list files under the cwd (not node_modules) and insert them', async () => {
  const provider = new CommandAutocompleteProvider({ commands: () => BUILTINS, cwd });
  const all = await suggest(provider, 'look at @');
  const labels = all?.items.map((item) => item.label) ?? [];
  assert.ok(labels.includes('README.md'));
  assert.ok(labels.includes('src/tui/editor.ts'));
  assert.ok(!labels.some((label) => label.includes('node_modules')));
  assert.ok(labels.indexOf('README.md') < labels.indexOf('src/tui/editor.ts'), 'shallow first');

  const editor = await suggest(provider, 'look at @TUIed');
  assert.equal(editor?.items[0]?.label, 'src/tui/editor.ts');
  const applied = provider.applyCompletion(
    ['look at @TUIed'],
    0,
    14,
    editor!.items[0]!,
    editor!.prefix,
  );
  assert.equal(applied.lines[0], 'look at @src/tui/editor.ts ');
  assert.equal(applied.cursorCol, applied.lines[0]!.length);

  const spaced = await suggest(provider, '@my');
  assert.equal(spaced?.items[0]?.value, '@"my notes.txt"');
  assert.equal(await suggest(provider, '@nothing-like-this'), null);
});

test('Tab completes paths relative to the cwd', async () => {
  const provider = new CommandAutocompleteProvider({ commands: () => BUILTINS, cwd });
  const found = await suggest(provider, 'open sr', true);
  assert.deepEqual(
    found?.items.map((item) => item.value),
    ['src/'],
  );
  const inside = await suggest(provider, 'open src/m', true);
  const applied = provider.applyCompletion(
    ['open src/m'],
    0,
    10,
    inside!.items[0]!,
    inside!.prefix,
  );
  assert.equal(applied.lines[0], 'open src/main.ts');
});

/** An editor with our provider and list on a started TUI. */
function mountEditor(
  context: TestContext,
  columns: number,
  theme: Theme,
  commands: () => readonly CommandInfo[],
) {
  const terminal = new VirtualTerminal({ columns, rows: 20 });
  const tui = new TUI(terminal);
  const editor = new Editor(
    tui,
    {
      borderColor: theme.border,
      selectList: {
        selectedPrefix: theme.selected,
        selectedText: theme.selected,
        description: theme.muted,
        scrollInfo: theme.muted,
        noMatch: theme.muted,
      },
    },
    { autocompleteMaxVisible: 5 },
  );
  editor.setAutocompleteProvider(new CommandAutocompleteProvider({ commands, cwd }));
  assert.equal(useSuggestionList(editor, theme), true);
  tui.addChild(editor);
  tui.setFocus(editor);
  tui.start();
  context.after(() => {
    tui.stop();
    terminal.dispose();
  });
  return { terminal, tui, editor };
}

/** Waits (a bounded number of turns) until `ready()` holds; suggestions arrive asynchronously. */
async function until(ready: () => boolean): Promise<void> {
  for (let i = 0; i < 400 && !ready(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
  assert.ok(ready(), 'timed out waiting');
}

async function draw(tui: TUI, terminal: VirtualTerminal): Promise<string[]> {
  tui.requestRender(true);
  await new Promise((resolve) => setImmediate(resolve));
  await terminal.flush();
  return terminal.screen();
}

for (const color of [true, false]) {
  for (const columns of [60, 200]) {
    test(`in the editor at ${columns} columns (${color ? 'colour' : 'NO_COLOR'}): / lists commands with a divider, legend and counter`, async (context) => {
      const theme = createTheme(DARK, color);
      const t = mountEditor(context, columns, theme, () => [...BUILTINS, ...EXTENSIONS]);
      t.terminal.type('/');
      await until(() => t.editor.isShowingAutocomplete());
      let screen = await draw(t.tui, t.terminal);
      assert.ok(
        screen.some((row) => /› \/clear +Clear the screen/.test(row)),
        screen.join('\n'),
      );
      assert.ok(screen.some((row) => row.includes('/compact')));
      assert.ok(screen.some((row) => row.includes('tab complete')));
      assert.ok(screen.some((row) => / 1\/9$/.test(row)));
      assert.ok(!screen.some((row) => row.includes('extensions')));
      for (let i = 0; i < 8; i++) t.terminal.type(DOWN);
      screen = await draw(t.tui, t.terminal);
      const divider = screen.findIndex((row) => /── extensions ─/.test(row));
      assert.ok(divider > 0, screen.join('\n'));
      assert.match(screen[divider + 1]!, /^ {2}\/todo +Show the todo panel \(todo\)/);
      assert.match(screen[divider + 2]!, /› \/weather <city> +Weather for a city \(weather\)/);
      assert.ok(screen.some((row) => / 9\/9$/.test(row)));
      for (const line of t.editor.render(columns)) assert.ok(visibleWidth(line) <= columns);
    });
  }
}

test('in the editor: typing narrows the list, Tab completes the best match, commands added later appear', async (context) => {
  const commands = [...BUILTINS];
  const t = mountEditor(context, 80, createTheme(DARK, true), () => commands);
  for (const key of '/MDL') t.terminal.type(key);
  await until(() => t.editor.isShowingAutocomplete());
  let screen = await draw(t.tui, t.terminal);
  assert.ok(
    screen.some((row) => /› \/model \[id\] +Pick a model/.test(row)),
    screen.join('\n'),
  );
  assert.ok(!screen.some((row) => row.includes('/help')));
  t.terminal.type(TAB);
  assert.equal(t.editor.getText(), '/model ');

  t.editor.setText('');
  commands.push(EXTENSIONS[1]!);
  for (const key of '/wea') t.terminal.type(key);
  await until(() => t.editor.isShowingAutocomplete());
  screen = await draw(t.tui, t.terminal);
  assert.ok(
    screen.some((row) => row.includes('› /weather <city>')),
    screen.join('\n'),
  );
});

test('in the editor: @ mentions complete a file path', async (context) => {
  const t = mountEditor(context, 80, createTheme(DARK, false), () => BUILTINS);
  for (const key of 'see @READ') t.terminal.type(key);
  await until(() => t.editor.isShowingAutocomplete());
  const screen = await draw(t.tui, t.terminal);
  assert.ok(
    screen.some((row) => row.includes('› README.md')),
    screen.join('\n'),
  );
  assert.ok(screen.some((row) => row.includes('tab insert')));
  t.terminal.type(TAB);
  assert.equal(t.editor.getText(), 'see @README.md ');
});

test('the list highlights the best match, marks it without colour, and cuts long descriptions', async () => {
  const theme = createTheme(DARK, false);
  const items: Suggestion[] = [
    {
      value: 'compact',
      label: '/compact',
      kind: 'command',
      group: 'builtin',
      score: -5,
      summary: 'x'.repeat(300),
    },
    {
      value: 'model',
      label: '/model',
      kind: 'command',
      group: 'builtin',
      score: -40,
      summary: 'Pick a model',
    },
  ];
  const list = new SuggestionList(items, 5, theme);
  assert.equal(list.getSelectedItem()?.value, 'model');
  const lines = await renderLines(list, 60);
  assert.ok(lines.some((line) => line.startsWith('› /model')));
  assert.ok(lines.some((line) => /^ {2}\/compact +x+…$/.test(line)));
  assert.ok(!lines.some((line) => /\d+\/\d+$/.test(line)), 'no counter when nothing scrolls');
  for (const line of list.render(60)) assert.ok(visibleWidth(line) <= 60);
});
