// The WebSocket transport against real servers on 127.0.0.1: an SDK extension served with
// ext.listen(), and raw `ws` servers that misbehave (40 MiB frames, invalid UTF-8, binary,
// floods, drops), TLS with certificates made now, and tokens. Bounds as on stdio.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { remoteRefusal, type RemoteConfig } from '../src/ext-setup/remote-config.js';
import { makeCert, startRawServer, startSdkServer } from './support/remote-servers.js';
import { ACK, connect, scratch } from './support/remote-link.js';

const HELLO = JSON.stringify({ type: 'hello', name: 'raw', version: '1' });
const SDK_TOOL = `
import { createExtension, text } from '@zot/sdk';
const ext = createExtension({ name: 'echo', version: '1.0.0' });
ext.tool('echo', 'echoes', { type: 'object', properties: { s: { type: 'string' } } },
  (args) => text('echo:' + args.s));
printUrl(await ext.listen({ port: 0, token: process.env.SERVER_TOKEN }));
`;

test('an SDK extension served with listen(): hello, registrations, ready, a tool round trip, shutdown', async (t) => {
  const dir = scratch(t);
  const server = await startSdkServer(dir, 'echo', SDK_TOOL, { SERVER_TOKEN: 's3cret-token' });
  t.after(() => server.close());
  const link = connect(server.url, dir, { token: 's3cret-token', tokenEnv: 'X_TOKEN' });
  await link.until(() => link.lines.length >= 1);
  assert.equal(JSON.parse(link.lines[0]!).type, 'hello');
  link.send(ACK);
  await link.until(() => link.lines.some((l) => l.includes('"ready"')));
  assert.ok(link.lines.some((l) => l.includes('"register_tool"') && l.includes('"echo"')));
  link.send({ type: 'tool_call', id: 't1', name: 'echo', args: { s: 'hi' } });
  await link.until(() => link.lines.some((l) => l.includes('echo:hi')));
  link.send({ type: 'shutdown' });
  await link.until(() => link.exit !== undefined);
  assert.ok(link.lines.some((l) => l.includes('shutdown_ack')));
  assert.equal(link.exit!.disconnected, 'closed the connection (1000 done)');
  assert.doesNotMatch(link.log(), /s3cret-token/);
});

test('tokens: none, a wrong one and the right one; the token is never logged or quoted', async (t) => {
  const dir = scratch(t);
  const server = await startSdkServer(dir, 'echo', SDK_TOOL, { SERVER_TOKEN: 'right-token' });
  t.after(() => server.close());
  const missing = connect(server.url, dir, { tokenEnv: 'ZOT_EXT_TOKEN', tokenOptional: true });
  await missing.until(() => missing.exit !== undefined);
  assert.match(missing.exit!.spawnError ?? '', /wants a token \(HTTP 401\); set ZOT_EXT_TOKEN/);
  const wrong = connect(server.url, dir, { token: 'wrong-token', tokenEnv: 'TEAM_TOKEN' });
  await wrong.until(() => wrong.exit !== undefined);
  assert.match(wrong.exit!.spawnError ?? '', /refused the token from TEAM_TOKEN \(HTTP 401\)/);
  assert.doesNotMatch(JSON.stringify(wrong.exit), /wrong-token/);
  const right = connect(server.url, dir, { token: 'right-token', tokenEnv: 'TEAM_TOKEN' });
  await right.until(() => right.lines.length >= 1);
  assert.equal(JSON.parse(right.lines[0]!).name, 'echo');
  await right.transport.terminate();
  assert.doesNotMatch(right.log() + wrong.log(), /right-token|wrong-token/);
});

test('a 40 MiB message is counted and dropped, invalid UTF-8 and binary are dropped, the link stays up', async (t) => {
  const dir = scratch(t);
  const server = await startRawServer();
  t.after(() => server.close());
  const link = connect(server.url, dir);
  const socket = await server.nextConnection();
  socket.send(HELLO);
  socket.send('{"type":"notify","level":"info","message":"' + 'x'.repeat(40 * 1024 * 1024) + '"}');
  socket.send(Buffer.from([0x7b, 0xff, 0xfe, 0x7d]), { binary: false });
  socket.send(Buffer.from('{"type":"ready"}'), { binary: true });
  socket.send('not json at all');
  socket.send('{"type":"ready"}');
  await link.until(() => link.lines.includes('{"type":"ready"}'));
  assert.deepEqual(link.lines, [HELLO, 'not json at all', '{"type":"ready"}']);
  assert.equal(link.oversize.length, 1);
  assert.ok(link.oversize[0]! > 40 * 1024 * 1024);
  assert.deepEqual(link.invalid, [4]);
  assert.match(link.log(), /dropped a binary message of 16 bytes/);
  assert.equal(link.exit, undefined);
  await link.transport.terminate();
});

test('a message is read as stdio reads a line: empty ones skipped, one CR stripped, LFs split it, order kept while paused', async (t) => {
  const dir = scratch(t);
  const server = await startRawServer();
  t.after(() => server.close());
  const link = connect(server.url, dir);
  const socket = await server.nextConnection();
  socket.send(HELLO);
  await link.until(() => link.lines.length === 1);
  const messages = ['', 'one\r', 'two\nthree', '\n', 'four\r\nfive\n', 'six', 'é\r\r'];
  const expected = [HELLO, 'one', 'two', 'three', 'four', 'five', 'six', 'é\r'];
  for (const message of messages) socket.send(message);
  await link.until(() => link.lines.length === expected.length);
  // Paused, the same messages wait and then come in the same order.
  link.transport.setReading(false);
  for (const message of messages) socket.send(message);
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(link.lines.length, expected.length);
  link.transport.setReading(true);
  await link.until(() => link.lines.length === 2 * expected.length - 1);
  assert.deepEqual(link.lines, [...expected, ...expected.slice(1)]);
  await link.transport.terminate();
});

