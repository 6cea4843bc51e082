// `zot ext test` against the configurable fixture (test/fixtures/ext-fixture.mjs): late ready,
// deferred tools and activate_tools, subscriptions, interceptions, silent commands.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { FAST_TIMEOUTS, NODE_FIXTURE } from './support/extensions.js';
import { hangGuard } from './support/timing.js';
import { makeSandbox, runZot } from './support/zot.js';

const box = makeSandbox();
after(() => box.cleanup());

interface Check {
  check: string;
  target?: string;
  status: string;
  message: string;
  frame?: string;
}

/** Runs the kit on the fixture with `options`; returns the statuses by `check[:target]`. */
async function run(name: string, options: object, env: Record<string, string> = {}) {
  const dir = join(box.project, name);
  mkdirSync(dir, { recursive: true });
  const args = [NODE_FIXTURE, 'well-behaved', JSON.stringify({ name, ...options })];
  writeFileSync(join(dir, 'extension.json'), JSON.stringify({ name, exec: 'node', args }));
  const result = await runZot(['ext', 'test', dir, '--json'], {
    home: box.home,
    env: { ...FAST_TIMEOUTS, ...env },
    timeoutMs: hangGuard(60_000),
  });
  const report = JSON.parse(result.stdout) as { ok: boolean; checks: Check[] };
  assert.equal(result.code, report.ok ? 0 : 1);
  const byKey = new Map(
    report.checks.map((c) => [c.target === undefined ? c.check : `${c.check}:${c.target}`, c]),
  );
  const status = (key: string) => byKey.get(key)?.status;
  const failed = report.checks.filter((c) => c.status === 'fail').map((c) => c.check);
  return { byKey, status, failed, ok: report.ok };
}

test('ready after the auto-ready quiet period is a warning, not a failure', async () => {
  const r = await run('late', { register_early: true, ready_delay_ms: 900, commands: ['a'] });
  assert.equal(r.status('ready'), 'warn');
  assert.match(r.byKey.get('ready')!.message, /would already have auto-readied it/);
  assert.equal(r.ok, true);
});

test('deferred tools are called, activate_tools is checked, subscriptions are judged', async () => {
  const r = await run('deferred', {
    tools: [
      {
        name: 'loader',
        result: { content: [{ type: 'text', text: 'ok' }], activate_tools: ['extra', 'nope'] },
      },
      {
        name: 'extra',
        deferred: true,
        schema: {
          type: 'object',
          properties: { n: { type: 'integer', minimum: 3 } },
          required: ['n'],
        },
        result: { content: [{ type: 'text', text: 'extra' }] },
      },
    ],
    subscribe: { events: ['session_start', 'turn_end', 'bogus'], intercept: ['tool_call'] },
  });
  assert.equal(r.status('register_tool:extra'), 'pass');
  assert.match(r.byKey.get('register_tool:extra')!.message, /deferred/);
  assert.equal(r.status('tool:loader'), 'warn');
  assert.match(r.byKey.get('tool:loader')!.message, /activate_tools names "nope"/);
  assert.equal(r.status('tool:extra'), 'pass');
  assert.match(r.byKey.get('tool:extra')!.message, /deferred.*\{"n":3\}/);
  // The fixture answers any arguments without is_error: accepted, but said.
  assert.equal(r.status('tool_invalid_args:extra'), 'warn');
  assert.equal(r.status('tool_invalid_args:loader'), 'skip');
  assert.equal(r.status('subscribe'), 'warn');
  assert.match(r.byKey.get('subscribe')!.message, /unknown event "bogus"/);
  assert.equal(r.status('intercept:tool_call'), 'pass');
  assert.equal(r.status('events'), 'pass');
  assert.deepEqual(r.failed, []);
});

test('an interception or a command without an answer in time fails; a bad answer warns', async () => {
  const r = await run(
    'silent-parts',
    {
      commands: [
        { name: 'mute', response: { never: true } },
        { name: 'empty', response: { action: 'prompt' } },
      ],
      subscribe: { intercept: ['turn_start', 'tool_call'] },
      intercept_responses: { turn_start: { never: true }, tool_call: { modified_args: 'no' } },
    },
    { ZOT_EXT_COMMAND_TIMEOUT_MS: '400', ZOT_EXT_INTERCEPT_TIMEOUT_MS: '400' },
  );
  assert.deepEqual(r.failed, ['command', 'intercept']);
  assert.match(r.byKey.get('command:mute')!.message, /^no command_response within 400 ms/);
  assert.match(r.byKey.get('intercept:turn_start')!.message, /treats a missing answer as allow/);
  assert.equal(r.status('command:empty'), 'warn');
  assert.equal(r.status('intercept:tool_call'), 'warn');
  assert.equal(r.status('unknown_frame'), 'pass');
});

test('a malformed reply fails its request at once and the frames check', async () => {
  const r = await run('malformed', {
    tools: [{ name: 'broken', result: { content: 'not a list' } }],
  });
  assert.equal(r.status('tool:broken'), 'fail');
  assert.match(r.byKey.get('tool:broken')!.message, /^malformed tool_result: /);
  assert.ok(r.byKey.get('tool:broken')!.frame?.includes('not a list'));
  assert.equal(r.status('frames'), 'fail');
});
