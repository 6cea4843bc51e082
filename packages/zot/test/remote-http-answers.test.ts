// A POST's answer carrying events, on 127.0.0.1: the SDK's server as a raw client sees it (what
// goes in an answer, what stays on the stream, an answer lost on the way sent again), and zot's
// HTTP transport putting events from the stream and from answers back in order, or naming the
// events lost when an answer cannot fill a gap the stream left.
import assert from 'node:assert/strict';
import { request, type IncomingMessage, type ServerResponse } from 'node:http';
import { test } from 'node:test';
import type { FrameFromHost } from '@zot/protocol';
import { startSdkServer } from './support/remote-servers.js';
import { startScriptedStream } from './support/http-servers.js';
import { ACK, connect, scratch } from './support/remote-link.js';

const SDK_TOOLS = `
import { createExtension, text } from '@zot/sdk';
const ext = createExtension({ name: 'answers', version: '1.0.0' });
ext.tool('echo', 'echoes', { type: 'object' }, (args) => text('echo:' + args.s));
ext.tool('late', 'answers after a while', { type: 'object' }, async () => {
  await new Promise((r) => setTimeout(r, 50));
  return text('late done');
});
printUrl(await ext.listen({ port: 0, transport: 'http' }));
`;

interface Event {
  id: number;
  frame: { type: string; id?: string; content?: Array<{ text: string }> };
}

function parseEvents(text: string): Event[] {
  return [...text.matchAll(/^id: (\d+)\ndata: (.*)\n\n/gm)].map((m) => ({
    id: Number(m[1]),
    frame: JSON.parse(m[2]!) as Event['frame'],
  }));
}

/** A raw client of one session: the stream's events as they come, and POSTs by hand. */
async function rawSession(url: string) {
  let streamText = '';
  const wakers: Array<() => void> = [];
  const session = await new Promise<string>((resolve, reject) => {
    const get = request(url, { headers: { accept: 'text/event-stream' } }, (res) => {
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        streamText += chunk;
        wakers.splice(0).forEach((wake) => wake());
      });
      resolve(String(res.headers['zot-session']));
    });
    get.on('error', reject);
    get.end();
  });
  let offset = 0;
  return {
    stream: () => parseEvents(streamText),
    async streamHas(count: number) {
      while (parseEvents(streamText).length < count)
        await new Promise<void>((resolve) => wakers.push(resolve));
    },
    post(frames: object[], ack: number, answers = true) {
      const body = frames.map((frame) => JSON.stringify(frame) + '\n').join('');
      const headers: Record<string, string> = {
        'zot-session': session,
        'zot-offset': String(offset),
        'zot-ack': String(ack),
        ...(answers ? { accept: 'text/event-stream' } : {}),
      };
      offset += Buffer.byteLength(body);
      return new Promise<{ status: number; type: string; events: Event[] }>((resolve, reject) => {
        const req = request(url, { method: 'POST', headers }, (res: IncomingMessage) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (text += chunk));
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              type: String(res.headers['content-type'] ?? ''),
              events: parseEvents(text),
            }),
          );
        });
        req.on('error', reject);
        req.end(body);
      });
    },
  };
}

const call = (id: string, name: string, args: Record<string, unknown> = {}): FrameFromHost => ({
  type: 'tool_call',
  id,
  name,
  args,
});

test("the SDK's HTTP server answers a POST with what its handlers sent by its next turn; later frames, and frames for a POST without Accept, go on the stream; a lost answer is sent again", async (t) => {
  const dir = scratch(t);
  const server = await startSdkServer(dir, 'answers', SDK_TOOLS);
  t.after(() => server.close());
  const client = await rawSession(server.url);
  await client.streamHas(1);
  assert.deepEqual(
    client.stream().map((e) => [e.id, e.frame.type]),
    [[1, 'hello']],
  );

  const registered = await client.post([ACK], 1);
  assert.equal(registered.status, 200);
  assert.equal(registered.type, 'text/event-stream');
  assert.deepEqual(
    registered.events.map((e) => [e.id, e.frame.type]),
    [
      [2, 'register_tool'],
      [3, 'register_tool'],
      [4, 'ready'],
    ],
  );

  const echoed = await client.post([call('c1', 'echo', { s: 'a' })], 4);
  assert.deepEqual(
    echoed.events.map((e) => [e.id, e.frame.id, e.frame.content?.[0]?.text]),
    [[5, 'c1', 'echo:a']],
  );

  // A host that does not ask for events in answers gets 204 and the result on the stream.
  const plain = await client.post([call('c2', 'echo', { s: 'b' })], 5, false);
  assert.equal(plain.status, 204);
  await client.streamHas(2);
  assert.deepEqual(client.stream()[1]!.id, 6);
  assert.equal(client.stream()[1]!.frame.content?.[0]?.text, 'echo:b');

  // A result that is not ready by the server's next turn goes on the stream.
  const late = await client.post([call('c3', 'late')], 6);
  assert.equal(late.status, 204);
  await client.streamHas(3);
  assert.deepEqual(
    [client.stream()[2]!.id, client.stream()[2]!.frame.content?.[0]?.text],
    [7, 'late done'],
  );

  // An answer zot did not acknowledge on its next POST is sent again in that POST's answer.
  const first = await client.post([call('c4', 'echo', { s: 'c' })], 7);
  assert.deepEqual(
    first.events.map((e) => e.id),
    [8],
  );
  const again = await client.post([], 7);
  assert.deepEqual(
    again.events.map((e) => [e.id, e.frame.id]),
    [[8, 'c4']],
  );
  const acknowledged = await client.post([], 8);
  assert.equal(acknowledged.status, 204);
  // Nothing that went in an answer was written on the stream as well.
  assert.deepEqual(
    client.stream().map((e) => e.id),
    [1, 6, 7],
  );
});

