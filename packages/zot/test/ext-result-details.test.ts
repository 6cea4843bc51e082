// An extension tool result's `details` end to end: a unified diff and a table reach the JSON
// events (validated and bounded where they enter: numbers written out, too many columns left out
// and logged), never the model (the scripted fake LLM's request bodies do not hold them), and the
// TUI draws them: the diff coloured like the edit tool's, the table in aligned columns with
// escape sequences shown, not obeyed. A version-1 extension's details are ignored as before.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { expectNoLeftovers, FAST_TIMEOUTS, makeExtension } from './support/extensions.js';
import { fakeLlmFlags, startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { HAS_TMUX, TmuxZot } from './support/tmux.js';
import { jsonLines, makeSandbox, runZot } from './support/zot.js';

let llm: FakeLlm;
before(async () => {
  llm = await startFakeLlm();
});
after(() => llm.close());

const DIFF = [
  '--- a/notes.txt',
  '+++ b/notes.txt',
  '@@ -1,3 +1,3 @@',
  ' first line',
  '-old WORD_REMOVED',
  '+new WORD_ADDED',
  ' last line',
  '',
].join('\n');

const TOOLS = [
  {
    name: 'show_diff',
    result: {
      content: [{ type: 'text', text: 'changed notes.txt' }],
      details: { kind: 'diff', diff: DIFF },
    },
  },
  {
    name: 'show_table',
    result: {
      content: [{ type: 'text', text: 'two files' }],
      details: {
        kind: 'table',
        columns: ['file', 'lines'],
        rows: [
          ['alpha_CELL.ts', 1200],
          ['\u001b[31mbeta_CELL.ts', 7],
        ],
      },
    },
  },
  {
    name: 'too_wide',
    result: {
      content: [{ type: 'text', text: 'wide' }],
      details: { kind: 'table', columns: Array.from({ length: 21 }, (_, i) => `c${i}`), rows: [] },
    },
  },
];

const calls = (...names: string[]) =>
  names.map((name, i) => ({ toolCalls: [{ id: `d${i}`, name, args: {} }] }));

test('JSON: details reach the tool_result events bounded and validated, and never the model', async (t) => {
  const box = makeSandbox();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  const dir = makeExtension(join(box.home, 'exts'), 'differ', 'well-behaved', {
    hello_extra: { protocol_version: 2 },
    tools: TOOLS,
  });
  const before = llm.requests.length;
  llm.script(...calls('show_diff', 'show_table', 'too_wide'), { text: 'seen' });
  const run = await runZot(
    ['--json', 'go', '--ext', dir, ...fakeLlmFlags(llm.url), '--no-session'],
    { home: box.home, cwd: box.project, env: FAST_TIMEOUTS },
  );
  assert.equal(run.code, 0, run.stderr);
  const results = jsonLines(run.stdout).filter((e) => e.type === 'tool_result');
  assert.deepEqual(results[0]!.details, { kind: 'diff', diff: DIFF });
  assert.deepEqual(results[1]!.details, {
    kind: 'table',
    columns: ['file', 'lines'],
    rows: [
      ['alpha_CELL.ts', '1200'],
      ['\u001b[31mbeta_CELL.ts', '7'],
    ],
  });
  assert.equal(results[2]!.details, undefined);
  assert.match(
    readFileSync(join(box.home, 'logs', 'ext-differ.log'), 'utf8'),
    /tool too_wide: table details left out: 21 columns \(at most 20\)/,
  );
  // The model got the text of each result, and none of the details.
  const bodies = JSON.stringify(llm.requests.slice(before).map((request) => request.body));
  assert.match(bodies, /changed notes\.txt/);
  assert.match(bodies, /two files/);
  assert.doesNotMatch(bodies, /WORD_ADDED|WORD_REMOVED|alpha_CELL|beta_CELL/);
});

test('a version-1 extension sending details: ignored as before, and logged', async (t) => {
  const box = makeSandbox();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  const dir = makeExtension(join(box.home, 'exts'), 'olddiffer', 'well-behaved', {
    tools: TOOLS.slice(0, 1),
  });
  llm.script(...calls('show_diff'), { text: 'seen' });
  const run = await runZot(
    ['--json', 'go', '--ext', dir, ...fakeLlmFlags(llm.url), '--no-session'],
    { home: box.home, cwd: box.project, env: FAST_TIMEOUTS },
  );
  assert.equal(run.code, 0, run.stderr);
  const result = jsonLines(run.stdout).find((e) => e.type === 'tool_result')!;
  assert.equal(result.details, undefined);
  assert.match(
    readFileSync(join(box.home, 'logs', 'ext-olddiffer.log'), 'utf8'),
    /tool show_diff: details ignored \(protocol version 1\)/,
  );
});

test(
  'TUI: a diff is coloured like the edit tool’s, a table is aligned with its cells escaped',
  { skip: HAS_TMUX ? false : 'tmux is not installed' },
  async (t) => {
    const box = makeSandbox();
    t.after(() => box.cleanup());
    const dir = makeExtension(join(box.home, 'exts'), 'differ', 'well-behaved', {
      hello_extra: { protocol_version: 2 },
      tools: TOOLS,
    });
    llm.script(...calls('show_diff', 'show_table'), { text: 'all shown' });
    const zot = TmuxZot.start([...fakeLlmFlags(llm.url), '--no-session', '--ext', dir], {
      home: box.home,
      cwd: box.project,
      rows: 40,
      env: { ...FAST_TIMEOUTS, NO_COLOR: undefined },
    });
    t.after(() => zot.kill());
    await zot.waitFor('anthropic/');
    zot.submit('go');
    const screen = await zot.waitFor('all shown');
    // The diff: numbered like the edit tool's, its counts, and no raw hunk header.
    assert.match(screen, /\+1 -1/);
    assert.match(screen, /2 - old WORD_REMOVED/);
    assert.match(screen, /2 \+ new WORD_ADDED/);
    assert.doesNotMatch(screen, /@@ -1,3/);
    const coloured = zot.capture({ escapes: true });
    const lineWith = (text: string) => coloured.split('\n').find((line) => line.includes(text))!;
    assert.notEqual(
      lineWith('WORD_ADDED')
        .match(/\x1b\[[0-9;]*m/g)
        ?.join(''),
      undefined,
    );
    assert.notEqual(
      lineWith('WORD_ADDED')
        .match(/\x1b\[[0-9;]*m/g)
        ?.join(''),
      lineWith('WORD_REMOVED')
        .match(/\x1b\[[0-9;]*m/g)
        ?.join(''),
      'added and removed lines take different colours',
    );
    // The table: a header, a rule, and cells in one column each, the escape shown.
    const rows = screen.split('\n');
    const header = rows.find((line) => /file\s+lines/.test(line))!;
    const alpha = rows.find((line) => line.includes('alpha_CELL.ts'))!;
    const beta = rows.find((line) => line.includes('beta_CELL.ts'))!;
    assert.ok(header && alpha && beta, screen);
    assert.match(beta, /\\x1b\[31mbeta_CELL\.ts/);
    assert.equal(alpha.indexOf('1200'), header.indexOf('lines'), 'the columns line up');
    assert.equal(beta.indexOf('7'), header.indexOf('lines'));
    assert.match(rows[rows.indexOf(header) + 1]!, /─+\s+─+/);
  },
);
