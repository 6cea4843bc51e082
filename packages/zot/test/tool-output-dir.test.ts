// Full outputs of cut tool results go to a directory only the user can use, never to a shared
// one such as /tmp/zot-tool-output, which another user could have created first.
import assert from 'node:assert/strict';
import {
  chmodSync,
  chownSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
} from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fakeLlmFlags, startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { makeSandbox, runZot } from './support/zot.js';

let llm: FakeLlm;
before(async () => {
  llm = await startFakeLlm();
});
after(() => llm.close());

const modeOf = (path: string) => statSync(path).mode & 0o777;
const isRoot = process.getuid?.() === 0;
const NOBODY = 65534;

/** Runs a bash call with 5,000 lines of output; returns the tool result the model got. */
async function cutResult(
  box: ReturnType<typeof makeSandbox>,
  env: Record<string, string | undefined>,
) {
  llm.script({ toolCalls: [{ name: 'bash', args: { command: 'seq 1 5000' } }] }, { text: 'done' });
  const out = await runZot(['-p', 'count', ...fakeLlmFlags(llm.url)], {
    home: box.home,
    cwd: box.project,
    env,
  });
  assert.equal(out.code, 0, out.stderr);
  const messages = llm.requests.at(-1)!.body.messages as Array<{
    content: Array<{ type: string; content?: Array<{ text: string }> }>;
  }>;
  const result = messages.flatMap((m) => m.content).find((b) => b.type === 'tool_result');
  return result!.content!.map((part) => part.text).join('');
}

test('a shared directory in /tmp gets nothing, even one another user made for everyone', async (t) => {
  const box = makeSandbox();
  t.after(() => box.cleanup());
  const tmp = join(box.project, '..', 'tmp');
  const shared = ['zot-tool-output', 'zot-bash'].map((name) => join(tmp, name));
  for (const dir of shared) {
    mkdirSync(dir, { recursive: true });
    chmodSync(dir, 0o777);
    if (isRoot) chownSync(dir, NOBODY, NOBODY);
  }
  const text = await cutResult(box, { TMPDIR: tmp, XDG_RUNTIME_DIR: undefined });
  assert.deepEqual(
    shared.map((dir) => readdirSync(dir)),
    [[], []],
  );
  const own = join(box.home, 'tool-output');
  const saved = new RegExp(`full output saved to (${own}/[^\\]\\s]+)`).exec(text);
  assert.ok(saved, text.slice(-300));
  assert.equal(readFileSync(saved[1]!, 'utf8').split('\n').length, 5001);
  assert.deepEqual([modeOf(own), modeOf(saved[1]!)], [0o700, 0o600]);
});

test('a private directory that is a symlink or belongs to another user is refused; the result says why', async (t) => {
  const box = makeSandbox();
  t.after(() => box.cleanup());
  const runtime = join(box.project, '..', 'run');
  const elsewhere = join(box.project, '..', 'elsewhere');
  mkdirSync(join(runtime, 'zot'), { recursive: true, mode: 0o700 });
  mkdirSync(elsewhere);
  const dir = join(runtime, 'zot', 'tool-output');
  symlinkSync(elsewhere, dir);
  const linked = await cutResult(box, { XDG_RUNTIME_DIR: runtime });
  assert.match(
    linked,
    /\[output truncated: showing last \d+ of 5000 lines; full output could not be saved: \S+\/run\/zot\/tool-output is a symbolic link; zot keeps private files there: remove it or set another directory \(XDG_RUNTIME_DIR or ZOT_HOME\)\]/,
  );
  assert.match(linked, /\n4999\n5000/, 'the cut output is still there');
  assert.deepEqual(readdirSync(elsewhere), []);
  if (!isRoot) return t.diagnostic('not root: the other-user case needs chown');

  const other = join(box.project, '..', 'other');
  mkdirSync(join(other, 'zot', 'tool-output'), { recursive: true });
  chmodSync(join(other, 'zot', 'tool-output'), 0o777);
  chownSync(join(other, 'zot', 'tool-output'), NOBODY, NOBODY);
  const foreign = await cutResult(box, { XDG_RUNTIME_DIR: other });
  assert.match(foreign, /tool-output belongs to another user \(uid 65534\)/);
  assert.deepEqual(readdirSync(join(other, 'zot', 'tool-output')), []);
  assert.equal(modeOf(join(other, 'zot', 'tool-output')), 0o777, 'not ours to change');
});
