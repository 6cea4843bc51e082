// The HTTP transport's watch on its POST in flight: a stalled one is destroyed, not before the
// timeout; one that is answered, or one whose connection keeps moving bytes, is left alone.
import assert from 'node:assert/strict';
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { PostWatch } from './post-watch.js';

const TIMEOUT_MS = 300;

/** A server whose /stall never answers; anything else is answered 204 once its body has come. */
async function server(t: { after(fn: () => void): void }): Promise<string> {
  const open: IncomingMessage[] = [];
  const srv: Server = createServer((req, res) => {
    open.push(req);
    req.resume();
    req.on('end', () => {
      if (req.url === '/stall') return;
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  t.after(() => {
    for (const req of open) req.socket.destroy();
    srv.close();
  });
  return `http://127.0.0.1:${(srv.address() as AddressInfo).port}`;
}

/** POSTs a frame; `trickle`: its body a byte at a time, every tenth of the timeout. */
function post(url: string, watch: PostWatch, trickle = 0) {
  const started = Date.now();
  const req = request(url, { method: 'POST' });
  watch.watch(req);
  const outcome = new Promise<{ result: string; ms: number }>((resolve) => {
    req.on('response', (res) => {
      watch.done(req);
      res.resume();
      res.on('end', () =>
        resolve({ result: `status ${res.statusCode}`, ms: Date.now() - started }),
      );
    });
    req.on('error', (error: NodeJS.ErrnoException) =>
      resolve({ result: `error ${error.code}`, ms: Date.now() - started }),
    );
  });
  if (trickle === 0) req.end('{"type":"ready"}\n');
  else {
    const drip = setInterval(() => {
      if (--trickle > 0) return void req.write(' ');
      clearInterval(drip);
      req.end('{"type":"ready"}\n');
    }, TIMEOUT_MS / 10);
  }
  return outcome;
}

test('a POST whose connection moves nothing for the timeout is destroyed, not before it', async (t) => {
  const url = await server(t);
  const watch = new PostWatch(TIMEOUT_MS);
  t.after(() => watch.stop());
  const stalled = await post(`${url}/stall`, watch);
  assert.equal(stalled.result, 'error ETIMEDOUT');
  assert.ok(stalled.ms >= TIMEOUT_MS, `destroyed after ${stalled.ms} ms`);
  // The same watch goes on with the next POST.
  assert.deepEqual((await post(`${url}/ok`, watch)).result, 'status 204');
});

test('a POST sent slowly but steadily, for longer than the timeout, is left alone', async (t) => {
  const url = await server(t);
  const watch = new PostWatch(TIMEOUT_MS);
  t.after(() => watch.stop());
  // Thirty bytes a tenth of the timeout apart: three timeouts in all, never quiet for one.
  const slow = await post(`${url}/slow`, watch, 30);
  assert.equal(slow.result, 'status 204');
  assert.ok(slow.ms >= 2 * TIMEOUT_MS, `answered in ${slow.ms} ms`);
});
