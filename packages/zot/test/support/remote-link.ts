// The remote transports' tests drive one transport directly (WebSocket or HTTP, by the URL's
// scheme): what it delivers, how it ends, and its log, with waits on what it delivers.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FrameFromHost, TransportExit } from '@zot/protocol';
import { ExtensionLog } from '../../src/extensions/log.js';
import type { RemoteConfig } from '../../src/ext-setup/remote-config.js';
import { HttpTransport } from '../../src/extensions/transports/http.js';
import { WebSocketTransport, type RemoteSpec } from '../../src/extensions/transports/websocket.js';

/** A transport to `url` (ws:// or http://), with what it delivers recorded and a wait on it. */
export function connect(
  url: string,
  dir: string,
  extra: Partial<RemoteConfig> & { token?: string } = {},
) {
  const { token, ...config } = extra;
  const log = new ExtensionLog(join(dir, `ext-${Math.random().toString(36).slice(2)}.log`));
  const type = /^wss?:/.test(url) ? 'websocket' : 'http';
  const spec: RemoteSpec = {
    config: { type, url, headers: {}, ...config },
    token,
    connectTimeoutMs: 10_000,
    closeGraceMs: 1000,
  };
  const transport =
    type === 'websocket' ? new WebSocketTransport(spec, log) : new HttpTransport(spec, log);
  const lines: string[] = [];
  const oversize: number[] = [];
  const invalid: number[] = [];
  let exit: TransportExit | undefined;
  const waiters: Array<() => void> = [];
  const wake = () => waiters.splice(0).forEach((w) => w());
  transport.start({
    onLine: (line) => (lines.push(line), wake()),
    onOversize: (bytes) => (oversize.push(bytes), wake()),
    onInvalidUtf8: (bytes) => (invalid.push(bytes), wake()),
    onExit: (info) => ((exit = info), wake()),
  });
  // Waits on what the link delivers; a link that ends first fails the wait, saying how.
  const until = async (check: () => boolean) => {
    while (!check()) {
      if (exit) throw new Error(`the link ended: ${JSON.stringify(exit)}`);
      await new Promise<void>((resolve) => waiters.push(resolve));
    }
  };
  return {
    transport,
    lines,
    oversize,
    invalid,
    get exit() {
      return exit;
    },
    until,
    log: () => readFileSync(log.path, 'utf8'),
    send: (frame: FrameFromHost) => transport.send(frame),
  };
}

export function scratch(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'zot-remote-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export const ACK: FrameFromHost = {
  type: 'hello_ack',
  protocol_version: 2,
  zot_version: 't',
  provider: 'p',
  model: 'm',
  cwd: '/',
  extension_dir: '/',
  data_dir: '/',
};

export async function handshake(link: ReturnType<typeof connect>): Promise<void> {
  await link.until(() => link.lines.length >= 1);
  assert.equal(JSON.parse(link.lines[0]!).type, 'hello');
  link.send(ACK);
  await link.until(() => link.lines.some((l) => l.includes('"ready"')));
}

/** Polls `check` (a proxy's buffer has no event to wait on). */
export async function waitFor(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 10));
}
