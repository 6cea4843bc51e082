// `zot ext test` end to end through the built binary: the examples pass, each deliberately broken
// fixture fails exactly the checks it breaks, `--json` has the documented shape, usage errors
// exit 2.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import { EXAMPLES, FAST_TIMEOUTS, NODE_FIXTURE } from './support/extensions.js';
import { hangGuard } from './support/timing.js';
import { REPORT_SCHEMA } from './support/ext-test-report.js';
import { makeSandbox, runZot, type ZotResult } from './support/zot.js';

const FIXTURES = fileURLToPath(new URL('../../test/fixtures/conformance/', import.meta.url));

const box = makeSandbox();
after(() => box.cleanup());

function kit(args: string[], env: Record<string, string> = {}): Promise<ZotResult> {
  return runZot(['ext', 'test', ...args], {
    home: box.home,
    cwd: box.project,
    env: { ...FAST_TIMEOUTS, ...env },
    timeoutMs: hangGuard(60_000),
  });
}

const validateReport = new Ajv({ strict: false }).compile(REPORT_SCHEMA);

interface Check {
  check: string;
  target?: string;
  status: 'pass' | 'fail' | 'warn' | 'skip';
  message: string;
  frame?: string;
  sent?: string;
}
interface Report {
  ok: boolean;
  counts: Record<string, number>;
  checks: Check[];
  stderr: string;
}

/** Parses and validates `--json` output; the counts and `ok` agree with the checks. */
function report(result: ZotResult): Report {
  const value = JSON.parse(result.stdout) as Report;
  assert.ok(validateReport(value), JSON.stringify(validateReport.errors));
  for (const status of ['pass', 'fail', 'warn', 'skip'] as const) {
    const count: number = value.checks.filter((check: Check) => check.status === status).length;
    assert.equal(value.counts[status], count, status);
  }
  assert.equal(value.ok, value.counts.fail === 0);
  assert.equal(result.code, value.ok ? 0 : 1, result.stderr);
  return value;
}

const key = (check: Check) =>
  check.target === undefined ? check.check : `${check.check}:${check.target}`;
const withStatus = (value: Report, status: Check['status']) =>
  value.checks.filter((check) => check.status === status).map(key);
const find = (value: Report, name: string) => value.checks.find((check) => key(check) === name);

for (const [example, expected] of [
  [
    'clock',
    ['command:clock', 'command:clock-prompt', 'tool:clock_now', 'tool_invalid_args:clock_now'],
  ],
  ['guard', ['intercept:tool_call', 'intercept:assistant_message']],
  ['hello-py', ['command:hellopy']],
  // "sdk": "python": the kit, like zot, gives it zot's own zot_sdk (it carries no copy).
  ['todo', ['command:todo', 'tool:todo_list']],
  // No MCP servers configured in the kit's ZOT_HOME: the bridge still says hello and answers /mcp.
  ['mcp', ['command:mcp']],
] as const) {
  test(`the ${example} example passes the kit`, async () => {
    const value = report(await kit([join(EXAMPLES, example), '--json']));
    assert.deepEqual(withStatus(value, 'fail'), []);
    assert.deepEqual(withStatus(value, 'warn'), []);
    for (const name of [
      'manifest',
      'hello',
      'ready',
      ...expected,
      'unknown_frame',
      'frames',
      'shutdown',
      'processes',
    ])
      assert.equal(find(value, name)?.status, 'pass', name);
  });
}

