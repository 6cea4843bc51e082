// The session file records which extension (and tool) produced each tool result; the model APIs
// never see that field, whether the transcript is in memory or loaded from the file.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { expectNoLeftovers, FAST_TIMEOUTS, makeExtension } from './support/extensions.js';
import { startFakeLlm, type FakeLlm, type Format } from './support/fake-llm.js';
import { makeSandbox, runZot } from './support/zot.js';

let llm: FakeLlm;
before(async () => {
  llm = await startFakeLlm();
});
after(() => llm.close());

const PROVIDERS: Array<[Format, string[]]> = [
  ['anthropic', ['--provider', 'anthropic', '--api-key', 'k']],
  ['openai-responses', ['--provider', 'openai', '--api-key', 'k']],
  ['openai-chat', ['--provider', 'ollama']],
];

for (const [format, flags] of PROVIDERS) {
  test(`${format}: tool results carry their extension in the session file, not on the wire`, async (t) => {
    const box = makeSandbox();
    t.after(() => box.cleanup());
    expectNoLeftovers(t, box.home);
    makeExtension(join(box.home, 'extensions'), 'weather', 'well-behaved', {
      tools: ['lookup'],
    });
    const file = join(box.project, 'session.jsonl');
    const run = (prompt: string) =>
      runZot(['-p', prompt, '--session', file, '--base-url', `${llm.url}/v1`, ...flags], {
        home: box.home,
        cwd: box.project,
        env: FAST_TIMEOUTS,
      });
    llm.script(
      {
        toolCalls: [
          { id: 'w1', name: 'lookup', args: { city: 'Oslo' } },
          { id: 'b1', name: 'bash', args: { command: 'echo built-in' } },
        ],
      },
      { text: 'sunny' },
    );
    const from = llm.requests.length;
    const first = await run('weather?');
    assert.equal(first.code, 0, first.stderr);
    assert.equal(first.stdout, 'sunny\n');

    const entries = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    const tool = entries.find((e) => e.type === 'message' && e.message.role === 'tool');
    const [lookup, bash] = tool.message.content;
    assert.deepEqual(lookup.attribution, { extension: 'weather', tool: 'lookup' });
    assert.equal(bash.call_id, 'b1');
    assert.equal('attribution' in bash, false, 'built-in tools have none');

    // The next run loads the file (with the field, without a warning) and continues.
    llm.script({ text: 'still sunny' });
    const second = await run('and tomorrow?');
    assert.equal(second.code, 0, second.stderr);
    assert.doesNotMatch(second.stderr, /skipped|warning/);
    const requests = llm.requests.slice(from);
    assert.equal(requests.length, 3);
    for (const request of requests) {
      assert.equal(request.format, format);
      assert.doesNotMatch(JSON.stringify(request.body), /attribution/);
    }
    assert.match(JSON.stringify(requests[2]!.body), /lookup:/, 'the result itself was sent');
  });
}
