// The HTTP transport end to end: zot (the built CLI) reaches an SDK extension served with
// ext.listen({transport: 'http'}) through a proxy that can cut connections. A cut it can resume
// is invisible; one it cannot (the server forgot the session) is a crash: ext_error, a
// reconnect with backoff, ext_restarted, and the next call works.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { FAST_TIMEOUTS } from './support/extensions.js';
import { fakeLlmFlags, startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { startSdkServer } from './support/remote-servers.js';
import { startCuttingProxy } from './support/http-servers.js';
import { ZotRpc } from './support/rpc-client.js';
import { hangGuard } from './support/timing.js';
import { makeSandbox } from './support/zot.js';

let llm: FakeLlm;
before(async () => {
  llm = await startFakeLlm();
});
after(() => llm.close());

const SDK_ECHO = `
import { createExtension, text } from '@zot/sdk';
const ext = createExtension({ name: 'echo', version: '1.0.0' });
ext.tool('echo', 'echoes', { type: 'object', properties: { s: { type: 'string' } } },
  (args) => text('echo:' + args.s));
printUrl(await ext.listen({ port: 0, token: process.env.SERVER_TOKEN, transport: 'http' }));
`;

test('an SDK extension over HTTP in a prompt; a cut it cannot resume is a crash, then a reconnect', async (t) => {
  const box = makeSandbox();
  let client: ZotRpc | undefined;
  t.after(async () => {
    await client?.close();
    box.cleanup();
  });
  const env = { SERVER_TOKEN: 'http-tok-51c0' };
  const first = await startSdkServer(box.project, 'one', SDK_ECHO, env);
  t.after(() => first.close());
  const second = await startSdkServer(box.project, 'two', SDK_ECHO, env);
  t.after(() => second.close());
  const proxy = await startCuttingProxy(Number(new URL(first.url).port));
  t.after(() => proxy.close());
  client = ZotRpc.start([...fakeLlmFlags(llm.url), '--no-session', '--ext-url', proxy.url], {
    home: box.home,
    cwd: box.project,
    env: { ...FAST_TIMEOUTS, ZOT_EXT_TOKEN: env.SERVER_TOKEN, ZOT_EXT_RESTART_BACKOFF_MS: '50' },
  });
  llm.script({ toolCalls: [{ id: 'c1', name: 'echo', args: { s: 'over http' } }] }, { text: 'a' });
  await client.request('prompt', { message: 'echo it' });
  const one = await client.waitFor((line) => line.type === 'tool_result' && line.id === 'c1');
  assert.equal(one.is_error, false);
  assert.match(JSON.stringify(one.content), /echo:over http/);
  await client.waitFor((line) => line.type === 'done');

  // The proxy now leads to a server that never saw this session: the resume is refused.
  proxy.retarget(Number(new URL(second.url).port));
  proxy.cut();
  const crash = await client.waitFor((line) => line.type === 'ext_error');
  assert.match(
    String(crash.message),
    /^extension 127\.0\.0\.1-\d+ lost: (the stream dropped and could not resume: )?.* no longer knows this session \(HTTP 404: no such session\); restarting in 50 ms \(restart 1 of 3\)$/,
  );
  const back = await client.waitFor((line) => line.type === 'ext_restarted');
  assert.equal(back.restarts, 1);
  const from = client.lines.length;
  llm.script({ toolCalls: [{ id: 'c2', name: 'echo', args: { s: 'again' } }] }, { text: 'b' });
  await client.request('prompt', { message: 'again' });
  const two = await client.waitFor(
    (line) => line.type === 'tool_result' && line.id === 'c2',
    hangGuard(10_000),
    from,
  );
  assert.equal(two.is_error, false);
  assert.match(JSON.stringify(two.content), /echo:again/);
  const name = '127.0.0.1-' + new URL(proxy.url).port;
  const log = readFileSync(join(box.home, 'logs', `ext-${name}.log`), 'utf8');
  assert.match(log, /connected to http:\/\/127\.0\.0\.1:\d+\//);
  assert.doesNotMatch(log + JSON.stringify(client.lines), /http-tok-51c0/);
});
