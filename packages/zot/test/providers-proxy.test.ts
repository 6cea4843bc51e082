// Model calls and the key check through a real local proxy: CONNECT tunnels to an https server
// (a zot subprocess that trusts the test certificate), absolute-URI requests for http targets,
// proxy credentials, no_proxy. The proxy settings come from the environment, as in a shell.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { createServer as createHttpsServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { after, afterEach, before, test } from 'node:test';
import { resolveModel, streamFor } from '../src/providers/index.js';
import { checkApiKey } from '../src/providers/key-check.js';
import type { ProviderEvent, StreamRequest } from '../src/providers/types.js';
import { startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { startProxy, testTls, type ProxyServer } from './support/proxy-server.js';
import { streamFixture } from './support/replay-server.js';
import { makeSandbox, runZot } from './support/zot.js';

const PROXY_VARIABLES = ['http_proxy', 'https_proxy', 'all_proxy', 'no_proxy'].flatMap((name) => [
  name,
  name.toUpperCase(),
]);
const saved = Object.fromEntries(PROXY_VARIABLES.map((name) => [name, process.env[name]]));
/** Sets the proxy variables of this process for one test (the others unset). */
function proxyEnv(values: Record<string, string>): void {
  for (const name of PROXY_VARIABLES) delete process.env[name];
  Object.assign(process.env, values);
}
afterEach(() => {
  for (const name of PROXY_VARIABLES) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
});

let fake: FakeLlm;
let proxy: ProxyServer;
let tlsServer: Server;
let tlsPort: number;
const tlsRequests: string[] = [];
const box = makeSandbox();
before(async () => {
  fake = await startFakeLlm();
  proxy = await startProxy();
  // An https "API" with the test certificate, answering every POST with a recorded stream.
  const { cert, key } = testTls();
  tlsServer = createHttpsServer({ cert, key }, (req, res) => {
    tlsRequests.push(`${req.method} ${req.url}`);
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(streamFixture('anthropic-text.sse'));
    });
  });
  await new Promise<void>((resolve) => tlsServer.listen(0, '127.0.0.1', resolve));
  tlsPort = (tlsServer.address() as AddressInfo).port;
});
after(async () => {
  await fake.close();
  await proxy.close();
  tlsServer.closeAllConnections();
  await new Promise((resolve) => tlsServer.close(resolve));
  box.cleanup();
});

const MODEL = resolveModel('anthropic', undefined).model;
function request(): StreamRequest {
  return {
    model: MODEL,
    baseUrl: fake.url,
    apiKey: 'key',
    system: 'sys',
    messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }], time: '2025-01-01' }],
    tools: [],
    signal: new AbortController().signal,
  };
}
async function run(): Promise<ProviderEvent[]> {
  const out: ProviderEvent[] = [];
  for await (const event of streamFor(MODEL)(request())) out.push(event);
  return out;
}
const textOf = (events: ProviderEvent[]) =>
  events.flatMap((e) => (e.type === 'text_delta' ? [e.delta] : [])).join('');
/** How the recorded stream's answer begins (anthropic-text.sse). */
const RECORDED_START = "I'm Claude, an AI assistant made by Anthropic.";

test('an http API goes through http_proxy with the absolute URL as the request target', async () => {
  proxyEnv({ http_proxy: proxy.url });
  fake.script({ text: 'via the proxy' });
  const before = proxy.seen.length;
  const events = await run();
  assert.equal(textOf(events), 'via the proxy');
  assert.deepEqual(proxy.seen.slice(before), [
    { method: 'POST', target: `${fake.url}/v1/messages` },
  ]);
});

test('uppercase HTTP_PROXY counts too, and lowercase wins over it', async () => {
  proxyEnv({ HTTP_PROXY: proxy.url });
  fake.script({ text: 'upper' });
  let before = proxy.seen.length;
  assert.equal(textOf(await run()), 'upper');
  assert.equal(proxy.seen.length - before, 1);
  // A lowercase setting that points nowhere wins: the call fails instead of using the other.
  proxyEnv({ HTTP_PROXY: proxy.url, http_proxy: 'http://127.0.0.1:1' });
  before = proxy.seen.length;
  const last = (await run()).at(-1);
  assert.equal(last?.type, 'error');
  assert.match(last.type === 'error' ? last.message : '', /connection failed/);
  assert.equal(proxy.seen.length, before);
});

test('no_proxy exempts the API host: the proxy sees nothing', async () => {
  for (const noProxy of [
    '127.0.0.1',
    '*',
    'example.com, 127.0.0.0/8',
    `127.0.0.1:${new URL(fake.url).port}`,
  ]) {
    proxyEnv({ http_proxy: proxy.url, NO_PROXY: noProxy });
    fake.script({ text: 'direct' });
    const before = proxy.seen.length;
    assert.equal(textOf(await run()), 'direct', noProxy);
    assert.equal(proxy.seen.length, before, `no_proxy=${noProxy} bypasses the proxy`);
  }
  // An entry for another port leaves this one proxied.
  proxyEnv({ http_proxy: proxy.url, no_proxy: '127.0.0.1:1' });
  fake.script({ text: 'proxied' });
  const before = proxy.seen.length;
  assert.equal(textOf(await run()), 'proxied');
  assert.equal(proxy.seen.length, before + 1);
});

