import { strict as assert } from 'node:assert';
import { after, test } from 'node:test';
import { checkArgs } from './check-args.js';
import { loadValidator, validateArgs } from './validate.js';
import { validatesInline } from './validation-cost.js';
import {
  DEFAULT_VALIDATION_TIMEOUT_MS,
  ValidationPool,
  validationTimeoutMs,
} from './validation-pool.js';

const pool = new ValidationPool();
after(() => pool.close());

/** No test waits on this: a guard that stops a hung thread from hanging the suite. */
const GUARD_MS = 120_000;

// Each of `count` items checked against every branch but the last: ~500 checks an item.
const BRANCHES = Array.from({ length: 500 }, (_, i) => ({ const: i }));
const costly = {
  type: 'object',
  properties: { xs: { type: 'array', items: { anyOf: BRANCHES } } },
};
const small = {
  type: 'object',
  properties: { n: { type: 'number' }, tags: { type: 'array', items: { enum: ['a', 'b'] } } },
  required: ['n'],
};

test('the worker gives the verdicts validation on the event loop gives', async () => {
  await loadValidator();
  for (const args of [{ n: 1, tags: ['a'] }, { tags: ['c'] }, { n: 'x' }, { n: 1, tags: 'a' }]) {
    const here = validateArgs('t', small, args);
    const there = await pool.validate({ tool: 't', schema: small, args, timeoutMs: GUARD_MS });
    assert.equal(there, here, JSON.stringify(args));
  }
  // A costly schema with few items: checked in the worker, and its verdict is exact.
  assert.equal(
    await pool.validate({ tool: 't', schema: costly, args: { xs: [499, 0] }, timeoutMs: GUARD_MS }),
    undefined,
  );
  assert.match(
    (await pool.validate({
      tool: 't',
      schema: costly,
      args: { xs: [500] },
      timeoutMs: GUARD_MS,
    })) ?? '',
    /^invalid arguments for tool "t": \/xs\/0: must be equal to constant/,
  );
});

test('past its deadline a check fails closed, naming the tool and the limit; the next one gets a new thread', async () => {
  const xs = Array.from({ length: 99_000 }, () => 499);
  const verdict = await pool.validate({
    tool: 'pick',
    schema: costly,
    args: { xs },
    timeoutMs: 300,
  });
  assert.match(
    verdict ?? 'valid',
    /^the arguments for tool "pick" could not be checked against its schema \((compiling the schema|checking them) took longer than 300 ms, zot's limit \(ZOT_VALIDATION_TIMEOUT_MS\)\), so the tool was not run: /,
  );
  // Queued behind a check that times out: runs on a fresh thread, with its own deadline.
  const [first, second] = await Promise.all([
    pool.validate({ tool: 'pick', schema: costly, args: { xs }, timeoutMs: 300 }),
    pool.validate({ tool: 'next', schema: small, args: { n: 'x' }, timeoutMs: GUARD_MS }),
  ]);
  assert.match(first ?? 'valid', /took longer than 300 ms/);
  assert.equal(second, 'invalid arguments for tool "next": /n: must be number');
});

test('an aborted turn stops waiting at once, and the thread it stopped is replaced', async () => {
  const controller = new AbortController();
  const xs = Array.from({ length: 99_000 }, () => 499);
  const pending = pool.validate({
    tool: 'pick',
    schema: costly,
    args: { xs },
    timeoutMs: GUARD_MS,
    signal: controller.signal,
  });
  setImmediate(() => controller.abort());
  assert.equal(await pending, 'pick: not run, the turn was aborted');
  assert.equal(
    await pool.validate({
      tool: 'late',
      schema: small,
      args: {},
      timeoutMs: GUARD_MS,
      signal: controller.signal,
    }),
    'late: not run, the turn was aborted',
  );
  assert.equal(
    await pool.validate({ tool: 'next', schema: small, args: { n: 2 }, timeoutMs: GUARD_MS }),
    undefined,
  );
});

test('ZOT_VALIDATION_TIMEOUT_MS sets the deadline; anything but a positive number gives the default', () => {
  assert.equal(validationTimeoutMs({ ZOT_VALIDATION_TIMEOUT_MS: '2500' }), 2500);
  for (const value of [undefined, '', '0', '-5', 'soon', 'Infinity'])
    assert.equal(
      validationTimeoutMs({ ZOT_VALIDATION_TIMEOUT_MS: value }),
      DEFAULT_VALIDATION_TIMEOUT_MS,
      String(value),
    );
});

test('only cheap checks stay on the event loop: the schema, the arguments and their product decide', () => {
  assert.ok(validatesInline(small, { n: 1, tags: ['a', 'b'] }), 'an ordinary call');
  assert.ok(
    validatesInline(small, { n: 1, tags: Array(1000).fill('a') }),
    'a long list of a small schema',
  );
  assert.ok(!validatesInline(small, { n: 1, tags: Array(99_000).fill('a') }), 'too many values');
  assert.ok(!validatesInline(costly, { xs: [1] }), 'a schema too large to compile here');
  const many = { anyOf: Array.from({ length: 40 }, (_, i) => ({ const: i })) };
  const wide = { type: 'object', properties: { xs: { type: 'array', items: many } } };
  assert.ok(validatesInline(wide, { xs: [1, 2, 3] }));
  assert.ok(!validatesInline(wide, { xs: Array(2000).fill(39) }), 'items times branches');
  // Each level applies the whole schema three times: 3^depth checks of the deepest value.
  const tree = {
    type: 'object',
    properties: { c: { anyOf: [{ $ref: '#' }, { $ref: '#' }, { $ref: '#' }] } },
  };
  let deep: Record<string, unknown> = {};
  for (let i = 0; i < 30; i++) deep = { c: deep };
  assert.ok(validatesInline(tree, { c: { c: {} } }));
  assert.ok(!validatesInline(tree, deep), 'references that multiply with depth');
});

test('checkArgs never sends a call with a generated validator to the worker', async () => {
  let calls = 0;
  const precompiled = Object.assign(
    (args: unknown) => {
      calls++;
      return Array.isArray((args as { xs?: unknown }).xs);
    },
    { errors: null },
  );
  const xs = Array.from({ length: 99_000 }, () => 499);
  assert.equal(
    await checkArgs({ tool: 'write', schema: costly, args: { xs }, precompiled }),
    undefined,
  );
  assert.equal(calls, 1, 'the generated validator ran, here');
});
