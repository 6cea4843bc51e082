import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startFakeLlm } from './support/fake-llm.js';

async function post(url: string, body: unknown, signal?: AbortSignal) {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer k' },
    body: JSON.stringify(body),
    ...(signal ? { signal } : {}),
  });
}

test('fake-llm: the path picks the format, with or without /v1; replies are used in order', async () => {
  const fake = await startFakeLlm();
  try {
    fake.script({ text: 'a' }, { text: 'b' }, { text: 'c' });
    assert.equal(fake.pending(), 3);
    const anthropic = await (await post(`${fake.url}/messages`, { model: 'm1' })).text();
    assert.match(anthropic, /^event: message_start\ndata: \{"type":"message_start"/);
    assert.match(anthropic, /event: content_block_delta\ndata: .*"text_delta","text":"a"/);
    assert.match(anthropic, /event: message_stop\ndata: \{"type":"message_stop"\}\n\n$/);
    const chat = await (await post(`${fake.url}/v1/chat/completions`, { model: 'm2' })).text();
    assert.match(chat, /"delta":\{"content":"b"\}/);
    assert.doesNotMatch(chat, /"usage"/, 'usage only when stream_options.include_usage');
    assert.match(chat, /data: \[DONE\]\n\n$/);
    const responses = await (await post(`${fake.url}/v1/responses?x=1`, { model: 'm3' })).text();
    assert.match(responses, /^event: response\.created\n/);
    assert.match(responses, /"type":"response\.output_text\.delta".*"delta":"c"/);
    assert.equal(fake.pending(), 0);
    assert.deepEqual(
      fake.requests.map((r) => [r.method, r.path, r.format, r.body.model, r.headers.authorization]),
      [
        ['POST', '/messages', 'anthropic', 'm1', 'Bearer k'],
        ['POST', '/v1/chat/completions', 'openai-chat', 'm2', 'Bearer k'],
        ['POST', '/v1/responses?x=1', 'openai-responses', 'm3', 'Bearer k'],
      ],
    );
    const empty = await post(`${fake.url}/v1/messages`, {});
    assert.equal(empty.status, 500);
    assert.match(await empty.text(), /fake-llm: no scripted reply left/);
    const unknown = await post(`${fake.url}/v1/embeddings`, {});
    assert.equal(unknown.status, 404);
    await unknown.text();
  } finally {
    await fake.close();
  }
});

test('fake-llm: chunkDelayMs spaces the events', async () => {
  const fake = await startFakeLlm();
  try {
    fake.script({ text: ['x', 'y'], chunkDelayMs: 15 });
    const began = Date.now();
    await (await post(`${fake.url}/v1/chat/completions`, {})).text();
    // 6 events (role, x, y, finish, [DONE]) => at least 4 delays.
    assert.ok(Date.now() - began >= 55, `took ${Date.now() - began} ms`);
  } finally {
    await fake.close();
  }
});

test('fake-llm: close() ends a hanging stream and resolves promptly', async () => {
  const fake = await startFakeLlm();
  fake.script({ text: ['first', 'second'], hang: true });
  const response = await post(`${fake.url}/v1/messages`, {});
  const reader = response.body!.getReader();
  let received = '';
  while (!received.includes('"first"'))
    received += new TextDecoder().decode((await reader.read()).value);
  assert.doesNotMatch(received, /second/);
  // The stream hangs: close() returning at all shows it ended the stream.
  await fake.close();
  await assert.rejects(async () => {
    for (;;) if ((await reader.read()).done) throw new Error('ended cleanly');
  }, /terminated/);
});
