// End-to-end in tmux: a remote extension's connection in the status line. A server that drops
// the connection: "reconnecting in N s" counts down live, then goes once it is back; a URL where
// nothing listens: "down" with the reason. The TUI draws this from the state snapshot.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { WebSocket } from 'ws';
import { fakeLlmFlags, startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { startRawServer } from './support/remote-servers.js';
import { HAS_TMUX, TmuxZot } from './support/tmux.js';
import { hangGuard } from './support/timing.js';
import { makeSandbox } from './support/zot.js';

const skip = HAS_TMUX ? false : 'tmux is not installed';

let llm: FakeLlm;
before(async () => {
  llm = await startFakeLlm();
});
after(() => llm.close());

/** A well-behaved extension with one tool on `socket`. */
function play(socket: WebSocket): void {
  const send = (frame: unknown) => socket.send(JSON.stringify(frame));
  send({ type: 'hello', name: 'flaky', version: '1', protocol_version: 2 });
  socket.on('message', (data) => {
    const frame = JSON.parse(String(data)) as Record<string, unknown>;
    if (frame.type === 'hello_ack') {
      send({ type: 'register_tool', name: 'work', description: 'w', schema: { type: 'object' } });
      send({ type: 'ready' });
    } else if (frame.type === 'shutdown') {
      send({ type: 'shutdown_ack' });
      socket.close(1000);
    }
  });
}

function manifest(root: string, name: string, url: string): void {
  mkdirSync(join(root, name), { recursive: true });
  writeFileSync(
    join(root, name, 'extension.json'),
    JSON.stringify({ name, transport: { type: 'websocket', url } }),
  );
}

test(
  'a dropped link shows "reconnecting in N s" counting down, then nothing once it is back; an unreachable one shows down and why',
  { skip },
  async (t) => {
    const box = makeSandbox();
    t.after(() => box.cleanup());
    const server = await startRawServer();
    t.after(() => server.close());
    const first = server.nextConnection().then((socket) => (play(socket), socket));
    const gone = await startRawServer();
    const goneUrl = gone.url;
    await gone.close(); // nothing listens there now
    manifest(join(box.home, 'extensions'), 'flaky', server.url);
    manifest(join(box.home, 'extensions'), 'gone', goneUrl);
    const zot = TmuxZot.start(fakeLlmFlags(llm.url), {
      home: box.home,
      cwd: box.project,
      columns: 220,
      rows: 20,
      // A loaded machine may take long to answer the upgrade: the hello deadline is not tested here.
      env: {
        ZOT_EXT_RESTART_BACKOFF_MS: '3000',
        ZOT_EXT_HELLO_TIMEOUT_MS: String(hangGuard(30_000)),
      },
    });
    t.after(() => zot.kill());
    const port = new URL(goneUrl).port;
    await zot.waitFor(
      new RegExp(
        `gone \\(ws://127\\.0\\.0\\.1:${port}/ext\\) down: could not connect: nothing listens`,
      ),
    );
    const socket = await first;
    assert.doesNotMatch(zot.capture(), /flaky \(/, 'connected: no mark');
    const second = server.nextConnection();
    socket.terminate();
    const shown = (seconds: number) =>
      new RegExp(`flaky \\(ws://127\\.0\\.0\\.1:\\d+/ext\\) reconnecting in ${seconds} s`);
    await zot.waitFor(shown(3));
    // The countdown moves with no event in between (the TUI redraws each second).
    await zot.waitFor((screen) => shown(2).test(screen) || shown(1).test(screen), {
      timeoutMs: hangGuard(10_000),
    });
    play(await second);
    await zot.waitFor((screen) => !/flaky \(/.test(screen) && /ext 1/.test(screen), {
      timeoutMs: hangGuard(15_000),
    });
    assert.match(zot.capture(), /gone \(ws:.*down/);
  },
);
