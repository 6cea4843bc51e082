// A remote extension reached through HTTPS_PROXY: a small CONNECT proxy on 127.0.0.1 that sends
// every tunnel to 127.0.0.1 (so a name that resolves nowhere, remote-ext.test, reaches the
// Python SDK's wss:// server), and NO_PROXY honoured (the same URL then goes direct and fails to
// resolve, and the proxy sees nothing); `zot ext test --url` goes the same way. The token comes
// from auth.json and shows nowhere.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { createServer, type Socket, connect, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { test } from 'node:test';
import { FAST_TIMEOUTS } from './support/extensions.js';
import { startPythonServer } from './support/python-server.js';
import { makeCert } from './support/remote-servers.js';
import { makeSandbox, runZot } from './support/zot.js';

/** A CONNECT-only proxy: notes each target and tunnels it to 127.0.0.1 at the target's port. */
async function startTunnelProxy() {
  const seen: string[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => undefined);
    let head = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      client.off('data', onData);
      const [method, target] = head.subarray(0, end).toString('latin1').split(' ');
      if (method !== 'CONNECT' || !target) return void client.end('HTTP/1.1 405 No\r\n\r\n');
      seen.push(target);
      const port = Number(target.slice(target.lastIndexOf(':') + 1));
      const upstream = connect(port, '127.0.0.1', () => {
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        upstream.write(head.subarray(end + 4));
        client.pipe(upstream).pipe(client);
      });
      sockets.add(upstream);
      upstream.on('close', () => sockets.delete(upstream));
      upstream.on('error', () => client.destroy());
    };
    client.on('data', onData);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

const PY_TLS_ECHO = `
import os
from zot_sdk import Extension, text

ext = Extension("echo", "1.0.0")

@ext.tool("echo", "echoes", {"type": "object"})
def echo(args):
    return text("echo")

listening = ext.listen(port=0, token=os.environ["SERVER_TOKEN"],
                       tls=(os.environ["CERT"], os.environ["KEY"]))
print("LISTENING " + listening.url, flush=True)
listening.wait()
`;

test('through HTTPS_PROXY a remote extension works (token from auth.json); NO_PROXY sends it direct', async (t) => {
  const box = makeSandbox();
  t.after(() => box.cleanup());
  const cert = makeCert(box.project, 'remote', ['remote-ext.test']);
  const server = await startPythonServer(box.project, 'py', PY_TLS_ECHO, {
    SERVER_TOKEN: 'proxied-tok-8e21-secret',
    CERT: cert.certPath,
    KEY: cert.certPath.replace('-cert.pem', '-key.pem'),
  });
  t.after(() => server.close());
  const proxy = await startTunnelProxy();
  t.after(() => proxy.close());
  const url = `wss://remote-ext.test:${new URL(server.url).port}/echo`;
  writeFileSync(
    join(box.home, 'auth.json'),
    JSON.stringify({ extensions: { [url]: { token: 'proxied-tok-8e21-secret' } } }),
    { mode: 0o600 },
  );
  const doctor = async (env: Record<string, string>) => {
    const run = await runZot(['ext', 'doctor', '--json', '--ext-url', url], {
      home: box.home,
      cwd: box.project,
      env: { ...FAST_TIMEOUTS, NODE_EXTRA_CA_CERTS: cert.certPath, ...env },
    });
    const report = (JSON.parse(run.stdout) as { extensions: Array<Record<string, any>> })
      .extensions[0]!;
    return { report, text: run.stdout + run.stderr };
  };
  const through = await doctor({ HTTPS_PROXY: proxy.url });
  assert.equal(through.report.status, 'ready', through.text);
  assert.deepEqual(through.report.tools, [{ name: 'echo', deferred: false }]);
  assert.deepEqual(proxy.seen, [`remote-ext.test:${new URL(server.url).port}`]);
  assert.doesNotMatch(through.text, /proxied-tok-8e21-secret/);

  const direct = await doctor({ HTTPS_PROXY: proxy.url, NO_PROXY: 'remote-ext.test' });
  assert.equal(direct.report.status, 'failed');
  assert.match(direct.report.error, /cannot resolve remote-ext\.test/);
  assert.equal(proxy.seen.length, 1, 'NO_PROXY: the proxy saw nothing more');

  // `zot ext test --url` connects as the host does: through the same proxy, token from auth.json.
  const kit = await runZot(['ext', 'test', '--json', '--url', url], {
    home: box.home,
    cwd: box.project,
    env: { ...FAST_TIMEOUTS, NODE_EXTRA_CA_CERTS: cert.certPath, HTTPS_PROXY: proxy.url },
  });
  assert.equal(kit.code, 0, kit.stdout + kit.stderr);
  assert.equal((JSON.parse(kit.stdout) as { ok: boolean }).ok, true);
  assert.equal(proxy.seen.length, 2, 'the kit went through the proxy');
  assert.doesNotMatch(kit.stdout + kit.stderr, /proxied-tok-8e21-secret/);
});
