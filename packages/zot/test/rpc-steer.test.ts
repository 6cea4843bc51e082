// Steering: a message sent with mode "steer" joins the running prompt at its next step boundary,
// so the model sees it before it continues; follow-ups wait and are shown in `queue` events.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { fakeLlmFlags, startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { ZotRpc } from './support/rpc-client.js';
import { makeSandbox } from './support/zot.js';

let llm: FakeLlm;
before(async () => {
  llm = await startFakeLlm();
});
after(() => llm.close());

test('a steering message reaches the model after the current tool results; follow-ups wait in the queue', async (t) => {
  const box = makeSandbox();
  t.after(() => box.cleanup());
  const client = ZotRpc.start(fakeLlmFlags(llm.url), { home: box.home, cwd: box.project });
  // The first answer calls a tool that waits for a file the test writes once it has steered.
  const gate = `${box.project}/go`;
  llm.script(
    {
      toolCalls: [
        {
          id: 'b1',
          name: 'bash',
          args: { command: `while [ ! -e ${gate} ]; do sleep 0.05; done; echo ran` },
        },
      ],
    },
    { text: 'steered answer' },
    { text: 'follow-up answer' },
  );
  const requestsBefore = llm.requests.length;
  client.send({ type: 'prompt', id: 'p1', message: 'start' });
  await client.waitFor((line) => line.type === 'tool_call');
  await client.request('prompt', { message: 'also mention tests', mode: 'steer' });
  await client.request('prompt', { message: 'and afterwards this' });
  const queue = await client.waitFor(
    (line) => line.type === 'queue' && (line.follow_up as string[]).length === 1,
  );
  assert.deepEqual(queue, {
    type: 'queue',
    steering: ['also mention tests'],
    follow_up: ['and afterwards this'],
  });
  const { writeFileSync } = await import('node:fs');
  writeFileSync(gate, '');
  await client.doneCount(2);

  const second = llm.requests[requestsBefore + 1]!.body.messages as Array<{
    role: string;
    content: Array<{ type: string; text?: string }>;
  }>;
  // Tool results and the steering text travel in the same user turn, results first.
  const last = second.at(-1)!;
  assert.equal(last.role, 'user');
  assert.deepEqual(
    last.content.map((block) => block.type),
    ['tool_result', 'text'],
  );
  assert.equal(last.content[1]!.text, 'also mention tests');
  const third = llm.requests[requestsBefore + 2]!.body.messages as typeof second;
  assert.equal(third.at(-1)!.content[0]!.text, 'and afterwards this');
  // The steering message was taken from the queue before the second model call.
  const queues = client.lines.filter((line) => line.type === 'queue');
  assert.deepEqual(queues.at(-1), { type: 'queue', steering: [], follow_up: [] });
  assert.equal((await client.close()).code, 0);
});
