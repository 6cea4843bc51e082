import assert from 'node:assert/strict';
import { test } from 'node:test';
import { V2_LIMITS } from '@zot/protocol';
import { answerProblem, MAX_ANSWER_CHARS } from './extension-questions.js';

test("the longest answer is the protocol's", () => {
  assert.equal(MAX_ANSWER_CHARS, V2_LIMITS.uiValue);
});

test('answers that fit their question, and why the others do not', () => {
  const confirm = { kind: 'confirm' as const };
  const select = { kind: 'select' as const, options: ['a', 'b'] };
  const input = { kind: 'input' as const };
  assert.equal(answerProblem(confirm, { value: false }), undefined);
  assert.equal(answerProblem(select, { value: 'b' }), undefined);
  assert.equal(answerProblem(input, { value: '' }), undefined);
  assert.equal(answerProblem(input, { cancelled: true }), undefined);
  assert.equal(answerProblem(select, { unavailable: true }), undefined);
  assert.match(answerProblem(confirm, { value: 'true' })!, /true or false, not a string/);
  assert.match(answerProblem(select, { value: 'c' })!, /"c" is not one of the options/);
  assert.match(answerProblem(select, { value: true })!, /one of its options, not a boolean/);
  assert.match(answerProblem(input, { value: 5 })!, /a string, not a number/);
  assert.match(
    answerProblem(input, { value: 'x'.repeat(MAX_ANSWER_CHARS + 1) })!,
    /at most 100000/,
  );
  assert.match(answerProblem(confirm, {})!, /give `value`/);
  assert.match(answerProblem(confirm, { value: true, cancelled: true })!, /not both/);
});
