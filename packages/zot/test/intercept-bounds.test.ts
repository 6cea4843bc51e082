// A fail-closed guard must stay closed whatever the model sends: arguments past zot's bounds are
// refused before any extension sees them (no frame ever leaves zot past the protocol's own
// bounds), and the guard on the real TypeScript SDK keeps deciding every call it is sent.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, test } from 'node:test';
import { MAX_TOOL_ARGS_DEPTH } from '@zot/protocol';
import { expectNoLeftovers, FAST_TIMEOUTS, makeExtension } from './support/extensions.js';
import { fakeLlmFlags, startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { jsonLines, makeSandbox, runZot } from './support/zot.js';

const SDK = pathToFileURL(
  new URL('../../../sdk/dist/pack/index.js', import.meta.url).pathname,
).href;

let llm: FakeLlm;
before(async () => {
  llm = await startFakeLlm();
});
after(() => llm.close());

/** Objects nested `levels` deep: `{}` is one level, `{"a":{}}` two. */
function nested(levels: number): Record<string, unknown> {
  let value: Record<string, unknown> = {};
  for (let i = 1; i < levels; i++) value = { a: value };
  return value;
}

/** A guard on @zot/sdk that refuses every call of `anyobj`, failing closed. */
function writeSdkGuard(root: string): void {
  const dir = join(root, 'sdkguard');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'index.mjs'),
    [
      `import { block, createExtension } from ${JSON.stringify(SDK)};`,
      `const ext = createExtension({ name: 'sdkguard', version: '1.0.0' });`,
      `ext.interceptToolCall(({ name }) => (name === 'anyobj' ? block('anyobj is refused') : undefined));`,
      `await ext.run();`,
    ].join('\n'),
  );
  writeFileSync(
    join(dir, 'extension.json'),
    JSON.stringify({
      name: 'sdkguard',
      exec: 'node',
      args: ['index.mjs'],
      intercept_failure: 'block',
    }),
  );
}

type Result = { is_error: boolean; content: Array<{ text: string }> };

test('arguments nested past the bound never reach a guard or the tool: an error naming the bound', async (t) => {
  const box = makeSandbox();
  t.after(() => box.cleanup());
  const root = join(box.home, 'extensions');
  expectNoLeftovers(t, box.home);
  const record = join(box.project, 'anyobj.jsonl');
  writeSdkGuard(root);
  makeExtension(root, 'tools', 'well-behaved', {
    tools: [{ name: 'anyobj', schema: { type: 'object' } }],
    record,
  });
  // The attack: 128 levels (a frame of 129), then a call the guard decides (within the bound).
  llm.script(
    { toolCalls: [{ id: 'deep', name: 'anyobj', args: nested(128) }] },
    { toolCalls: [{ id: 'edge', name: 'anyobj', args: nested(MAX_TOOL_ARGS_DEPTH + 1) }] },
    { toolCalls: [{ id: 'fine', name: 'anyobj', args: nested(MAX_TOOL_ARGS_DEPTH) }] },
    { text: 'done' },
  );
  const result = await runZot(['--json', 'go', ...fakeLlmFlags(llm.url), '--no-session'], {
    home: box.home,
    cwd: box.project,
    env: FAST_TIMEOUTS,
  });
  assert.equal(result.code, 0, result.stderr);
  const results = jsonLines(result.stdout).filter(
    (e) => e.type === 'tool_result',
  ) as unknown as Result[];
  assert.equal(results.length, 3);
  for (const refused of results.slice(0, 2)) {
    assert.equal(refused.is_error, true);
    assert.match(
      refused.content[0]!.text,
      new RegExp(`nested deeper than ${MAX_TOOL_ARGS_DEPTH} levels`),
    );
  }
  // Within the bound the guard is asked, decides, and its block stands.
  assert.equal(results[2]!.is_error, true);
  assert.match(results[2]!.content[0]!.text, /anyobj is refused/);
  const ranTool = existsSync(record)
    ? readFileSync(record, 'utf8').includes('"type":"tool_call"')
    : false;
  assert.equal(ranTool, false, 'anyobj never ran');
  const guardLog = readFileSync(join(box.home, 'logs', 'ext-sdkguard.log'), 'utf8');
  assert.doesNotMatch(guardLog, /ignored a frame|deeper than/);
});
