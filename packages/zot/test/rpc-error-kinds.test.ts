// Failures carry a kind a program can branch on, from where they happen to the RPC client:
// the `error` event's `kind`, `turn_end.error_kind`, `done.error_kind` and failed responses.
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { after, before, test } from 'node:test';
import type { ErrorKind, RpcEvent } from '@zot/rpc-client';
import {
  fakeLlmFlags,
  startFakeLlm,
  type FakeLlm,
  type ScriptedReply,
} from './support/fake-llm.js';
import { ZotRpc } from './support/rpc-client.js';
import { makeSandbox } from './support/zot.js';

let llm: FakeLlm;
const box = makeSandbox();
before(async () => {
  llm = await startFakeLlm();
});
after(async () => {
  await llm.close();
  box.cleanup();
});

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** The kinds a failed prompt reports: on `error`, on `turn_end` and on `done`. */
function kinds(events: RpcEvent[]): Array<ErrorKind | undefined> {
  const error = events.find((e) => e.type === 'error');
  const turnEnd = events.find((e) => e.type === 'turn_end');
  const done = events.at(-1);
  assert.equal(done?.type, 'done');
  return [
    error?.type === 'error' ? error.kind : undefined,
    turnEnd?.type === 'turn_end' ? turnEnd.error_kind : undefined,
    done?.type === 'done' ? done.error_kind : undefined,
  ];
}

const cases: Array<[string, ScriptedReply, ErrorKind]> = [
  ['HTTP 401', { status: 401, errorMessage: 'invalid x-api-key' }, 'auth'],
  ['HTTP 403', { status: 403, errorMessage: 'this key may not use the model' }, 'auth'],
  ['HTTP 429', { status: 429, errorMessage: 'Number of request tokens exceeded' }, 'rate_limit'],
  [
    'a context-length error',
    { status: 400, errorMessage: 'prompt is too long: 210345 tokens > 200000 maximum' },
    'context_overflow',
  ],
  ['any other HTTP error', { status: 400, errorMessage: 'messages.0: bad request' }, 'provider'],
];

for (const [what, reply, kind] of cases) {
  test(`${what} ends the prompt with kind ${kind}`, async (t) => {
    const zot = ZotRpc.start(fakeLlmFlags(llm.url), { home: box.home, cwd: box.project });
    t.after(() => zot.close());
    llm.script(reply);
    const events = await zot.client.prompt('hello').events();
    assert.deepEqual(kinds(events), [kind, kind, kind]);
  });
}

test('a connection refused ends the prompt with kind network (OpenAI format too)', async (t) => {
  const url = `http://127.0.0.1:${await closedPort()}/v1`;
  const zot = ZotRpc.start(['--provider', 'openai', '--base-url', url, '--api-key', 'k'], {
    home: box.home,
    cwd: box.project,
  });
  t.after(() => zot.close());
  const events = await zot.client.prompt('hello').events();
  assert.deepEqual(kinds(events), ['network', 'network', 'network']);
  const error = events.find((e) => e.type === 'error');
  assert.match(error?.type === 'error' ? error.message : '', /ECONNREFUSED/);
});

test('no API key: kind auth on the error and on done (no turn ran)', async (t) => {
  const zot = ZotRpc.start(['--provider', 'anthropic', '--base-url', 'https://api.example.com'], {
    home: box.home,
    cwd: box.project,
  });
  t.after(() => zot.close());
  const events = await zot.client.prompt('hello').events();
  assert.deepEqual(kinds(events), ['auth', undefined, 'auth']);
});

test('failed responses carry error_kind: invalid_request, not_found, busy', async (t) => {
  const zot = ZotRpc.start(fakeLlmFlags(llm.url), { home: box.home, cwd: box.project });
  t.after(() => zot.close());
  const bad = await zot.requestRaw({ type: 'prompt', message: 42 });
  assert.deepEqual([bad.success, bad.error_kind], [false, 'invalid_request']);
  const unknown = await zot.requestRaw({ type: 'teleport' });
  assert.equal(unknown.error_kind, 'invalid_request');
  const nobody = await zot.client.confirm('no-such-call', 'allow');
  assert.deepEqual([nobody.success, nobody.error_kind], [false, 'not_found']);
  llm.script({ text: ['busy '], hang: true });
  const running = zot.client.prompt('keep busy');
  await zot.waitFor((line) => line.type === 'text_delta');
  const busy = await zot.client.request('clear');
  assert.deepEqual([busy.success, busy.error_kind], [false, 'busy']);
  await zot.client.abort();
  assert.equal((await running.events()).at(-1)?.type, 'done');
});
