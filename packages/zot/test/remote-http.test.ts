// The HTTP transport against real servers on 127.0.0.1: an SDK extension served with
// ext.listen({transport: 'http'}) in its own process, reached directly or through a proxy that
// holds back and cuts connections (a dropped stream resumed: nothing lost, nothing twice), and a
// raw server whose event stream a test writes (bounds as on stdio), TLS and tokens.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { join } from 'node:path';
import { test } from 'node:test';
import { FAST_TIMEOUTS } from './support/extensions.js';
import { makeCert, startSdkServer } from './support/remote-servers.js';
import { makeSandbox, runZot } from './support/zot.js';
import { startCuttingProxy, startScriptedStream } from './support/http-servers.js';
import type { FrameFromHost } from '@zot/protocol';
import { ACK, connect, handshake, scratch, waitFor } from './support/remote-link.js';

// Its `slow` tool notifies n0..n199, then waits for the gate file before it answers.
const SDK_TOOL = `
import fs from 'node:fs';
import { createExtension, text } from '@zot/sdk';
const ext = createExtension({ name: 'echo', version: '1.0.0' });
ext.tool('echo', 'echoes', { type: 'object', properties: { s: { type: 'string' } } },
  (args) => text('echo:' + args.s));
ext.tool('slow', 'notifies, then waits', { type: 'object' }, async () => {
  for (let i = 0; i < 200; i++) ext.notify('info', 'n' + i);
  while (!fs.existsSync(process.env.GATE)) await new Promise((r) => setTimeout(r, 20));
  return text('slow done');
});
const tls = process.env.CERT ? { cert: fs.readFileSync(process.env.CERT), key: fs.readFileSync(process.env.KEY) } : undefined;
printUrl(await ext.listen({ port: 0, token: process.env.SERVER_TOKEN, transport: 'http', tls }));
`;

test('an SDK extension over HTTP: hello, registrations, ready, a tool round trip, shutdown', async (t) => {
  const dir = scratch(t);
  const server = await startSdkServer(dir, 'echo', SDK_TOOL, { SERVER_TOKEN: 'h77-secret' });
  t.after(() => server.close());
  assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+\/$/);
  const link = connect(server.url, dir, { token: 'h77-secret', tokenEnv: 'X_TOKEN' });
  await handshake(link);
  assert.ok(link.lines.some((l) => l.includes('"register_tool"') && l.includes('"echo"')));
  link.send({ type: 'tool_call', id: 't1', name: 'echo', args: { s: 'hi' } });
  await link.until(() => link.lines.some((l) => l.includes('echo:hi')));
  link.send({ type: 'shutdown' });
  await link.until(() => link.exit !== undefined);
  assert.ok(link.lines.some((l) => l.includes('shutdown_ack')));
  assert.equal(link.exit!.disconnected, 'connection closed');
  assert.match(link.log(), /connected to http:\/\/127\.0\.0\.1:\d+\//);
  assert.doesNotMatch(link.log(), /h77-secret/);
});

test('tokens over HTTP: none and a wrong one get 401, named, the token never quoted', async (t) => {
  const dir = scratch(t);
  const server = await startSdkServer(dir, 'echo', SDK_TOOL, { SERVER_TOKEN: 'right-token' });
  t.after(() => server.close());
  const missing = connect(server.url, dir, { tokenEnv: 'ZOT_EXT_TOKEN', tokenOptional: true });
  await missing.until(() => missing.exit !== undefined);
  assert.match(missing.exit!.spawnError ?? '', /wants a token \(HTTP 401\); set ZOT_EXT_TOKEN/);
  const wrong = connect(server.url, dir, { token: 'wrong-token', tokenEnv: 'TEAM_TOKEN' });
  await wrong.until(() => wrong.exit !== undefined);
  assert.match(wrong.exit!.spawnError ?? '', /refused the token from TEAM_TOKEN \(HTTP 401\)/);
  assert.doesNotMatch(JSON.stringify(wrong.exit) + wrong.log(), /wrong-token|right-token/);
});

