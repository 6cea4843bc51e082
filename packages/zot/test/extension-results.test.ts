// Extension tool results are held to the built-in tools' size limits, with the full text saved.
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
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

test('a huge extension tool result reaches the model cut to 50 KB, the rest saved to a file', async (t) => {
  const box = makeSandbox();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  const count = 200_000; // about 4 MB
  makeExtension(join(box.home, 'extensions'), 'big', 'well-behaved', {
    tools: [{ name: 'big_tool', repeat_line: { line: 'row', count } }],
  });
  llm.script({ toolCalls: [{ id: 'b1', name: 'big_tool', args: {} }] }, { text: 'read it' });
  const result = await runZot(['--json', 'go', ...fakeLlmFlags(llm.url)], {
    home: box.home,
    cwd: box.project,
    env: FAST_TIMEOUTS,
  });
  assert.equal(result.code, 0, result.stderr);
  const event = jsonLines(result.stdout).find((e) => e.type === 'tool_result') as unknown as {
    content: Array<{ text: string }>;
    extension: string;
  };
  assert.equal(event.extension, 'big');
  const text = event.content[0]!.text;
  const note =
    /\[output truncated: showing first (\d+) of (\d+) lines \(.*\); full output saved to (\S+)\]$/.exec(
      text,
    );
  assert.ok(note, text.slice(-300));
  assert.equal(Number(note[2]), count);
  assert.ok(Buffer.byteLength(text) < 52 * 1024, `${Buffer.byteLength(text)} bytes`);
  assert.ok(text.startsWith('row 1\nrow 2\n'));
  const saved = readFileSync(note[3]!, 'utf8');
  assert.equal(saved.split('\n').length, count);
  assert.ok(saved.endsWith(`row ${count}`));
  assert.equal(statSync(note[3]!).mode & 0o777, 0o600);
  // What the model gets on the next request is the cut text, not 4 MB.
  const sent = JSON.stringify(llm.requests.at(-1)!.body);
  assert.ok(sent.length < 80 * 1024, `request of ${sent.length} bytes`);
  assert.ok(sent.includes('output truncated'));
});