test('a message over the 64 MiB message limit closes the link, named', async (t) => {
  const dir = scratch(t);
  const server = await startRawServer();
  t.after(() => server.close());
  const link = connect(server.url, dir);
  const socket = await server.nextConnection();
  socket.send(HELLO);
  socket.send(Buffer.alloc(65 * 1024 * 1024, 0x61), { binary: false });
  await link.until(() => link.exit !== undefined);
  assert.match(link.exit!.disconnected ?? '', /lost: .*64 MiB message limit/);
});

test('a flood while reading is paused is held back, then delivered in order', async (t) => {
  const dir = scratch(t);
  const server = await startRawServer();
  t.after(() => server.close());
  const link = connect(server.url, dir);
  const socket = await server.nextConnection();
  socket.send(HELLO);
  await link.until(() => link.lines.length === 1);
  link.transport.setReading(false);
  for (let i = 0; i < 5000; i++) socket.send(`{"type":"notify","level":"info","message":"${i}"}`);
  await new Promise((resolve) => setTimeout(resolve, 50));
  const whilePaused = link.lines.length;
  assert.equal(whilePaused, 1);
  link.transport.setReading(true);
  await link.until(() => link.lines.length === 5001);
  assert.match(link.lines[5000]!, /"4999"/);
  await link.transport.terminate();
});

test('the server drops the connection: an exit that says the link was lost', async (t) => {
  const dir = scratch(t);
  const server = await startRawServer();
  t.after(() => server.close());
  const link = connect(server.url, dir);
  const socket = await server.nextConnection();
  socket.send(HELLO);
  await link.until(() => link.lines.length === 1);
  socket.terminate();
  await link.until(() => link.exit !== undefined);
  assert.match(link.exit!.disconnected ?? '', /^lost: closed the connection \(1006\)/);
  // Sends after the end are dropped silently.
  assert.equal(link.send(ACK), true);
});

test('nothing listening: a refused connection, named with what to check', async (t) => {
  const dir = scratch(t);
  const server = await startRawServer();
  const url = server.url;
  await server.close();
  const link = connect(url, dir);
  await link.until(() => link.exit !== undefined);
  assert.match(link.exit!.spawnError ?? '', /nothing listens at ws:\/\/127\.0\.0\.1:\d+\/ext/);
});

test('TLS: a certificate zot does not trust is refused, named, with NODE_EXTRA_CA_CERTS as the fix', async (t) => {
  const dir = scratch(t);
  const cert = makeCert(dir, 'self', ['127.0.0.1', 'localhost']);
  const server = await startRawServer(cert);
  t.after(() => server.close());
  const link = connect(server.url, dir);
  await link.until(() => link.exit !== undefined);
  assert.match(
    link.exit!.spawnError ?? '',
    /TLS certificate of 127\.0\.0\.1:\d+ is not trusted \(DEPTH_ZERO_SELF_SIGNED_CERT\); .*NODE_EXTRA_CA_CERTS/,
  );
  assert.equal(server.connections.length, 0);
});

test('ws:// and http:// only to loopback addresses unless insecure; a named token variable must be set', () => {
  const config = (url: string, type: 'websocket' | 'http' = 'websocket'): RemoteConfig => ({
    type,
    url,
    headers: {},
  });
  const secure = { insecure: false, env: {} };
  assert.equal(remoteRefusal(config('ws://127.0.0.1:9/x'), secure), undefined);
  assert.equal(remoteRefusal(config('ws://localhost:9/x'), secure), undefined);
  assert.equal(remoteRefusal(config('ws://[::1]:9/x'), secure), undefined);
  assert.equal(remoteRefusal(config('ws://[::ffff:127.0.0.1]:9/x'), secure), undefined);
  assert.equal(remoteRefusal(config('wss://example.com/x'), secure), undefined);
  assert.match(
    remoteRefusal(config('ws://10.1.2.3:9/x'), secure) ?? '',
    /ws:\/\/10\.1\.2\.3:9\/x is not encrypted and 10\.1\.2\.3 is not a loopback address; use wss:\/\/ or pass --insecure-ext-transport/,
  );
  assert.match(
    remoteRefusal(config('http://policy.example/x', 'http'), secure) ?? '',
    /use https:\/\//,
  );
  assert.equal(remoteRefusal(config('ws://10.1.2.3:9/x'), { insecure: true, env: {} }), undefined);
  assert.match(
    remoteRefusal({ ...config('wss://h/x'), tokenEnv: 'TEAM_TOKEN' }, secure) ?? '',
    /its token variable TEAM_TOKEN is not set/,
  );
  assert.equal(
    remoteRefusal(
      { ...config('wss://h/x'), tokenEnv: 'TEAM_TOKEN' },
      {
        insecure: false,
        env: { TEAM_TOKEN: 'x' },
      },
    ),
    undefined,
  );
});