test('a stream dropped mid-call, with frames lost on the way both ways, resumes: each frame once, in order', async (t) => {
  const dir = scratch(t);
  const gate = join(dir, 'gate');
  const server = await startSdkServer(dir, 'echo', SDK_TOOL, { GATE: gate });
  t.after(() => server.close());
  const proxy = await startCuttingProxy(Number(new URL(server.url).port));
  t.after(() => proxy.close());
  const link = connect(proxy.url, dir);
  await handshake(link);
  // The stream's 200 and the hello_ack POST's answer (the registrations and ready) went through.
  assert.ok(proxy.answered(200) >= 2);
  // From here the server's answers (the stream's events, and the POST's answer with the slow
  // tool's notes) never reach zot; the tool_call POST is sent again and its answer resent.
  proxy.hold();
  link.send({ type: 'tool_call', id: 'slow1', name: 'slow', args: {} });
  await waitFor(() => proxy.held().includes('"n199"') || link.exit !== undefined);
  assert.equal(link.exit, undefined, link.log());
  proxy.cut();
  writeFileSync(gate, '');
  await link.until(() => link.lines.some((l) => l.includes('slow done')));
  const notes = link.lines
    .map((l) => JSON.parse(l) as { type: string; message?: string })
    .filter((f) => f.type === 'notify')
    .map((f) => f.message);
  assert.deepEqual(
    notes,
    Array.from({ length: 200 }, (_, i) => `n${i}`),
  );
  assert.equal(link.lines.filter((l) => l.includes('slow done')).length, 1);
  assert.equal(link.exit, undefined);
  assert.match(link.log(), /the stream dropped after event \d+ .*; resuming/);
  assert.match(link.log(), /resumed the stream of http:\/\/127\.0\.0\.1:\d+\/ after event \d+/);
  // The tool_call POST whose answer was lost went again: the server read it once.
  link.send({ type: 'tool_call', id: 't2', name: 'echo', args: { s: 'after' } });
  await link.until(() => link.lines.some((l) => l.includes('echo:after')));
  assert.equal(link.lines.filter((l) => l.includes('slow done')).length, 1);
  await link.transport.terminate();
});

test('a drop that cannot resume (the server no longer knows the session) is a lost link, named', async (t) => {
  const dir = scratch(t);
  const first = await startSdkServer(dir, 'one', SDK_TOOL);
  t.after(() => first.close());
  const second = await startSdkServer(dir, 'two', SDK_TOOL);
  t.after(() => second.close());
  const proxy = await startCuttingProxy(Number(new URL(first.url).port));
  t.after(() => proxy.close());
  const link = connect(proxy.url, dir);
  await handshake(link);
  proxy.retarget(Number(new URL(second.url).port));
  proxy.cut();
  // The resumed stream or a POST (an acknowledgement) may be the first to hear it.
  await link.until(() => link.exit !== undefined);
  assert.match(
    link.exit!.disconnected ?? '',
    /^lost: (the stream dropped and could not resume: )?http:\/\/127\.0\.0\.1:\d+\/ no longer knows this session \(HTTP 404: no such session\)$/,
  );
});

test('a 40 MiB frame is counted and dropped, invalid UTF-8 and garbage dropped, the link stays up; a gap is a lost link', async (t) => {
  const dir = scratch(t);
  const server = await startScriptedStream();
  t.after(() => server.close());
  const link = connect(server.url, dir);
  const stream = await server.stream;
  let id = 0;
  const event = (data: string | Buffer) => {
    stream.write(`id: ${++id}\ndata: `);
    stream.write(data);
    stream.write('\n\n');
  };
  event(JSON.stringify({ type: 'hello', name: 'raw', version: '1' }));
  event('{"type":"notify","level":"info","message":"' + 'x'.repeat(40 * 1024 * 1024) + '"}');
  event(Buffer.from([0x7b, 0xff, 0xfe, 0x7d]));
  stream.write('this is not an event field\n\n');
  stream.write('event: surprise\ndata: {"type":"ready"}\n\n');
  event('{"type":"ready"}');
  await link.until(() => link.lines.length >= 2);
  assert.deepEqual(link.oversize.length, 1);
  assert.ok(link.oversize[0]! > 40 * 1024 * 1024);
  assert.deepEqual(link.invalid, [4]);
  assert.equal(JSON.parse(link.lines[1]!).type, 'ready');
  assert.equal(link.lines.length, 2);
  assert.match(link.log(), /dropped a line that is not an event field/);
  assert.match(link.log(), /dropped an event named "surprise"/);
  // An event skipping ids: frames were lost, the link cannot be trusted.
  id += 2;
  event('{"type":"ready"}');
  await link.until(() => link.exit !== undefined);
  assert.equal(link.exit!.disconnected, `lost: events ${id - 2} to ${id - 1} never arrived`);
});

