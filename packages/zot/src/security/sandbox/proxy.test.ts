// The proxy over real sockets: CONNECT and plain HTTP to an allowed host pass, others get a 403
// naming the host and the setting (recorded for the tool result), anything else is refused.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import { after, before, test } from 'node:test';
import { NetworkProxy } from './proxy.js';

let allowed: Server;
let other: Server;
let allowedPort = 0;
let otherPort = 0;

function serve(text: string): Promise<[Server, number]> {
  const server = createServer((req, res) => res.end(`${text} ${req.method} ${req.url}`));
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve([server, (server.address() as { port: number }).port]),
    ),
  );
}

before(async () => {
  [allowed, allowedPort] = await serve('allowed');
  [other, otherPort] = await serve('other');
});
after(() => {
  allowed.close();
  other.close();
});

/** Sends `request` raw over the proxy's socket and collects everything until it closes. */
function exchange(
  proxy: NetworkProxy,
  request: string,
  then?: (socket: Socket) => void,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(proxy.socketPath!);
    let text = '';
    socket.on('data', (chunk) => {
      text += chunk.toString();
      if (then && text.includes('\r\n\r\n')) {
        const next = then;
        then = undefined;
        next(socket);
      }
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(text));
    socket.write(request);
  });
}

function startProxy(): NetworkProxy {
  return NetworkProxy.start({
    allow: [`127.0.0.1:${allowedPort}`],
    setting: 'sandbox.network (test)',
  });
}

test('the socket exists when start returns, in a private directory removed by close', async () => {
  const proxy = startProxy();
  assert.ok(existsSync(proxy.socketPath!));
  await proxy.close();
  assert.ok(!existsSync(proxy.dir!));
});

test('CONNECT to an allowed host:port tunnels; another port is refused with 403 and recorded', async () => {
  const proxy = startProxy();
  try {
    const tunnelled = await exchange(
      proxy,
      `CONNECT 127.0.0.1:${allowedPort} HTTP/1.1\r\nHost: x\r\n\r\n`,
      (socket) => socket.write('GET /through HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'),
    );
    assert.match(tunnelled, /^HTTP\/1\.1 200 Connection established/);
    assert.match(tunnelled, /allowed GET \/through/);
    const refused = await exchange(
      proxy,
      `CONNECT 127.0.0.1:${otherPort} HTTP/1.1\r\nHost: x\r\n\r\n`,
    );
    assert.match(refused, /^HTTP\/1\.1 403 Forbidden/);
    assert.match(refused, new RegExp(`x-zot-sandbox-denied: 127\\.0\\.0\\.1:${otherPort}`));
    assert.match(
      refused,
      /network access to 127\.0\.0\.1:\d+ is blocked: it is not in sandbox\.network \(test\)/,
    );
    assert.deepEqual(
      proxy.denials.map((d) => [d.host, d.port]),
      [['127.0.0.1', otherPort]],
    );
    assert.doesNotMatch(refused, /other GET/, 'the refused host was never contacted');
  } finally {
    await proxy.close();
  }
});

test('plain HTTP: an allowed host is fetched, another gets 403 with the reason in the body', async () => {
  const proxy = startProxy();
  try {
    const fetched = await exchange(
      proxy,
      `GET http://127.0.0.1:${allowedPort}/plain?q=1 HTTP/1.1\r\nHost: 127.0.0.1\r\nProxy-Authorization: x\r\nConnection: close\r\n\r\n`,
    );
    assert.match(fetched, /^HTTP\/1\.1 200/);
    assert.match(fetched, /allowed GET \/plain\?q=1/);
    const refused = await exchange(
      proxy,
      `GET http://127.0.0.1:${otherPort}/x HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`,
    );
    assert.match(refused, /^HTTP\/1\.1 403/);
    assert.match(
      refused,
      /is blocked: it is not in sandbox\.network \(test\)\. Add "127\.0\.0\.1" or/,
    );
    assert.equal(proxy.denials.length, 1);
  } finally {
    await proxy.close();
  }
});

test('anything but a proxy request is refused: origin-form requests, https:// URLs, bad CONNECT targets', async () => {
  const proxy = startProxy();
  try {
    const origin = await exchange(proxy, 'GET /x HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n');
    assert.match(origin, /^HTTP\/1\.1 400/);
    const https = await exchange(
      proxy,
      `GET https://127.0.0.1:${allowedPort}/ HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n`,
    );
    assert.match(https, /^HTTP\/1\.1 400/);
    const target = await exchange(proxy, 'CONNECT nohostport HTTP/1.1\r\nHost: a\r\n\r\n');
    assert.match(target, /^HTTP\/1\.1 400/);
  } finally {
    await proxy.close();
  }
});
