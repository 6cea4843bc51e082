// The client over an in-memory pair of streams, with the test playing zot line by line: what
// a real zot cannot be made to do (write garbage, never answer, answer out of turn).
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import { RpcClient } from './client.js';
import type { RpcClientError } from './errors.js';
import type { RpcEvent } from './types.js';

/** A client, the requests it wrote, and a way to write zot's lines. */
function connect(options: { timeoutMs?: number; maxLineBytes?: number } = {}) {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const requests: Array<Record<string, unknown>> = [];
  const arrivals: Array<() => void> = [];
  let buffer = '';
  stdin.on('data', (chunk: Buffer) => {
    buffer += chunk.toString('utf8');
    for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
      requests.push(JSON.parse(buffer.slice(0, nl)) as Record<string, unknown>);
      buffer = buffer.slice(nl + 1);
      arrivals.splice(0).forEach((wake) => wake());
    }
  });
  const client = RpcClient.attach({ stdin, stdout }, options);
  const problems: RpcClientError[] = [];
  client.on('error', (error) => problems.push(error));
  /** Resolves with the n-th request (0-based) once it arrived. */
  const request = async (n: number) => {
    while (requests.length <= n) await new Promise<void>((wake) => arrivals.push(wake));
    return requests[n]!;
  };
  const write = (line: unknown) =>
    stdout.write(typeof line === 'string' ? line : `${JSON.stringify(line)}\n`);
  const answer = (req: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    write({ type: 'response', id: req.id, command: req.type, success: true, ...extra });
  return { client, stdin, stdout, problems, request, write, answer };
}

test('requests get monotonic ids, typed responses, failures as values', async () => {
  const { client, request, answer, write } = connect();
  const ping = client.request('ping');
  const state = client.request('clear');
  const [first, second] = [await request(0), await request(1)];
  assert.deepEqual(first, { type: 'ping', id: 'c1' });
  assert.deepEqual(second, { type: 'clear', id: 'c2' });
  // Answered out of order: each response finds its own request.
  write({
    type: 'response',
    id: 'c2',
    command: 'clear',
    success: false,
    error: 'agent is busy',
    error_kind: 'busy',
  });
  answer(first, { data: { pong: true } });
  const failed = await state;
  assert.equal(failed.success, false);
  assert.equal(failed.error_kind, 'busy');
  const pong = await ping;
  assert.equal(pong.success && pong.data.pong, true);
});

test('a malformed line from zot is reported, never thrown, and what follows still works', async () => {
  const { client, request, answer, write, stdout, problems } = connect({ maxLineBytes: 100 });
  const ping = client.request('ping');
  write('this is not json\n');
  write('[1,2,3]\n');
  write('{"no":"type"}\n');
  write(`{"type":"text_delta","delta":"${'x'.repeat(100)}"}\n`);
  stdout.write(Buffer.from([0x7b, 0xff, 0xfe, 0x7d, 0x0a])); // not UTF-8
  answer(await request(0), { data: { pong: true } });
  assert.equal((await ping).success, true);
  const expected = [
    /^a line from zot is invalid JSON: /,
    /^a line from zot is not an object with a string "type"$/,
    /^a line from zot is not an object with a string "type"$/,
    /^zot wrote a line of 132 bytes, past the limit$/,
    /^zot wrote a line of 4 bytes that is not UTF-8$/,
  ];
  assert.equal(problems.length, expected.length, problems.map((p) => p.message).join('\n'));
  problems.forEach((problem, i) => {
    assert.equal(problem.name, 'RpcProtocolError');
    assert.match(problem.message, expected[i]!);
  });
});

test('close() rejects pending requests and streams at once; later requests reject too', async () => {
  const { client, request } = connect();
  const pending = client.request('get_state');
  const stream = client.prompt('never answered');
  await request(1);
  const closing = client.close();
  await assert.rejects(pending, {
    name: 'RpcClosedError',
    message: 'the client closed the connection',
  });
  await assert.rejects(stream.events(), { name: 'RpcClosedError' });
  await assert.rejects(client.request('ping'), { name: 'RpcClosedError' });
  assert.equal(closing instanceof Promise, true);
});