test('credentials in the proxy URL become Proxy-Authorization; a 407 is reported as such', async () => {
  const guarded = await startProxy(`Basic ${Buffer.from('me:p@ss:w').toString('base64')}`);
  try {
    proxyEnv({ http_proxy: `http://me:p%40ss%3Aw@127.0.0.1:${guarded.port}` });
    fake.script({ text: 'let in' });
    assert.equal(textOf(await run()), 'let in');
    proxyEnv({ http_proxy: guarded.url });
    const last = (await run()).at(-1);
    assert.equal(last?.type, 'error');
    if (last?.type !== 'error') return;
    assert.equal(last.status, 407);
    assert.match(last.message, /^anthropic: HTTP 407/);
  } finally {
    await guarded.close();
  }
});

test('a proxy setting zot cannot use fails the call, naming it, instead of going direct', async () => {
  proxyEnv({ http_proxy: 'socks5://127.0.0.1:1080' });
  const before = fake.requests.length;
  const last = (await run()).at(-1);
  assert.equal(last?.type, 'error');
  assert.match(
    last?.type === 'error' ? last.message : '',
    /proxy scheme socks5 \(in http_proxy\) is not supported/,
  );
  assert.equal(fake.requests.length, before, 'no direct request');
});

test('the key check goes through the proxy too', async () => {
  proxyEnv({ HTTP_PROXY: proxy.url });
  const before = proxy.seen.length;
  // The fake server knows no /v1/models: any answer proves the request went through.
  const check = await checkApiKey('anthropic', fake.url, 'key');
  assert.deepEqual(proxy.seen.slice(before), [{ method: 'GET', target: `${fake.url}/v1/models` }]);
  assert.notEqual(check.status, 'valid');
});

test('zot -p reaches an https API through a CONNECT tunnel (https_proxy)', async () => {
  const before = proxy.seen.length;
  const result = await runZot(
    [
      '-p',
      'hello',
      '--no-session',
      '--provider',
      'anthropic',
      '--api-key',
      'k',
      '--base-url',
      `https://localhost:${tlsPort}`,
    ],
    {
      home: box.home,
      cwd: box.project,
      env: {
        NODE_EXTRA_CA_CERTS: testTls().certPath,
        https_proxy: proxy.url,
        NO_PROXY: 'example.com',
      },
    },
  );
  assert.equal(result.code, 0, result.stderr);
  assert.ok(result.stdout.startsWith(RECORDED_START), result.stdout);
  // The proxy saw only the tunnel's host and port; the API saw the request itself.
  assert.deepEqual(proxy.seen.slice(before), [
    { method: 'CONNECT', target: `localhost:${tlsPort}` },
  ]);
  assert.ok(tlsRequests.includes('POST /v1/messages'));
});

test('a tunnel the proxy refuses fails the run with the proxy status', async () => {
  const guarded = await startProxy('Basic nobody');
  try {
    const result = await runZot(
      [
        '-p',
        'hello',
        '--no-session',
        '--provider',
        'anthropic',
        '--api-key',
        'k',
        '--base-url',
        `https://localhost:${tlsPort}`,
      ],
      {
        home: box.home,
        cwd: box.project,
        env: { NODE_EXTRA_CA_CERTS: testTls().certPath, HTTPS_PROXY: `127.0.0.1:${guarded.port}` },
      },
    );
    assert.equal(result.code, 1);
    assert.match(result.stderr, /refused the tunnel: HTTP 407/);
    assert.equal(guarded.seen[0]?.method, 'CONNECT');
  } finally {
    await guarded.close();
  }
});

test('an IPv6 base URL ([::1]) is reached directly and through a proxy', async (t) => {
  const v6 = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(streamFixture('anthropic-text.sse'));
    });
  });
  const listening = await new Promise<boolean>((resolve) => {
    v6.once('error', () => resolve(false));
    v6.listen(0, '::1', () => resolve(true));
  });
  if (!listening) {
    t.skip('no IPv6 loopback on this machine');
    return;
  }
  try {
    const baseUrl = `http://[::1]:${(v6.address() as AddressInfo).port}`;
    const stream = async () => {
      const out: ProviderEvent[] = [];
      for await (const event of streamFor(MODEL)({ ...request(), baseUrl })) out.push(event);
      return out;
    };
    proxyEnv({});
    assert.ok(textOf(await stream()).startsWith(RECORDED_START));
    proxyEnv({ http_proxy: proxy.url });
    const before = proxy.seen.length;
    assert.ok(textOf(await stream()).startsWith(RECORDED_START));
    assert.deepEqual(proxy.seen.slice(before), [
      { method: 'POST', target: `${baseUrl}/v1/messages` },
    ]);
  } finally {
    v6.closeAllConnections();
    await new Promise((resolve) => v6.close(resolve));
  }
});
