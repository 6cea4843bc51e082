// The in-memory linked pair: order, pause/resume, end of input, exit, raw bytes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  InMemoryTransport,
  type FrameFromExtension,
  type FrameFromHost,
  type TransportExit,
  type TransportHandlers,
} from './index.js';

type Seen = Array<string>;

function recorder(seen: Seen, extra: Partial<TransportHandlers> = {}): TransportHandlers {
  return {
    onLine: (line) => seen.push(`line ${line}`),
    onOversize: (n) => seen.push(`oversize ${n}`),
    onInvalidUtf8: (n) => seen.push(`invalid ${n}`),
    onOutputEnd: () => seen.push('end'),
    onExit: (info: TransportExit) => seen.push(`exit ${info.code} ${info.signal}`),
    ...extra,
  };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

function pair() {
  return InMemoryTransport.createLinkedPair<FrameFromHost, FrameFromExtension>();
}

test('frames arrive as lines, in order, also when sent before the reader started', async () => {
  const [host, ext] = pair();
  host.send({ type: 'hello_ack', protocol_version: 1 });
  host.send({ type: 'shutdown' });
  const seen: Seen = [];
  ext.start(recorder(seen));
  assert.deepEqual(seen, [], 'delivery is asynchronous');
  await tick();
  assert.deepEqual(seen, [
    'line {"type":"hello_ack","protocol_version":1}',
    'line {"type":"shutdown"}',
  ]);
});

test('a paused reader holds lines and gets them in order on resume; a handler may pause', async () => {
  const [host, ext] = pair();
  const seen: Seen = [];
  ext.start(
    recorder(seen, {
      onLine: (line) => {
        seen.push(`line ${line}`);
        if (line.includes('"a"')) ext.setReading(false);
      },
    }),
  );
  for (const id of ['a', 'b', 'c'])
    host.send({ type: 'command_invoked', id, name: 'x' } satisfies FrameFromHost);
  await tick();
  assert.equal(seen.length, 1);
  ext.setReading(true);
  await tick();
  assert.deepEqual(
    seen.map((s) => JSON.parse(s.slice('line '.length)).id),
    ['a', 'b', 'c'],
  );
});

test('close ends the other side input; terminate ends both, and an exit passes a pause', async () => {
  const [host, ext] = pair();
  const hostSeen: Seen = [];
  const extSeen: Seen = [];
  host.start(recorder(hostSeen));
  ext.start(recorder(extSeen));
  ext.send({ type: 'shutdown_ack' });
  ext.close();
  ext.send({ type: 'ready' }); // after close: dropped
  await tick();
  assert.deepEqual(hostSeen, ['line {"type":"shutdown_ack"}', 'end']);
  host.setReading(false);
  host.send({ type: 'shutdown' });
  await ext.terminate({ code: 0, signal: null });
  await tick();
  assert.deepEqual(hostSeen, ['line {"type":"shutdown_ack"}', 'end', 'exit 0 null']);
  assert.deepEqual(extSeen, ['line {"type":"shutdown"}', 'end', 'exit 0 null']);
  assert.ok(host.ended && ext.ended);
  await host.terminate(); // already gone: resolves at once, no second exit
  assert.equal(hostSeen.filter((s) => s.startsWith('exit')).length, 1);
});

test('raw bytes go through the JSONL splitter: split lines, CRLF, invalid UTF-8, oversize', async () => {
  const [a, b] = InMemoryTransport.createLinkedPair<FrameFromHost, FrameFromExtension>({
    maxLineBytes: 8,
  });
  const seen: Seen = [];
  b.start(recorder(seen));
  a.sendRaw('{"x"');
  a.sendRaw(':1}\r\n');
  a.sendRaw(new Uint8Array([0xff, 0xfe, 0x0a]));
  a.sendRaw('0123456789\n');
  await tick();
  assert.deepEqual(seen, ['line {"x":1}', 'invalid 2', 'oversize 10']);
});
