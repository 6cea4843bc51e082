// Rough edges of the extension CLI: errors kept out of `ext list`'s table, shadowed commands and
// tools in `ext doctor`, a missing --ext directory reported by name, the supervision policies.
import assert from 'node:assert/strict';
import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { writeExtension } from './support/ext-fixtures.js';
import { FAST_TIMEOUTS } from './support/extensions.js';
import { makeSandbox, runZot } from './support/zot.js';

const boxes: Array<{ cleanup(): void }> = [];
after(() => boxes.forEach((box) => box.cleanup()));

function sandbox() {
  const box = makeSandbox();
  boxes.push(box);
  const run = (args: string[]) =>
    runZot(args, { home: box.home, cwd: box.project, env: FAST_TIMEOUTS });
  return { ...box, run, extensions: join(box.home, 'extensions') };
}

test('ext list: a long manifest error goes below the table, not into the description column', async () => {
  const s = sandbox();
  writeExtension(s.extensions, { name: 'fine' }, { description: 'works' });
  const broken = join(s.extensions, 'broken');
  mkdirSync(broken);
  writeFileSync(join(broken, 'extension.json'), `{"name": "broken", "exec": 42${' '.repeat(200)}`);
  const list = await s.run(['ext', 'list']);
  assert.equal(list.code, 0, list.stderr);
  const lines = list.stdout.split('\n');
  const header = lines.findIndex((line) => /^NAME +VERSION +STATE/.test(line));
  const row = lines.find((line) => line.startsWith('broken '))!;
  assert.match(
    row,
    /^broken +- +error +global +- +- +- +- +- +\S+broken$/,
    'a short status, no error',
  );
  assert.match(lines.find((line) => line.startsWith('fine '))!, / works +\S+fine$/);
  const errors = lines.indexOf('Errors:');
  assert.ok(errors > header + 2, list.stdout);
  const detail = lines[errors + 1]!;
  assert.match(detail, /^ {2}broken: \S*broken\/extension\.json: invalid JSON/);
  // The table is as wide as its contents, not as the error.
  const widest = Math.max(...lines.slice(header, errors).map((line) => line.length));
  assert.ok(widest < detail.length, list.stdout);
});

test('ext doctor shows commands and tools that lost their name as shadowed, by the winner', async () => {
  const s = sandbox();
  writeExtension(s.extensions, {
    name: 'alpha',
    commands: ['hello', 'Shared'],
    tools: [{ name: 'lookup' }],
  });
  writeExtension(s.extensions, {
    name: 'beta',
    commands: ['shared', 'help', 'own'],
    tools: [{ name: 'read' }, { name: 'lookup' }, { name: 'mine' }],
  });
  const json = await s.run(['ext', 'doctor', '--json']);
  assert.equal(json.code, 0, json.stdout + json.stderr);
  const reports = JSON.parse(json.stdout).extensions as Array<Record<string, unknown>>;
  const beta = reports.find((r) => r.name === 'beta')!;
  assert.deepEqual(beta.commands, ['own']);
  assert.deepEqual(beta.tools, [{ name: 'mine', deferred: false }]);
  assert.deepEqual(beta.shadowed, [
    { kind: 'command', name: 'shared', by_extension: 'alpha' },
    { kind: 'command', name: 'help', by_builtin: true },
    { kind: 'tool', name: 'read', by_builtin: true },
    { kind: 'tool', name: 'lookup', by_extension: 'alpha' },
  ]);
  const alpha = reports.find((r) => r.name === 'alpha')!;
  assert.deepEqual(alpha.commands, ['hello', 'Shared']);
  assert.deepEqual(alpha.shadowed, []);

  const human = await s.run(['ext', 'doctor']);
  assert.equal(human.code, 0, human.stdout + human.stderr);
  const section = human.stdout.slice(human.stdout.indexOf('beta [global]'));
  assert.match(section, /^ {2}commands: {3}\/own$/m);
  assert.match(section, /^ {2}tools: {6}mine$/m);
  assert.match(
    section,
    /^ {2}shadowed: {3}\/shared by extension alpha, \/help by the built-in, tool read by the built-in, tool lookup by extension alpha$/m,
  );
});

test('a missing --ext directory is named, without an empty log path', async () => {
  const s = sandbox();
  const result = await s.run(['--ext', './missing', '-p', '/help']);
  assert.equal(result.code, 0, result.stderr);
  const missing = join(realpathSync(s.project), 'missing');
  assert.ok(
    result.stderr.includes(
      `zot: extension missing failed to load: --ext ./missing: cannot open ${missing}`,
    ),
    result.stderr,
  );
  assert.doesNotMatch(result.stderr, /\(log: \)/);
  assert.doesNotMatch(result.stderr, /log:/);
});

test('ext list and doctor show the restart and intercept_failure policies', async () => {
  const s = sandbox();
  writeExtension(
    s.extensions,
    { name: 'guard', intercept: ['tool_call'] },
    {
      intercept_failure: 'block',
      restart: 'never',
    },
  );
  writeExtension(s.extensions, { name: 'plain' });
  const list = await s.run(['ext', 'list', '--json']);
  assert.equal(list.code, 0, list.stderr);
  const listed = JSON.parse(list.stdout) as Array<Record<string, unknown>>;
  assert.deepEqual(
    listed.map((item) => [item.name, item.restart, item.intercept_failure]),
    [
      ['guard', 'never', 'block'],
      ['plain', 'on-failure', 'allow'],
    ],
  );
  const doctor = await s.run(['ext', 'doctor']);
  assert.equal(doctor.code, 0, doctor.stdout + doctor.stderr);
  const guard = doctor.stdout.slice(0, doctor.stdout.indexOf('plain ['));
  assert.match(guard, /^ {2}restart: +never$/m);
  assert.match(guard, /^ {2}on failure: +block \(a failed interceptor blocks: fail-closed\)$/m);
  const json = await s.run(['ext', 'doctor', '--json']);
  const reports = JSON.parse(json.stdout).extensions as Array<Record<string, unknown>>;
  assert.deepEqual(
    reports.map((r) => [r.name, r.restart, r.intercept_failure]),
    [
      ['guard', 'never', 'block'],
      ['plain', 'on-failure', 'allow'],
    ],
  );
});