test('text output: a line per check, the offending frame escaped, stderr after a failure', async () => {
  const good = await kit([join(EXAMPLES, 'clock')]);
  assert.equal(good.code, 0, good.stderr);
  const lines = good.stdout.trim().split('\n');
  assert.match(lines[0]!, /^zot ext test: clock \(/);
  assert.match(good.stdout, /^pass {2}tool clock_now: answered in \d+ ms, arguments \{\}$/m);
  assert.match(good.stdout, /^0 failed, 0 warning\(s\), \d+ passed, 0 skipped$/m);

  const bad = await kit([join(FIXTURES, 'garbage-stdout')]);
  assert.equal(bad.code, 1);
  assert.ok(!bad.stdout.includes('\x1b'), 'no raw escape reaches the terminal');
  assert.match(bad.stdout, /^fail {2}frames: /m);
  assert.match(bad.stdout, /^ {6}frame: debug: registered \\x1b\[31mstatus\\x1b\[0m$/m);

  const crash = await kit([join(FIXTURES, 'crash-invalid-args')]);
  assert.match(
    crash.stdout,
    /^stderr of the extension.*:\n(?:.*\n)*  \| TypeError: Cannot read properties/m,
  );
});

// Each fixture breaks one rule; the kit names exactly the checks that rule fails.
for (const [fixture, failures, extra] of [
  ['crash-invalid-args', ['tool_invalid_args:shout'], { pass: ['tool:shout', 'processes'] }],
  ['garbage-stdout', ['frames'], { pass: ['command:status', 'shutdown'] }],
  ['ignore-shutdown', ['shutdown'], { pass: ['processes'] }],
  [
    'invalid-registration',
    ['register_command:bad name', 'register_tool:bad!', 'register_tool:echo_twice'],
    { pass: ['register_command:good', 'command:good', 'ready'] },
  ],
  ['flood', ['frames'], { pass: ['command:ping', 'shutdown', 'processes'] }],
] as const) {
  test(`the ${fixture} fixture fails exactly ${failures.join(', ')}`, async () => {
    const value = report(await kit([join(FIXTURES, fixture), '--json']));
    assert.deepEqual(withStatus(value, 'fail'), failures);
    for (const [status, names] of Object.entries(extra))
      for (const name of names) assert.equal(find(value, name)?.status, status, name);
  });
}

test('the kit names the two failures of an extension that never readies nor answers', async () => {
  const value = report(await kit([join(FIXTURES, 'never-ready'), '--json']));
  assert.deepEqual(withStatus(value, 'fail'), ['ready', 'tool:lookup']);
  // The fixture has no permissions block: the scope checks are skipped, with a note.
  assert.deepEqual(withStatus(value, 'skip'), ['scope', 'tool_invalid_args:lookup']);
  assert.match(find(value, 'ready')!.message, /^no ready within \d+ ms of hello/);
  const tool = find(value, 'tool:lookup')!;
  assert.match(tool.message, /^no tool_result within \d+ ms/);
  assert.deepEqual(JSON.parse(tool.sent!), {
    type: 'tool_call',
    name: 'lookup',
    args: { query: 'example' },
    id: JSON.parse(tool.sent!).id,
  });
});

test('crash on invalid arguments: named with the exit status, arguments and stderr', async () => {
  const value = report(await kit([join(FIXTURES, 'crash-invalid-args'), '--json']));
  const check = find(value, 'tool_invalid_args:shout')!;
  assert.match(
    check.message,
    /^crashed: the extension exited with status 1 .*missing required property "query"/,
  );
  assert.match(value.stderr, /TypeError/);
  assert.equal(find(value, 'shutdown')?.status, 'skip');
});

test(
  'a child that leaves the process group is found and stopped',
  { skip: process.platform !== 'linux' },
  async () => {
    const value = report(await kit([join(FIXTURES, 'leaves-child'), '--json']));
    assert.deepEqual(withStatus(value, 'fail'), ['processes']);
    const pid = Number(
      /^(\d+) \(node\)/.exec(find(value, 'processes')!.message.split(': ')[1]!)?.[1],
    );
    assert.ok(pid > 1);
    // Killed, and reaped or a zombie (its parent is gone; PID 1 may be slow to reap it).
    let state = 'gone';
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0]!;
    } catch {
      // no such process
    }
    assert.ok(state === 'gone' || state === 'Z', `the escaped child is still running (${state})`);
  },
);

test('hello failures from the shared fixture: not hello first, exit before hello, silence', async () => {
  const dir = (name: string, scenario: string, options: object = {}) => {
    const path = join(box.project, name);
    mkdirSync(path, { recursive: true });
    writeFileSync(
      join(path, 'extension.json'),
      JSON.stringify({
        name,
        exec: 'node',
        args: [NODE_FIXTURE, scenario, JSON.stringify({ name, ...options })],
      }),
    );
    return path;
  };
  const notHello = report(await kit([dir('not-hello', 'not-hello-first'), '--json']));
  assert.deepEqual(withStatus(notHello, 'fail'), ['hello']);
  assert.match(
    find(notHello, 'hello')!.message,
    /the first line must be a hello frame; got a notify frame/,
  );
  assert.equal(find(notHello, 'processes')?.status, 'pass');

  const exits = report(await kit([dir('exits', 'exit-before-hello', { status: 3 }), '--json']));
  assert.deepEqual(withStatus(exits, 'fail'), ['hello']);
  assert.match(find(exits, 'hello')!.message, /exited with status 3 before sending hello/);

  const silent = report(
    await kit([dir('silent', 'silent'), '--json'], { ZOT_EXT_HELLO_TIMEOUT_MS: '300' }),
  );
  assert.deepEqual(withStatus(silent, 'fail'), ['hello']);
  assert.match(find(silent, 'hello')!.message, /^no hello within 300 ms/);
  assert.equal(find(silent, 'processes')?.status, 'pass');

  const mismatch = report(
    await kit([dir('named', 'well-behaved', { hello_name: 'other', tools: ['t'] }), '--json']),
  );
  assert.equal(find(mismatch, 'hello')?.status, 'warn');
  assert.deepEqual(withStatus(mismatch, 'fail'), []);
});

test('a manifest error is a failed check (exit 1); usage errors exit 2 and name the problem', async () => {
  const bad = join(box.project, 'bad-manifest');
  mkdirSync(bad, { recursive: true });
  writeFileSync(join(bad, 'extension.json'), JSON.stringify({ name: 'Bad Name', exec: 'node' }));
  const value = report(await kit([bad, '--json']));
  assert.deepEqual(withStatus(value, 'fail'), ['manifest']);
  assert.match(value.checks[0]!.message, /"name"/);

  const empty = join(box.project, 'empty');
  mkdirSync(empty, { recursive: true });
  const theme = join(box.project, 'theme');
  mkdirSync(theme, { recursive: true });
  writeFileSync(join(theme, 'extension.json'), JSON.stringify({ name: 'theme' }));
  writeFileSync(join(theme, 'theme.json'), '{}');
  for (const [args, message] of [
    [[], /ext test needs <dir>/],
    [['nowhere'], /ext test: nowhere: no such directory/],
    [[empty], /no extension\.json in .*empty \(not an extension directory\)/],
    [[join(EXAMPLES, 'clock'), 'extra'], /unexpected argument "extra"/],
    [[join(EXAMPLES, 'clock'), '--yaml'], /--yaml/],
    [[theme], /theme is a theme-only extension .*no process to test/],
  ] as const) {
    const result = await kit([...args]);
    assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`);
    assert.match(result.stderr, message);
    assert.equal(result.stdout, '');
  }
  const help = await kit(['--help']);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /^Usage: zot ext test <dir> \[--json\]/);
  const list = await runZot(['ext', '--help'], { home: box.home });
  assert.match(list.stdout, /^ {2}test <dir> \| --url URL \[--json\] +run the conformance kit/m);
});

test('an extension that closes its stdout and keeps running fails its calls at once, named', async () => {
  // The tool timeout is an hour: only the closed pipe can end these calls in time for the test.
  const value = report(
    await kit([join(FIXTURES, 'closes-stdout'), '--json'], { ZOT_EXT_TOOL_TIMEOUT_MS: '3600000' }),
  );
  const call = find(value, 'tool:mute')!;
  assert.equal(call.status, 'fail');
  assert.match(call.message, /closed its stdout while still running/);
  assert.equal(find(value, 'tool_invalid_args:mute')?.status, 'skip');
  assert.equal(find(value, 'processes')?.status, 'pass', 'and it is stopped');
});