test('a flood over HTTP while reading is paused is held back, then delivered in order', async (t) => {
  const dir = scratch(t);
  const server = await startScriptedStream();
  t.after(() => server.close());
  const link = connect(server.url, dir);
  const stream = await server.stream;
  link.transport.setReading(false);
  let text = '';
  for (let i = 1; i <= 5000; i++)
    text += `id: ${i}\ndata: {"type":"notify","level":"info","message":"m${i}"}\n\n`;
  stream.write(text);
  // Nothing is delivered while paused (the reader holds what it read; TCP holds the rest).
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(link.lines.length, 0);
  link.transport.setReading(true);
  await link.until(() => link.lines.length >= 5000);
  assert.deepEqual(
    link.lines.map((l) => (JSON.parse(l) as { message: string }).message),
    Array.from({ length: 5000 }, (_, i) => `m${i + 1}`),
  );
  // zot told the server which events it may forget (a POST with an empty body).
  await link.transport.terminate();
});

test('TLS over HTTP: a certificate zot does not trust is refused, named; nothing listening, named', async (t) => {
  const dir = scratch(t);
  const cert = makeCert(dir, 'self', ['127.0.0.1', 'localhost']);
  writeFileSync(join(dir, 'key.pem'), cert.key);
  const server = await startSdkServer(dir, 'tls', SDK_TOOL, {
    CERT: cert.certPath,
    KEY: join(dir, 'key.pem'),
  });
  t.after(() => server.close());
  assert.match(server.url, /^https:/);
  const link = connect(server.url, dir);
  await link.until(() => link.exit !== undefined);
  assert.match(
    link.exit!.spawnError ?? '',
    /TLS certificate of 127\.0\.0\.1:\d+ is not trusted \(DEPTH_ZERO_SELF_SIGNED_CERT\); .*NODE_EXTRA_CA_CERTS/,
  );
  await server.close();
  const none = connect(server.url.replace('https', 'http'), dir);
  await none.until(() => none.exit !== undefined);
  assert.match(none.exit!.spawnError ?? '', /nothing listens at http:\/\/127\.0\.0\.1:\d+\//);
});

test('TLS over HTTP: a certificate trusted through NODE_EXTRA_CA_CERTS carries the link', async (t) => {
  const box = makeSandbox();
  t.after(() => box.cleanup());
  const cert = makeCert(box.project, 'trusted', ['127.0.0.1', 'localhost']);
  const server = await startSdkServer(box.project, 'tls', SDK_TOOL, {
    CERT: cert.certPath,
    KEY: cert.certPath.replace('-cert.pem', '-key.pem'),
  });
  t.after(() => server.close());
  const run = await runZot(['ext', 'doctor', '--json', '--ext-url', server.url], {
    home: box.home,
    cwd: box.project,
    env: { ...FAST_TIMEOUTS, NODE_EXTRA_CA_CERTS: cert.certPath },
  });
  const report = (JSON.parse(run.stdout) as { extensions: Array<Record<string, any>> })
    .extensions[0]!;
  assert.equal(report.status, 'ready', run.stdout + run.stderr);
  assert.deepEqual(
    report.tools.map((tool: { name: string }) => tool.name),
    ['echo', 'slow'],
  );
});

/** A request's headers as [lowercase name, value] pairs, in the order they came. */
function headerPairs(raw: string[]): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  for (let i = 0; i < raw.length; i += 2) pairs.push([raw[i]!.toLowerCase(), raw[i + 1]!]);
  return pairs;
}

