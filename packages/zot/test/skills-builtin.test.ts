// zot's own skill is kept true: its code blocks are run as real extensions against the real
// host (the Python one on the Python SDK now; the TypeScript one on @zot/sdk).
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import { fakeLlmFlags, startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { makeSandbox, runZot } from './support/zot.js';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const SKILL = readFileSync(join(ROOT, 'packages/zot/skills/zot-extension/SKILL.md'), 'utf8');

/** The fenced blocks of one language in the skill, in order. */
function blocks(lang: string): string[] {
  return [...SKILL.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map(
    (m) => m[1]!,
  );
}

let llm: FakeLlm;
before(async () => {
  llm = await startFakeLlm();
});
after(() => llm.close());

test('the skill shows a manifest that parses', () => {
  const [manifest] = blocks('json');
  assert.deepEqual(Object.keys(JSON.parse(manifest!)), ['name', 'version', 'exec', 'args']);
});

test("the skill's Python extension runs: its command answers and its tool is called", async (t) => {
  const box = makeSandbox();
  t.after(() => box.cleanup());
  const [code] = blocks('python');
  assert.ok(code, 'the skill has a Python example');
  const dir = join(box.project, 'greet-py');
  mkdirSync(dir);
  writeFileSync(join(dir, 'main.py'), code!);
  cpSync(join(ROOT, 'sdk-python/zot_sdk'), join(dir, 'zot_sdk'), { recursive: true });
  writeFileSync(
    join(dir, 'extension.json'),
    JSON.stringify({ name: 'greet-py', version: '0.1.0', exec: 'python3', args: ['main.py'] }),
  );
  const run = (args: string[]) =>
    runZot([...fakeLlmFlags(llm.url), '--ext', dir, ...args], { home: box.home, cwd: box.project });
  const command = await run(['-p', '/greet-py you']);
  assert.equal(command.code, 0, command.stderr);
  assert.equal(command.stdout, 'hello, you\n');

  llm.script(
    { toolCalls: [{ id: 't1', name: 'shout_py', args: { text: 'quiet words' } }] },
    { text: 'done' },
  );
  const tool = await run(['-p', 'shout it']);
  assert.equal(tool.code, 0, tool.stderr);
  assert.match(JSON.stringify(llm.requests.at(-1)!.body.messages), /QUIET WORDS/);
});

test("the skill's TypeScript-SDK extension runs: command, tool and the interceptor's block", async (t) => {
  const box = makeSandbox();
  t.after(() => box.cleanup());
  const [code] = blocks('js');
  assert.ok(code, 'the skill has a JavaScript example');
  const dir = join(box.project, 'greet');
  const sdk = join(dir, 'node_modules', '@zot', 'sdk');
  mkdirSync(sdk, { recursive: true });
  cpSync(join(ROOT, 'packages/sdk/dist/pack'), join(sdk, 'dist/pack'), { recursive: true });
  cpSync(join(ROOT, 'packages/sdk/package.json'), join(sdk, 'package.json'));
  writeFileSync(join(dir, 'index.mjs'), code!);
  writeFileSync(
    join(dir, 'extension.json'),
    JSON.stringify({ name: 'greet', version: '0.1.0', exec: 'node', args: ['index.mjs'] }),
  );
  const run = (args: string[]) =>
    runZot([...fakeLlmFlags(llm.url), '--ext', dir, ...args], { home: box.home, cwd: box.project });
  const command = await run(['-p', '/greet you']);
  assert.equal(command.code, 0, command.stderr);
  assert.equal(command.stdout, 'hello, you\n');

  llm.script(
    { toolCalls: [{ id: 't1', name: 'shout', args: { text: 'quiet words' } }] },
    { toolCalls: [{ id: 't2', name: 'bash', args: { command: 'rm -rf / --no-preserve-root' } }] },
    { text: 'done' },
  );
  const tool = await run(['-p', 'shout it']);
  assert.equal(tool.code, 0, tool.stderr);
  const sent = JSON.stringify(llm.requests.at(-1)!.body.messages);
  assert.match(sent, /QUIET WORDS/);
  assert.match(sent, /not on this machine/, 'the interceptor blocked the call');
});
