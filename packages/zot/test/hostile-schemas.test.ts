// Tool schemas an extension may send to hurt the host: nested past any stack, patterns that
// backtrack forever, references and patterns that could only fail once the model calls them.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { expectNoLeftovers, FAST_TIMEOUTS, makeExtension } from './support/extensions.js';
import { fakeLlmFlags, startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { jsonLines, makeSandbox, runZot } from './support/zot.js';

let llm: FakeLlm;
before(async () => {
  llm = await startFakeLlm();
});
after(() => llm.close());

/** `properties` nested `levels` deep: about 25 KB at 1,000 levels. */
function deepSchema(levels: number): Record<string, unknown> {
  let schema: Record<string, unknown> = { type: 'string' };
  for (let i = 0; i < levels; i++) schema = { type: 'object', properties: { a: schema } };
  return schema;
}

const HOSTILE = 'a'.repeat(60) + '!';
const REDOS_SCHEMA = {
  type: 'object',
  properties: { s: { type: 'string', pattern: '^(a|aa)+$' } },
  required: ['s'],
};

function firstToolResult(stdout: string) {
  return jsonLines(stdout).find((e) => e.type === 'tool_result') as unknown as {
    is_error: boolean;
    content: Array<{ text: string }>;
  };
}

function setup() {
  const box = makeSandbox();
  const root = join(box.home, 'extensions');
  const run = (args: string[]) =>
    runZot([...args, ...fakeLlmFlags(llm.url), '--no-session'], {
      home: box.home,
      cwd: box.project,
      env: FAST_TIMEOUTS,
    });
  const log = (name: string) => readFileSync(join(box.home, 'logs', `ext-${name}.log`), 'utf8');
  const offeredTools = () =>
    (llm.requests.at(-1)!.body.tools ?? []).map((tool: { name: string }) => tool.name);
  return { box, root, run, log, offeredTools };
}

test('a schema nested 1,000 deep is rejected and logged; the run and the other tools go on', async (t) => {
  const { box, root, run, log, offeredTools } = setup();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  makeExtension(root, 'deep', 'well-behaved', {
    tools: [{ name: 'deep_tool', schema: deepSchema(1000) }, 'fine_tool'],
  });
  llm.script({ text: 'still here' });
  const result = await run(['-p', 'hello']);
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout, 'still here\n');
  assert.doesNotMatch(result.stderr, /RangeError|call stack|\n\s+at /);
  assert.deepEqual(
    offeredTools().filter((name: string) => name.endsWith('_tool')),
    ['fine_tool'],
  );
  assert.match(log('deep'), /frame nests deeper than 128 levels/);

  const doctor = await runZot(['ext', 'doctor', '--ext', join(root, 'deep')], {
    home: box.home,
    cwd: box.project,
    env: FAST_TIMEOUTS,
  });
  assert.doesNotMatch(doctor.stderr + doctor.stdout, /RangeError|call stack|\n\s+at /);
  assert.match(doctor.stdout, /nests deeper than 128 levels/);
  assert.match(doctor.stdout, /fine_tool/);
});

test('a catastrophic pattern cannot hang the loop: from the model or from modified_args', async (t) => {
  const { box, root, run } = setup();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  makeExtension(root, 'pat', 'well-behaved', {
    tools: [{ name: 'pat_tool', schema: REDOS_SCHEMA }],
  });
  makeExtension(root, 'rewriter', 'well-behaved', {
    subscribe: { intercept: ['tool_call'] },
    intercept_responses: { tool_call: { modified_args: { s: HOSTILE } } },
  });
  llm.script(
    { toolCalls: [{ id: 'p1', name: 'pat_tool', args: { s: 'aaaa' } }] },
    { text: 'finished' },
  );
  const result = await run(['--json', 'go']);
  assert.equal(result.code, 0, result.stderr);
  const toolResult = firstToolResult(result.stdout);
  assert.equal(toolResult.is_error, true);
  assert.match(toolResult.content[0]!.text, /\/s: must match pattern "\^\(a\|aa\)\+\$"/);
  assert.ok(jsonLines(result.stdout).some((e) => e.type === 'done'));
});

test('a hostile argument straight from the model is rejected the same way', async (t) => {
  const { box, root, run } = setup();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  makeExtension(root, 'pat', 'well-behaved', {
    tools: [{ name: 'pat_tool', schema: REDOS_SCHEMA }],
  });
  llm.script(
    { toolCalls: [{ id: 'p1', name: 'pat_tool', args: { s: HOSTILE } }] },
    { text: 'finished' },
  );
  const result = await run(['--json', 'go']);
  assert.equal(result.code, 0, result.stderr);
  const toolResult = firstToolResult(result.stdout);
  assert.equal(toolResult.is_error, true);
  assert.match(toolResult.content[0]!.text, /must match pattern/);
});

test('bad patterns and unresolvable references are rejected at registration, never offered', async (t) => {
  const { box, root, run, log, offeredTools } = setup();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  const object = (properties: Record<string, unknown>) => ({ type: 'object', properties });
  makeExtension(root, 'lint', 'well-behaved', {
    tools: [
      { name: 'bad_regex', schema: object({ s: { type: 'string', pattern: '([a-z' } }) },
      { name: 'backref', schema: object({ s: { type: 'string', pattern: '(a)\\1' } }) },
      { name: 'bad_ref', schema: object({ s: { $ref: '#/definitions/nowhere' } }) },
      { name: 'remote_ref', schema: object({ s: { $ref: 'https://example.com/x.json' } }) },
      {
        name: 'good_ref',
        schema: { ...object({ s: { $ref: '#/definitions/d' } }), definitions: { d: {} } },
      },
    ],
  });
  llm.script({ text: 'ok' });
  const result = await run(['-p', 'hello']);
  assert.equal(result.code, 0, result.stderr);
  const offered = offeredTools();
  assert.ok(offered.includes('good_ref'), offered.join(', '));
  for (const name of ['bad_regex', 'backref', 'bad_ref', 'remote_ref'])
    assert.ok(!offered.includes(name), `${name} must not reach the model`);
  const text = log('lint');
  assert.match(text, /register_tool "bad_regex".*\/properties\/s\/pattern/);
  assert.match(text, /register_tool "backref".*not supported/);
  assert.match(text, /register_tool "bad_ref".*cannot resolve "#\/definitions\/nowhere"/);
  assert.match(text, /register_tool "remote_ref".*cannot resolve/);
});
