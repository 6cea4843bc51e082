// `zot ext list` probes each remote extension against real servers on 127.0.0.1 and names what it
// found: connected (WebSocket and HTTP), token refused, TLS error, unreachable; disabled, untrusted
// and --no-probe ones are not connected to. The token is printed nowhere.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { FAST_TIMEOUTS } from './support/extensions.js';
import { makeCert, startRawServer, startSdkServer } from './support/remote-servers.js';
import { hangGuard } from './support/timing.js';
import { makeSandbox, runZot, type ZotResult } from './support/zot.js';

const TOKEN = 'list-tok-5d21c-secret';
const box = makeSandbox();
after(() => box.cleanup());

const SDK = (transport: 'websocket' | 'http') => `
import { createExtension } from '@zot/sdk';
const ext = createExtension({ name: 'svc', version: '1.0.0' });
ext.command('hi', 'says hi', () => ({ action: 'display', text: 'hi' }));
printUrl(await ext.listen({ port: 0, token: process.env.SERVER_TOKEN, transport: '${transport}' }));
`;

function manifest(name: string, transport: Record<string, unknown>, extra = {}): void {
  const dir = join(box.home, 'extensions', name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'extension.json'),
    JSON.stringify({ name, transport: { type: 'websocket', ...transport }, ...extra }),
  );
}

async function list(args: string[]): Promise<ZotResult> {
  const result = await runZot(['ext', 'list', ...args], {
    home: box.home,
    cwd: box.project,
    env: { ...FAST_TIMEOUTS, GOOD_TOKEN: TOKEN, BAD_TOKEN: `${TOKEN}-wrong` },
    timeoutMs: hangGuard(60_000),
  });
  assert.equal(result.code, 0, result.stderr);
  assert.doesNotMatch(result.stdout + result.stderr, /list-tok-5d21c/);
  return result;
}

interface Listed {
  name: string;
  remote?: { connection?: string; reason?: string; token: string };
}

test('each remote extension is probed at once and its state named; --no-probe connects to none', async (t) => {
  const ws = await startSdkServer(box.project, 'ws', SDK('websocket'), { SERVER_TOKEN: TOKEN });
  const http = await startSdkServer(box.project, 'http', SDK('http'), { SERVER_TOKEN: TOKEN });
  const cert = makeCert(box.project, 'self', ['127.0.0.1', 'localhost']);
  const tls = await startRawServer(cert);
  t.after(async () => {
    await ws.close();
    await http.close();
    await tls.close();
  });
  const closedPort = await new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
  manifest('a-ws', { url: ws.url, token_env: 'GOOD_TOKEN' });
  manifest('b-http', { type: 'http', url: http.url, token_env: 'GOOD_TOKEN' });
  manifest('c-badtoken', { url: ws.url, token_env: 'BAD_TOKEN' });
  manifest('d-tls', { url: tls.url.replace(/^ws:/, 'wss:') });
  manifest('e-down', { url: `ws://127.0.0.1:${closedPort}/` });
  manifest('f-off', { url: ws.url, token_env: 'GOOD_TOKEN' }, { enabled: false });

  const json = await list(['--json']);
  const listed = JSON.parse(json.stdout) as Listed[];
  const state = (name: string) => listed.find((item) => item.name === name)!.remote!;
  assert.deepEqual(
    listed.map((item) => [item.name, item.remote?.connection]),
    [
      ['a-ws', 'connected'],
      ['b-http', 'connected'],
      ['c-badtoken', 'token refused'],
      ['d-tls', 'TLS error'],
      ['e-down', 'unreachable'],
      ['f-off', 'not probed'],
    ],
  );
  assert.equal(state('a-ws').reason, undefined);
  assert.equal(state('a-ws').token, 'GOOD_TOKEN');
  assert.match(state('c-badtoken').reason!, /refused the token from BAD_TOKEN \(HTTP 401\)/);
  assert.match(state('d-tls').reason!, /certificate of 127\.0\.0\.1:\d+ is not trusted/);
  assert.match(state('e-down').reason!, /nothing listens at/);
  assert.match(state('f-off').reason!, /disabled/);

  const text = await list([]);
  assert.match(text.stdout, /^Connections:$/m);
  assert.match(text.stdout, /^ {2}a-ws: connected$/m);
  assert.match(text.stdout, /^ {2}c-badtoken: token refused \(.*HTTP 401.*\)$/m);
  assert.match(text.stdout, /^ {2}e-down: unreachable \(nothing listens at/m);

  const quiet = await list(['--json', '--no-probe']);
  for (const item of JSON.parse(quiet.stdout) as Listed[]) {
    assert.equal(item.remote!.connection, 'not probed');
    assert.equal(item.remote!.reason, '--no-probe');
  }
});
