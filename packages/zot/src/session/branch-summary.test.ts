// The summary zot writes of a branch without a model: prompts, files written or edited, the
// first lines of the last answer, bounded however long the branch.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Message } from '../providers/types.js';
import { MAX_SUMMARY_PROMPT_CHARS, plainSummary, summaryPrompt } from './branch-summary.js';
import { MAX_BRANCH_SUMMARY_CHARS } from './entries.js';

const user = (text: string): Message => ({
  role: 'user',
  content: [{ type: 'text', text }],
  time: 't',
});

test('a plain summary names the prompts, the files written or edited and the last answer', () => {
  const messages: Message[] = [
    user('fix the parser\nmore detail'),
    {
      role: 'assistant',
      content: [{ type: 'tool_call', id: 'c1', name: 'write', args: { path: 'src/new.ts' } }],
      time: 't',
    },
    {
      role: 'tool',
      content: [
        {
          type: 'tool_result',
          call_id: 'c1',
          is_error: false,
          content: [],
          details: { kind: 'edit', path: 'src/parse.ts', added: 1, removed: 1, hunks: [] },
        },
      ],
      time: 't',
    },
    {
      role: 'assistant',
      content: [{ type: 'text', text: 'Fixed.\nSecond\nThird\nFourth' }],
      time: 't',
    },
  ];
  assert.equal(
    plainSummary(messages),
    'Prompts:\n- fix the parser\nFiles written or edited: src/new.ts, src/parse.ts\nLast answer:\n  Fixed.\n  Second\n  Third',
  );
  assert.equal(plainSummary([]), '');
});

test('summaries and the model prompt stay bounded for a huge branch', () => {
  const huge = Array.from({ length: 2000 }, (_, i) => user(`prompt ${i} ${'x'.repeat(500)}`));
  assert.ok(plainSummary(huge).length <= MAX_BRANCH_SUMMARY_CHARS);
  assert.match(plainSummary(huge), /- and 1994 more/);
  const prompt = summaryPrompt(huge);
  assert.ok(prompt.length < MAX_SUMMARY_PROMPT_CHARS + 200);
  assert.match(prompt, /^The branch began with this prompt:\nprompt 0 /);
  assert.match(prompt, /prompt 1999 x+$/);
});
