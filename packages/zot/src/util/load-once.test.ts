import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LoadOnce } from './load-once.js';

test('LoadOnce starts one load for every caller; the value is there once it has resolved', async () => {
  let starts = 0;
  let arrive!: (value: string) => void;
  const once = new LoadOnce(() => {
    starts++;
    return new Promise<string>((resolve) => (arrive = resolve));
  });
  assert.equal(once.now, undefined, 'nothing before the first load');
  const first = once.load();
  const second = once.load();
  assert.equal(starts, 1);
  assert.equal(once.now, undefined, 'nothing while loading');
  arrive('module');
  assert.deepEqual(await Promise.all([first, second]), ['module', 'module']);
  assert.equal(once.now, 'module');
  assert.equal(await once.load(), 'module');
  assert.equal(starts, 1, 'a later call does not load again');
});

test('LoadOnce: a failed load stays failed (no second attempt) and leaves no value', async () => {
  let starts = 0;
  const once = new LoadOnce<string>(() => {
    starts++;
    return Promise.reject(new Error('damaged install'));
  });
  await assert.rejects(once.load(), /damaged install/);
  await assert.rejects(once.load(), /damaged install/);
  assert.equal(starts, 1);
  assert.equal(once.now, undefined);
});
