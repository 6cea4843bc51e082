// `zot ext test` and protocol version 2: a raw NDJSON extension that uses every version-2 frame
// (interceptions of tool_result, user_prompt and turn_start's add_context included)
// well passes each version-2 check; one deliberately broken in exactly one way fails exactly the
// check of that frame, named; a version-1 extension sees none of them; the SDK examples (both
// SDKs speak version 2) pass the cancel and stray-id checks.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { EXAMPLES, FAST_TIMEOUTS } from './support/extensions.js';
import { hangGuard } from './support/timing.js';
import { makeSandbox, runZot } from './support/zot.js';

const FIXTURE = fileURLToPath(new URL('../../test/fixtures/conformance/v2.mjs', import.meta.url));

const box = makeSandbox();
after(() => box.cleanup());

interface Check {
  check: string;
  target?: string;
  status: string;
  message: string;
  frame?: string;
  sent?: string;
}
interface Report {
  ok: boolean;
  checks: Check[];
}

const V2_CHECKS = new Set(['details', 'ui_request', 'cancel', 'tool_progress', 'unregister_tool']);
const key = (c: Check) => (c.target === undefined ? c.check : `${c.check}:${c.target}`);

async function kit(dir: string): Promise<Report> {
  const result = await runZot(['ext', 'test', dir, '--json'], {
    home: box.home,
    env: { ...FAST_TIMEOUTS },
    timeoutMs: hangGuard(90_000),
  });
  const report = JSON.parse(result.stdout) as Report;
  assert.equal(result.code, report.ok ? 0 : 1, result.stderr);
  return report;
}

/** The kit on the fixture in `mode`. */
function fixture(mode: string): Promise<Report> {
  const dir = join(box.project, mode);
  mkdirSync(dir, { recursive: true });
  const manifest = { name: mode, exec: 'node', args: [FIXTURE, mode, mode] };
  writeFileSync(join(dir, 'extension.json'), JSON.stringify(manifest));
  return kit(dir);
}

const withStatus = (report: Report, status: string) =>
  report.checks.filter((c) => c.status === status).map(key);
const v2Keys = (report: Report) => report.checks.filter((c) => V2_CHECKS.has(c.check)).map(key);

test('an extension that uses every version-2 frame well passes each version-2 check', async () => {
  const report = await fixture('good');
  assert.deepEqual(withStatus(report, 'fail'), []);
  assert.deepEqual(withStatus(report, 'warn'), []);
  assert.deepEqual(v2Keys(report).sort(), [
    'cancel:unknown-id',
    'cancel:work',
    'details:work',
    'tool_progress',
    'ui_request:ask',
    'ui_request:ask',
    'ui_request:unknown-id',
    'unregister_tool:temp',
  ]);
  const progress = report.checks.find((c) => c.check === 'tool_progress')!;
  assert.match(progress.message, /^\d+ line\(s\) for calls in flight \(tool work: \d+/);
  const asked = report.checks.filter((c) => key(c) === 'ui_request:ask');
  assert.match(asked[0]!.message, /^asked \(confirm\), answered with a value/);
  assert.match(asked[1]!.message, /^asked \(confirm\), answered unavailable/);
  assert.match(
    report.checks.find((c) => key(c) === 'details:work')!.message,
    /^a table of 2 column\(s\) and 2 row\(s\)$/,
  );
  for (const [event, effect] of [
    ['tool_result', /: replaced the result with 1 block\(s\)$/],
    ['user_prompt', /: rewrote the prompt \(7 characters\)$/],
    ['turn_start', /: added context \(9 characters\)$/],
  ] as const) {
    const check = report.checks.find((c) => key(c) === `intercept:${event}`)!;
    assert.equal(check.status, 'pass', check.message);
    assert.match(check.message, effect);
  }
  for (const check of report.checks.filter((c) => V2_CHECKS.has(c.check)))
    assert.equal(check.status, 'pass', `${key(check)}: ${check.message}`);
});

test('a malformed tool_progress fails its own check and frames, naming the field', async () => {
  const report = await fixture('bad-progress');
  assert.deepEqual([...new Set(withStatus(report, 'fail'))], ['tool_progress', 'frames']);
  const check = report.checks.find((c) => c.check === 'tool_progress')!;
  assert.match(check.message, /^malformed: .*text.* \(zot drops it\)/);
  assert.match(check.frame!, /"text":2/);
});

for (const [mode, failing, message] of [
  ['stray-progress', 'tool_progress', /^for id "not-a-call", which is no call in flight/],
  ['ignore-cancel', 'cancel:work', /^still sent tool_progress for the cancelled call/],
  [
    'crash-on-cancel',
    'cancel:work',
    /^after cancel of tool work: the extension exited with status 3/,
  ],
  [
    'hang-unavailable',
    'ui_request:ask',
    /^after the kit's ui_response \(.*"unavailable":true.*\): no tool_result within \d+ ms/,
  ],
  ['bad-select', 'ui_request:select', /^tool ask asked a select without options/],
  [
    'unregister-unknown',
    'unregister_tool:never-registered',
    /^names a tool this extension never registered/,
  ],
  [
    'bad-details',
    'details:work',
    /^zot leaves the details out: table details left out: row 2 is not a list of at most 2 cells/,
  ],
  [
    'stray-ui-crash',
    'ui_request:unknown-id',
    /^after a ui_response for an id it never used: the extension exited with status 1/,
  ],
  [
    'bad-replace-content',
    'intercept:tool_result',
    /^replace_content holds an image with invalid base64 data: zot treats the answer as malformed/,
  ],
  [
    'long-modified-text',
    'intercept:user_prompt',
    /^modified_text is longer than 1048576 characters: zot treats the answer as malformed/,
  ],
  [
    'long-add-context',
    'intercept:turn_start',
    /^add_context is longer than 65536 characters: zot treats the answer as malformed/,
  ],
] as const) {
  test(`version 2, ${mode}: fails ${failing} and names the frame`, async () => {
    const report = await fixture(mode);
    const failed = [...new Set(withStatus(report, 'fail'))];
    assert.deepEqual(failed, [failing]);
    const check = report.checks.find((c) => key(c) === failing && c.status === 'fail')!;
    assert.match(check.message, message);
    assert.equal(report.ok, false);
  });
}

test('a version-1 extension is checked as before: no version-2 check, no cancel sent', async () => {
  const report = await fixture('v1');
  assert.deepEqual(v2Keys(report), []);
  assert.deepEqual(withStatus(report, 'fail'), []);
  assert.ok(!report.checks.some((c) => (c.sent ?? '').includes('"cancel"')));
});

for (const [example, cancelled] of [
  // The TypeScript SDK (a command is the call cancelled) and the Python SDK (a tool).
  ['hello', 'cancel:/hello'],
  ['todo', 'cancel:todo_list'],
] as const) {
  test(`the ${example} example (SDK, version 2) passes the cancel and stray-id checks`, async () => {
    const report = await kit(join(EXAMPLES, example));
    assert.deepEqual(withStatus(report, 'fail'), []);
    assert.deepEqual(withStatus(report, 'warn'), []);
    for (const name of [cancelled, 'cancel:unknown-id', 'ui_request:unknown-id'])
      assert.equal(report.checks.find((c) => key(c) === name)?.status, 'pass', name);
  });
}
