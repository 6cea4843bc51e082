// The session tree as the loader rebuilds it: old linear files are one branch, an old rewind
// entry is a branch point, `branch` entries move the head, and hostile shapes stay bounded.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Message } from '../providers/types.js';
import { loadSessionText } from './load.js';
import { MERGE_MARK } from './tree.js';
import { sessionHeader, sessionLine as line } from './testing/session-lines.js';

const header = sessionHeader();
const say = (role: 'user' | 'assistant', text: string) =>
  line({ type: 'message', message: { role, content: [{ type: 'text', text }], time: 't' } });
const texts = (messages: Message[]) => messages.map((m) => (m.content[0] as { text: string }).text);

test('a linear file is one branch, active, with its first prompt', () => {
  const loaded = loadSessionText(
    header + say('user', 'one') + say('assistant', 'a1') + say('user', 'two'),
  );
  assert.deepEqual(loaded.warnings, []);
  assert.deepEqual(texts(loaded.messages), ['one', 'a1', 'two']);
  const branches = loaded.tree.branches();
  assert.equal(branches.length, 1);
  assert.deepEqual(
    { ...branches[0] },
    {
      index: 1,
      leaf: 4,
      start: 2,
      from: 0,
      messages: 3,
      prompts: 2,
      first_prompt: 'one',
      active: true,
    },
  );
});

test('an old rewind entry is a branch point: the old turns stay a branch of their own', () => {
  const text =
    header + // 1
    say('user', 'one') + // 2
    say('assistant', 'a1') + // 3
    say('user', 'two') + // 4
    say('assistant', 'a2') + // 5
    line({ type: 'rewind', time: 't', turn: 2, messages: 2 }) + // 6
    say('user', 'two again') + // 7
    say('assistant', 'b2'); // 8
  const loaded = loadSessionText(text);
  assert.deepEqual(texts(loaded.messages), ['one', 'a1', 'two again', 'b2']);
  const branches = loaded.tree.branches();
  assert.deepEqual(
    branches.map((b) => [b.index, b.start, b.leaf, b.from, b.parent, b.first_prompt, b.active]),
    [
      [1, 2, 5, 0, undefined, 'one', false],
      [2, 7, 8, 3, 1, 'two again', true],
    ],
  );
  assert.deepEqual(texts(loaded.tree.transcript(5).map((m) => m.message)), [
    'one',
    'a1',
    'two',
    'a2',
  ]);
});

test('a branch entry moves the head; a resume opens the last active branch', () => {
  const text =
    header +
    say('user', 'one') + // 2
    say('assistant', 'a1') + // 3
    line({ type: 'rewind', time: 't', turn: 1, messages: 0 }) + // 4
    say('user', 'other') + // 5
    line({ type: 'branch', time: 't', to: 3 }) + // 6
    line({ type: 'branch_summary', time: 't', leaf: 5, summary: 'tried other', by: 'zot' }) + // 7
    say('user', 'more'); // 8
  const loaded = loadSessionText(text);
  assert.deepEqual(loaded.warnings, []);
  assert.deepEqual(texts(loaded.messages), ['one', 'a1', 'more']);
  const branches = loaded.tree.branches();
  assert.equal(branches.length, 2);
  assert.equal(branches[0]!.leaf, 8);
  assert.equal(branches[0]!.active, true);
  assert.equal(branches[1]!.summary?.text, 'tried other');
  assert.equal(branches[1]!.from, 0);
});

test('a merge entry is context the model sees, marked', () => {
  const text =
    header +
    say('user', 'one') +
    line({ type: 'merge', time: 't', from: 2, label: 'branch 2', text: 'it worked' });
  const loaded = loadSessionText(text);
  assert.deepEqual(loaded.warnings, []);
  assert.equal(loaded.messages.length, 2);
  assert.ok(texts(loaded.messages)[1]!.startsWith(`${MERGE_MARK} branch 2\n\nit worked`));
});

test('hostile trees: forward and dangling references are named and ignored, never followed', () => {
  const text =
    header +
    say('user', 'one') + // 2
    line({ type: 'branch', time: 't', to: 2 }) + // 3: onto itself, harmless
    line({ type: 'branch', time: 't', to: 9 }) + // 4: forward (a cycle could only be written so)
    line({ type: 'branch', time: 't', to: 1 }) + // 5: the header is not a node
    line({ type: 'branch_summary', time: 't', leaf: 77, summary: 's', by: 'zot' }) + // 6
    line({ type: 'branch_summary', time: 't', leaf: 2, summary: 'x'.repeat(20_000), by: 'zot' }) + // 7
    say('user', 'two'); // 8
  const loaded = loadSessionText(text, 'f.jsonl');
  assert.deepEqual(texts(loaded.messages), ['one', 'two']);
  assert.equal(loaded.warnings.length, 4);
  assert.match(
    loaded.warnings[0]!,
    /^f\.jsonl: line 4: a branch to line 9, which is not an earlier/,
  );
  assert.match(loaded.warnings[1]!, /^f\.jsonl: line 5: a branch to line 1/);
  assert.match(loaded.warnings[2]!, /line 6: a branch summary of line 77/);
  assert.match(loaded.warnings[3]!, /line 7: .*longer than 16384 characters/);
});

test('100,000 branches and 100,000 deep rewinds load in linear-ish time, without recursion', () => {
  const parts = [header, say('user', 'root')];
  for (let i = 0; i < 100_000; i++) {
    parts.push(line({ type: 'branch', time: 't', to: 2 }), say('user', `b${i}`));
  }
  const wide = loadSessionText(parts.join(''));
  assert.deepEqual(wide.warnings, []);
  assert.equal(wide.tree.branchCount, 100_000); // b0 continues the first
  assert.deepEqual(texts(wide.messages), ['root', 'b99999']);

  // A deep chain, then rewinds to the start and branch entries back to the leaf, many times:
  // each rewind must not walk the whole chain.
  const deep = [header];
  for (let i = 0; i < 50_000; i++) deep.push(say('user', `m${i}`));
  const leaf = 50_001;
  for (let i = 0; i < 50_000; i++) {
    deep.push(line({ type: 'rewind', time: 't', turn: 1, messages: i % 7 }));
    deep.push(line({ type: 'branch', time: 't', to: leaf }));
  }
  deep.push(line({ type: 'rewind', time: 't', turn: 1, messages: 3 }));
  // A walk per rewind would be 50,000 x 50,000 steps (minutes: the test would time out);
  // skew-binary jumps take a few dozen each.
  const loaded = loadSessionText(deep.join(''));
  assert.deepEqual(texts(loaded.messages), ['m0', 'm1', 'm2']);
});
