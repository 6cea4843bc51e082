// Remote extensions end to end: zot (the built CLI) connects to real servers on 127.0.0.1, an
// SDK extension served with ext.listen() and raw `ws` servers a test scripts; tokens, TLS,
// supervision across a dropped connection, fail-closed guards while down, the project trust gate.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { WebSocket } from 'ws';
import { FAST_TIMEOUTS } from './support/extensions.js';
import { fakeLlmFlags, startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import {
  makeCert,
  startRawServer,
  startSdkServer,
  type RawServer,
} from './support/remote-servers.js';
import { ZotRpc } from './support/rpc-client.js';
import { hangGuard } from './support/timing.js';
import { makeSandbox, runZot } from './support/zot.js';

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
const tls = process.env.CERT ? { cert: fs.readFileSync(process.env.CERT), key: fs.readFileSync(process.env.KEY) } : undefined;
printUrl(await ext.listen({ port: 0, token: process.env.SERVER_TOKEN, tls }));
`;
const sdkEcho = `import fs from 'node:fs';\n${SDK_ECHO}`;

interface Scripted {
  tools?: string[];
  intercept?: string[];
  /** Called once it has sent ready. */
  onReady?(socket: WebSocket): void;
  /** What to do with a tool_call or event_intercept frame (default: answer it). */
  onRequest?(frame: Record<string, unknown>, socket: WebSocket): void;
}

/** Plays a well-behaved remote extension on `socket` (hello, registrations, ready, answers). */
function play(socket: WebSocket, name: string, script: Scripted): void {
  const send = (frame: unknown) => socket.send(JSON.stringify(frame));
  send({ type: 'hello', name, version: '1', protocol_version: 2 });
  socket.on('message', (data) => {
    const frame = JSON.parse(String(data)) as Record<string, unknown>;
    if (frame.type === 'hello_ack') {
      for (const tool of script.tools ?? [])
        send({ type: 'register_tool', name: tool, description: tool, schema: { type: 'object' } });
      if (script.intercept) send({ type: 'subscribe', events: [], intercept: script.intercept });
      send({ type: 'ready' });
      script.onReady?.(socket);
    } else if (frame.type === 'tool_call' || frame.type === 'event_intercept') {
      if (script.onRequest) return script.onRequest(frame, socket);
      if (frame.type === 'tool_call')
        send({ type: 'tool_result', id: frame.id, content: [{ type: 'text', text: 'ok' }] });
      else send({ type: 'event_intercept_response', id: frame.id });
    } else if (frame.type === 'shutdown') {
      send({ type: 'shutdown_ack' });
      socket.close(1000);
    }
  });
}

/** Serves every connection to `server` with `play`. */
function serve(server: RawServer, name: string, script: Scripted): void {
  const loop = async () => {
    for (;;) play(await server.nextConnection(), name, script);
  };
  void loop();
}

function setup(t: { after(fn: () => void | Promise<void>): void }) {
  const box = makeSandbox();
  const clients: ZotRpc[] = [];
  // zot exits before its home goes (it may still be writing a checkpoint).
  t.after(async () => {
    for (const client of clients) await client.close();
    box.cleanup();
  });
  const log = (name: string) => readFileSync(join(box.home, 'logs', `ext-${name}.log`), 'utf8');
  const start = (args: string[], env: Record<string, string>) => {
    const client = ZotRpc.start([...fakeLlmFlags(llm.url), '--no-session', ...args], {
      home: box.home,
      cwd: box.project,
      env: { ...FAST_TIMEOUTS, ...env },
    });
    clients.push(client);
    return client;
  };
  return { box, log, start };
}

/** A remote manifest in $ZOT_HOME/extensions/<name>. */
function remoteManifest(root: string, name: string, body: Record<string, unknown>): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'extension.json'), JSON.stringify({ name, ...body }, null, 2));
  return dir;
}

test('an SDK extension over WebSocket with a token: its tool runs in a prompt; the token shows nowhere', async (t) => {
  const { box, log, start } = setup(t);
  const server = await startSdkServer(box.project, 'srv', sdkEcho, {
    SERVER_TOKEN: 'tok-7f3a9-secret',
  });
  t.after(() => server.close());
  const client = start(['--ext-url', server.url], { ZOT_EXT_TOKEN: 'tok-7f3a9-secret' });
  llm.script(
    { toolCalls: [{ id: 'c1', name: 'echo', args: { s: 'over the wire' } }] },
    {
      text: 'done',
    },
  );
  await client.request('prompt', { message: 'echo it' });
  const result = await client.waitFor((line) => line.type === 'tool_result' && line.id === 'c1');
  assert.equal(result.is_error, false);
  assert.match(JSON.stringify(result.content), /echo:over the wire/);
  await client.waitFor((line) => line.type === 'done');
  const name = '127.0.0.1-' + new URL(server.url).port;
  assert.match(log(name), /connected to ws:\/\/127\.0\.0\.1:\d+\//);
  assert.doesNotMatch(log(name) + JSON.stringify(client.lines), /tok-7f3a9-secret/);
});

test('a dropped connection mid-call: the call fails naming it, ext_error, a reconnect, and the next call works', async (t) => {
  const { box, start } = setup(t);
  const server = await startRawServer();
  t.after(() => server.close());
  let calls = 0;
  serve(server, 'flaky', {
    tools: ['work'],
    onRequest(frame, socket) {
      // The first call is never answered: the connection drops under it.
      if (++calls === 1) return socket.terminate();
      socket.send(
        JSON.stringify({
          type: 'tool_result',
          id: frame.id,
          content: [{ type: 'text', text: 'two' }],
        }),
      );
    },
  });
  remoteManifest(join(box.home, 'extensions'), 'flaky', {
    transport: { type: 'websocket', url: server.url },
  });
  const client = start([], { ZOT_EXT_RESTART_BACKOFF_MS: '50' });
  llm.script({ toolCalls: [{ id: 'c1', name: 'work', args: {} }] }, { text: 'one' });
  await client.request('prompt', { message: 'work' });
  const failed = await client.waitFor((line) => line.type === 'tool_result' && line.id === 'c1');
  assert.equal(failed.is_error, true);
  assert.match(
    JSON.stringify(failed.content),
    /extension flaky is not running \(lost: closed the connection \(1006\)\)/,
  );
  const crash = await client.waitFor((line) => line.type === 'ext_error');
  assert.match(
    String(crash.message),
    /^extension flaky lost: closed the connection \(1006\); restarting in 50 ms \(restart 1 of 3\)$/,
  );
  const back = await client.waitFor((line) => line.type === 'ext_restarted');
  assert.deepEqual(back, { type: 'ext_restarted', extension: 'flaky', restarts: 1 });
  await client.waitFor((line) => line.type === 'done');
  const from = client.lines.length;
  llm.script({ toolCalls: [{ id: 'c2', name: 'work', args: {} }] }, { text: 'two' });
  await client.request('prompt', { message: 'again' });
  const second = await client.waitFor(
    (line) => line.type === 'tool_result' && line.id === 'c2',
    hangGuard(10_000),
    from,
  );
  assert.equal(second.is_error, false);
  assert.equal(server.connections.length, 2);
});

test('intercept_failure "block" is honoured while a remote guard is down', async (t) => {
  const { box, start } = setup(t);
  const server = await startRawServer();
  t.after(() => server.close());
  let readyOnce: (socket: WebSocket) => void;
  const firstReady = new Promise<WebSocket>((resolve) => (readyOnce = resolve));
  serve(server, 'guard', { intercept: ['tool_call'], onReady: (socket) => readyOnce(socket) });
  remoteManifest(join(box.home, 'extensions'), 'guard', {
    transport: { type: 'websocket', url: server.url },
    intercept_failure: 'block',
  });
  // Long enough that the call below lands while it reconnects.
  const client = start([], { ZOT_EXT_RESTART_BACKOFF_MS: String(hangGuard(20_000)) });
  (await firstReady).terminate();
  await client.waitFor((line) => line.type === 'ext_error');
  llm.script(
    { toolCalls: [{ id: 'b1', name: 'bash', args: { command: 'echo hi' } }] },
    {
      text: 'blocked',
    },
  );
  await client.request('prompt', { message: 'run it' });
  const blocked = await client.waitFor((line) => line.type === 'tool_result' && line.id === 'b1');
  assert.equal(blocked.is_error, true);
  assert.match(JSON.stringify(blocked.content), /guard/);
  assert.match(JSON.stringify(blocked.content), /restarting/);
});

test('doctor: reachability, TLS (trusted through NODE_EXTRA_CA_CERTS, a wrong name, untrusted) and tokens, each explained', async (t) => {
  const { box } = setup(t);
  const good = makeCert(box.project, 'good', ['127.0.0.1', 'localhost']);
  const wrongName = makeCert(box.project, 'wrong', ['wrong.example']);
  const server = await startSdkServer(box.project, 'tls', sdkEcho, {
    SERVER_TOKEN: 'right',
    CERT: good.certPath,
    KEY: good.certPath.replace('-cert.pem', '-key.pem'),
  });
  t.after(() => server.close());
  const wrong = await startSdkServer(box.project, 'tls-wrong', sdkEcho, {
    CERT: wrongName.certPath,
    KEY: wrongName.certPath.replace('-cert.pem', '-key.pem'),
  });
  t.after(() => wrong.close());
  const doctor = async (url: string, env: Record<string, string>) => {
    const run = await runZot(['ext', 'doctor', '--json', '--ext-url', url], {
      home: box.home,
      cwd: box.project,
      env: { ...FAST_TIMEOUTS, ...env },
    });
    const parsed = JSON.parse(run.stdout) as {
      ok: boolean;
      extensions: Array<Record<string, any>>;
    };
    return { code: run.code, report: parsed.extensions[0]!, text: run.stdout + run.stderr };
  };
  const trusted = { NODE_EXTRA_CA_CERTS: good.certPath, ZOT_EXT_TOKEN: 'right' };
  const ok = await doctor(server.url, trusted);
  assert.equal(ok.code, 0);
  assert.equal(ok.report.status, 'ready');
  assert.deepEqual(ok.report.tools, [{ name: 'echo', deferred: false }]);
  assert.equal(ok.report.remote.url, server.url);

  const untrusted = await doctor(server.url, { ZOT_EXT_TOKEN: 'right' });
  assert.equal(untrusted.code, 1);
  assert.match(
    untrusted.report.error,
    /TLS certificate of 127\.0\.0\.1:\d+ is not trusted .*NODE_EXTRA_CA_CERTS/,
  );

  const misnamed = await doctor(wrong.url, { NODE_EXTRA_CA_CERTS: wrongName.certPath });
  assert.match(misnamed.report.error, /TLS certificate of 127\.0\.0\.1:\d+ is for another name/);

  const noToken = await doctor(server.url, { NODE_EXTRA_CA_CERTS: good.certPath });
  assert.match(noToken.report.error, /wants a token \(HTTP 401\); set ZOT_EXT_TOKEN/);
  const badToken = await doctor(server.url, { ...trusted, ZOT_EXT_TOKEN: 'not-it-1234' });
  assert.match(badToken.report.error, /refused the token from ZOT_EXT_TOKEN \(HTTP 401\)/);
  assert.doesNotMatch(badToken.text, /not-it-1234/);

  const plain = await doctor('ws://192.0.2.7:9/x', {});
  assert.equal(plain.report.status, 'failed');
  assert.match(
    plain.report.error,
    /ws:\/\/192\.0\.2\.7:9\/x is not encrypted and 192\.0\.2\.7 is not a loopback address; use wss:\/\/ or pass --insecure-ext-transport/,
  );
  await server.close();
  const gone = await doctor(server.url, trusted);
  assert.match(
    gone.report.error,
    /nothing listens at wss:\/\/127\.0\.0\.1:\d+\/ \(connection refused\)/,
  );
});

test('a project file naming a remote extension is refused until trusted; the trust covers its URL', async (t) => {
  const { box } = setup(t);
  const server = await startRawServer();
  t.after(() => server.close());
  serve(server, 'team', { tools: ['policy'] });
  const dir = remoteManifest(join(box.project, '.zot', 'extensions'), 'team', {
    transport: { type: 'websocket', url: server.url, headers: { 'x-team': 'blue' } },
  });
  const doctor = async () => {
    const run = await runZot(['ext', 'doctor', '--json'], {
      home: box.home,
      cwd: box.project,
      env: { ...FAST_TIMEOUTS },
    });
    return (JSON.parse(run.stdout) as { extensions: Array<Record<string, any>> }).extensions[0]!;
  };
  assert.equal((await doctor()).status, 'untrusted');
  assert.equal(server.connections.length, 0, 'never connected before trust');
  const trust = await runZot(['ext', 'trust', 'team', '--yes'], {
    home: box.home,
    cwd: box.project,
  });
  assert.equal(trust.code, 0, trust.stderr);
  assert.match(trust.stdout, /connects: ws:\/\/127\.0\.0\.1:\d+\/ext \(websocket\)/);
  assert.match(trust.stdout, /headers: {2}x-team \(values are not shown\)/);
  assert.doesNotMatch(trust.stdout, /blue/);
  const ready = await doctor();
  assert.equal(ready.status, 'ready');
  assert.equal(ready.remote.connection, 'connected');
  // Pointing it elsewhere changes the trusted content: refused again.
  writeFileSync(
    join(dir, 'extension.json'),
    JSON.stringify({ name: 'team', transport: { type: 'websocket', url: `${server.url}2` } }),
  );
  assert.equal((await doctor()).status, 'untrusted');
});