test("zot's requests carry Host, the configured headers (but one zot sets itself), the token and a POST's length, each once; its connections close with the link", async (t) => {
  const dir = scratch(t);
  const seen: Array<{ method: string; headers: Array<[string, string]>; body: string }> = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      seen.push({ method: req.method!, headers: headerPairs(req.rawHeaders), body });
      if (req.method !== 'GET') return void res.writeHead(204).end();
      res.writeHead(200, { 'content-type': 'text/event-stream', 'zot-session': 's-head-0001' });
      res.write('id: 1\ndata: {"type":"hello","name":"h","version":"1"}\n\n');
    });
  });
  // The server never closes an idle connection itself: only zot's end of the link may.
  server.keepAliveTimeout = 0;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => (server.closeAllConnections(), server.close()));
  const port = (server.address() as AddressInfo).port;
  const link = connect(`http://127.0.0.1:${port}/ext?v=1`, dir, {
    headers: { 'x-team': 'blue', accept: 'text/plain' },
    token: 'tok-h31',
  });
  await link.until(() => link.lines.length === 1);
  link.send(ACK);
  await waitFor(() => seen.some((r) => r.method === 'POST'));

  const get = seen.find((r) => r.method === 'GET')!;
  const post = seen.find((r) => r.method === 'POST')!;
  const shared: Array<[string, string]> = [
    ['host', `127.0.0.1:${port}`],
    ['x-team', 'blue'],
    ['accept', 'text/event-stream'],
    ['authorization', 'Bearer tok-h31'],
    ['connection', 'keep-alive'],
  ];
  const sorted = (pairs: Array<[string, string]>) => [...pairs].sort((a, b) => (a < b ? -1 : 1));
  assert.deepEqual(sorted(get.headers), sorted(shared));
  assert.equal(post.body, JSON.stringify(ACK) + '\n');
  assert.deepEqual(
    sorted(post.headers),
    sorted([
      ...shared,
      ['zot-session', 's-head-0001'],
      ['zot-offset', '0'],
      ['zot-ack', '1'],
      ['content-type', 'application/x-ndjson'],
      ['content-length', String(Buffer.byteLength(post.body))],
    ]),
  );
  link.transport.terminateNow();
  // The stream's connection and the POST's kept-alive one both end with the link.
  const open = () =>
    new Promise<number>((resolve) => server.getConnections((_, count) => resolve(count)));
  let count = await open();
  while (count > 0) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    count = await open();
  }
});

test('POSTs on kept-alive connections: after the server closed an idle one, and when it drops one as a POST arrives (that POST goes again, same offset)', async (t) => {
  const dir = scratch(t);
  const posts: Array<{ body: string; offset: string; connection: number }> = [];
  const connections = new WeakMap<Socket, number>();
  let opened = 0;
  let dropReused = false;
  const server = createServer((req, res) => {
    if (!connections.has(req.socket)) connections.set(req.socket, ++opened);
    const connection = connections.get(req.socket)!;
    const reused = (req.socket as Socket & { served?: number }).served !== undefined;
    (req.socket as Socket & { served?: number }).served = 1;
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      if (req.method === 'GET') {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'zot-session': 's-keep-0001' });
        return void res.write('id: 1\ndata: {"type":"hello","name":"h","version":"1"}\n\n');
      }
      posts.push({ body, offset: String(req.headers['zot-offset']), connection });
      if (dropReused && reused) {
        dropReused = false;
        return void req.socket.destroy();
      }
      res.writeHead(204).end();
    });
  });
  server.keepAliveTimeout = 100;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => (server.closeAllConnections(), server.close()));
  const port = (server.address() as AddressInfo).port;
  const link = connect(`http://127.0.0.1:${port}/`, dir);
  await link.until(() => link.lines.length === 1);
  const open = () =>
    new Promise<number>((resolve) => server.getConnections((_, count) => resolve(count)));
  const frame = (name: string): FrameFromHost => ({
    type: 'command_invoked',
    id: name,
    name,
    args: '',
  });
  const seen = (name: string) => posts.filter((p) => p.body.includes(`"${name}"`));

  link.send(frame('a'));
  await waitFor(() => seen('a').length === 1);
  // The server closes the idle connection of that POST; the stream's stays.
  await waitFor(() => posts.length === 1 && opened === 2);
  let count = await open();
  while (count > 1) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    count = await open();
  }
  link.send(frame('b'));
  await waitFor(() => seen('b').length >= 1);
  assert.notEqual(seen('b').at(-1)!.connection, seen('a')[0]!.connection);

  // Now the server keeps connections, then drops the next one reused as its POST arrives.
  server.keepAliveTimeout = 0;
  link.send(frame('c'));
  await waitFor(() => seen('c').length === 1);
  dropReused = true;
  link.send(frame('d'));
  await waitFor(() => seen('d').length === 2);
  const [dropped, again] = seen('d');
  assert.equal(again!.offset, dropped!.offset);
  assert.equal(again!.body, dropped!.body);
  assert.notEqual(again!.connection, dropped!.connection);
  link.send(frame('e'));
  await waitFor(() => seen('e').length === 1);
  assert.equal(link.exit, undefined, link.log());
  link.transport.terminateNow();
});