const event = (id: number, frame: object) => `id: ${id}\ndata: ${JSON.stringify(frame)}\n\n`;
const later = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function answerWith(res: ServerResponse, text: string): void {
  if (text === '') return void res.writeHead(204).end();
  res.writeHead(200, { 'content-type': 'text/event-stream' }).end(text);
}

test('zot puts events from the stream and from POST answers back in order by id, and names the events lost when an answer cannot fill a gap the stream left', async (t) => {
  const dir = scratch(t);
  const scripts: Array<(res: ServerResponse) => void> = [];
  const accepts: string[] = [];
  const server = await startScriptedStream((body, res, req) => {
    accepts.push(String(req.headers.accept));
    // An empty POST only acknowledges events (it may come at any time): nothing to answer.
    if (body === '') return answerWith(res, '');
    scripts.shift()!(res);
  });
  t.after(() => server.close());
  const link = connect(server.url, dir);
  const stream = await server.stream;
  stream.write(event(1, { type: 'hello', name: 'raw', version: '1' }));
  await link.until(() => link.lines.length >= 1);

  // The stream brings event 3 while the POST's answer (event 2) is still to come.
  scripts.push((res) => {
    stream.write(event(3, { type: 'ready' }));
    void later(30).then(() =>
      answerWith(res, event(2, { type: 'register_command', name: 'hi', description: 'hi' })),
    );
  });
  link.send(ACK);
  await link.until(() => link.lines.length >= 3);
  assert.deepEqual(
    link.lines.map((l) => (JSON.parse(l) as { type: string }).type),
    ['hello', 'register_command', 'ready'],
  );
  assert.match(accepts[0]!, /text\/event-stream/);

  // The answer brings event 5 before the stream has brought event 4.
  scripts.push((res) => {
    answerWith(res, event(5, { type: 'notify', level: 'info', message: 'second' }));
    void later(30).then(() =>
      stream.write(event(4, { type: 'notify', level: 'info', message: 'first' })),
    );
  });
  link.send(call('c1', 'x'));
  await link.until(() => link.lines.length >= 5);
  assert.deepEqual(
    link.lines.slice(3).map((l) => (JSON.parse(l) as { message: string }).message),
    ['first', 'second'],
  );

  // The stream skips event 6 and the answer does not bring it: it was lost.
  scripts.push((res) => {
    stream.write(event(7, { type: 'notify', level: 'info', message: 'seventh' }));
    void later(30).then(() => answerWith(res, ''));
  });
  link.send(call('c2', 'x'));
  await link.until(() => link.exit !== undefined);
  assert.equal(link.exit?.disconnected, 'lost: events 6 never arrived');
  assert.equal(link.lines.length, 5);
});

test("the server's last events in a POST's answer are read before the session ends, even when the stream's end comes first", async (t) => {
  const dir = scratch(t);
  const server = await startScriptedStream((body, res) => {
    if (body === '') return answerWith(res, '');
    // shutdown: the stream ends at once; the answer with shutdown_ack comes after.
    stream.end('event: end\n\n');
    void later(30).then(() => answerWith(res, event(2, { type: 'shutdown_ack' })));
  });
  t.after(() => server.close());
  const link = connect(server.url, dir);
  const stream = await server.stream;
  stream.write(event(1, { type: 'hello', name: 'raw', version: '1' }));
  await link.until(() => link.lines.length >= 1);
  link.send({ type: 'shutdown' });
  await link.until(() => link.exit !== undefined);
  assert.deepEqual(
    link.lines.map((l) => (JSON.parse(l) as { type: string }).type),
    ['hello', 'shutdown_ack'],
  );
  assert.equal(link.exit!.disconnected, 'connection closed');
});