test('the output ending rejects pending requests, naming it', async () => {
  const { client, stdout } = connect();
  const pending = client.request('ping');
  stdout.end();
  await assert.rejects(pending, { name: 'RpcClosedError', message: 'zot closed its output' });
  assert.deepEqual(await client.closed, { code: null, signal: null });
});

test('timeoutMs and signal end a wait without a response; a late response is ignored', async () => {
  const { client, request, answer } = connect({ timeoutMs: 20 });
  await assert.rejects(client.request('ping'), { name: 'RpcTimeoutError' });
  answer(await request(0), { data: { pong: true } });
  const controller = new AbortController();
  const aborted = client.request('ping', {}, { signal: controller.signal, timeoutMs: 60_000 });
  controller.abort();
  await assert.rejects(aborted, { name: 'RpcAbortedError' });
});

test('prompt streams: a queued prompt starts after the done of the one before it', async () => {
  const { client, request, answer, write } = connect();
  const first = client.prompt('one');
  const second = client.prompt('two');
  const [a, b] = [await request(0), await request(1)];
  answer(a, { data: { started: true } });
  answer(b, { data: { started: true } });
  const event = (e: RpcEvent) => write(e);
  event({ type: 'user_message', content: [{ type: 'text', text: 'one' }], time: 't' });
  event({ type: 'text_delta', delta: 'first' });
  event({ type: 'done', id: a.id as string });
  event({ type: 'user_message', content: [{ type: 'text', text: 'two' }], time: 't' });
  event({ type: 'text_delta', delta: 'second' });
  event({ type: 'done', id: b.id as string });
  const types = (events: RpcEvent[]) =>
    events.map((e) => (e.type === 'text_delta' ? e.delta : e.type));
  assert.deepEqual(types(await first.events()), ['user_message', 'first', 'done']);
  assert.deepEqual(types(await second.events()), ['user_message', 'second', 'done']);
});

test('a refused prompt fails its stream with the response, and frees the ones behind it', async () => {
  const { client, request, answer, write } = connect();
  const refused = client.prompt('one');
  const next = client.prompt('two');
  const a = await request(0);
  write({
    type: 'response',
    id: a.id,
    command: 'prompt',
    success: false,
    error: 'prompt: /message must be a string',
    error_kind: 'invalid_request',
  });
  await assert.rejects(refused.events(), (error: Error) => {
    assert.equal(error.name, 'RpcRequestError');
    assert.match(error.message, /prompt failed \(invalid_request\)/);
    return true;
  });
  const b = await request(1);
  answer(b, { data: { started: true } });
  write({ type: 'text_delta', delta: 'two' });
  write({ type: 'done', id: b.id });
  assert.equal((await next.events()).length, 2);
});

test('onConfirm: the decision is sent; a throwing handler denies and is reported', async () => {
  const { client, request, write, problems } = connect();
  const off = client.onConfirm((req) => (req.tool_name === 'read' ? 'allow' : 'deny'));
  const ask = (tool_id: string, tool_name: string) =>
    write({ type: 'confirm_request', tool_id, tool_name, tool_preview: tool_name });
  ask('t1', 'read');
  ask('t2', 'bash');
  assert.deepEqual(await request(0), {
    type: 'confirm',
    tool_id: 't1',
    decision: 'allow',
    id: 'c1',
  });
  assert.deepEqual(await request(1), {
    type: 'confirm',
    tool_id: 't2',
    decision: 'deny',
    id: 'c2',
  });
  off();
  client.onConfirm(async () => {
    throw new Error('nobody home');
  });
  ask('t3', 'read');
  assert.equal((await request(2)).decision, 'deny');
  assert.deepEqual(
    problems.map((p) => p.name),
    ['RpcHandlerError'],
  );
});
