// `zot ext test --url` end to end through the built binary, against real servers on 127.0.0.1:
// the TypeScript SDK's ext.listen() over WebSocket and over HTTP, the Python SDK's WebSocket
// server; a passing extension, a failing one (its failure named), a wrong token, nothing
// listening, and the loopback rule. The token shows nowhere.
import assert from 'node:assert/strict';
import { createServer, type Socket } from 'node:net';
import { after, test } from 'node:test';
import { Ajv } from 'ajv';
import { REPORT_SCHEMA } from './support/ext-test-report.js';
import { FAST_TIMEOUTS } from './support/extensions.js';
import { startPythonServer } from './support/python-server.js';
import { makeCert, startSdkServer } from './support/remote-servers.js';
import { hangGuard } from './support/timing.js';
import { makeSandbox, runZot, type ZotResult } from './support/zot.js';

const TOKEN = 'kit-tok-7f3a91-secret';
const box = makeSandbox();
after(() => box.cleanup());

interface Report {
  ok: boolean;
  extension: {
    name: string | null;
    version: string | null;
    dir: string;
    manifest: string | null;
    remote?: { transport: string; url: string };
  };
  checks: Array<{ check: string; target?: string; status: string; message: string }>;
}

async function kit(args: string[], env: Record<string, string> = {}): Promise<ZotResult> {
  const result = await runZot(['ext', 'test', ...args], {
    home: box.home,
    cwd: box.project,
    env: { ...FAST_TIMEOUTS, ...env },
    timeoutMs: hangGuard(60_000),
  });
  assert.doesNotMatch(result.stdout + result.stderr, new RegExp(TOKEN));
  return result;
}

const validateReport = new Ajv({ strict: false }).compile(REPORT_SCHEMA);

/** The report, checked against the documented shape. */
function parse(result: ZotResult): Report {
  const report = JSON.parse(result.stdout) as Report;
  assert.ok(validateReport(report), JSON.stringify(validateReport.errors));
  return report;
}

function find(report: Report, check: string, target?: string) {
  const found = report.checks.find(
    (c) => c.check === check && (target === undefined || c.target === target),
  );
  assert.ok(found, `no ${check} ${target ?? ''} check in ${JSON.stringify(report.checks)}`);
  return found;
}

/** The checks only a process can pass are named as not applicable, never passed. */
function processChecksNotApplicable(report: Report): void {
  for (const name of ['manifest', 'scope', 'processes']) {
    const check = find(report, name);
    assert.equal(check.status, 'skip', JSON.stringify(check));
    assert.match(check.message, /^not applicable to a remote extension: /);
  }
}

const SDK_SOURCE = (transport: 'websocket' | 'http', stall: boolean) => `
import fs from 'node:fs';
import { createExtension, text } from '@zot/sdk';
const ext = createExtension({ name: 'remote-echo', version: '2.1.0' });
ext.tool('echo', 'echoes its argument', { type: 'object', properties: { s: { type: 'string' } }, required: ['s'] },
  (args) => {
    if (typeof args.s !== 'string') throw new Error('s must be a string');
    return text('echo:' + args.s);
  });
${stall ? "ext.tool('stall', 'never answers', { type: 'object' }, () => new Promise(() => {}));" : ''}
const tls = process.env.CERT
  ? { cert: fs.readFileSync(process.env.CERT), key: fs.readFileSync(process.env.KEY) }
  : undefined;
printUrl(await ext.listen({ port: 0, token: process.env.SERVER_TOKEN, transport: '${transport}', tls }));
`;

for (const transport of ['websocket', 'http'] as const) {
  test(`a passing SDK extension over ${transport}: every check passes or is named not applicable`, async (t) => {
    const server = await startSdkServer(
      box.project,
      `pass-${transport}`,
      SDK_SOURCE(transport, false),
      {
        SERVER_TOKEN: TOKEN,
      },
    );
    t.after(() => server.close());
    const result = await kit(['--url', server.url, '--json'], { ZOT_EXT_TOKEN: TOKEN });
    assert.equal(result.code, 0, result.stdout + result.stderr);
    const report = parse(result);
    assert.equal(report.ok, true);
    assert.deepEqual(report.extension, {
      name: 'remote-echo',
      version: '2.1.0',
      dir: server.url,
      manifest: null,
      remote: { transport, url: server.url },
    });
    assert.equal(find(report, 'connect').status, 'pass');
    assert.match(find(report, 'hello').message, /"remote-echo" 2\.1\.0/);
    assert.equal(find(report, 'tool', 'echo').status, 'pass');
    assert.equal(find(report, 'tool_invalid_args', 'echo').status, 'pass');
    assert.equal(find(report, 'shutdown').status, 'pass', JSON.stringify(report.checks));
    processChecksNotApplicable(report);
    assert.deepEqual(
      report.checks.filter((c) => c.status === 'fail' || c.status === 'warn'),
      [],
    );
  });
}

test('a failing SDK extension over WebSocket: the failure is named; text output too', async (t) => {
  const server = await startSdkServer(box.project, 'stall', SDK_SOURCE('websocket', true), {
    SERVER_TOKEN: TOKEN,
  });
  t.after(() => server.close());
  const json = await kit(['--url', server.url, '--json'], { ZOT_EXT_TOKEN: TOKEN });
  assert.equal(json.code, 1, json.stdout + json.stderr);
  const report = parse(json);
  assert.equal(report.ok, false);
  const stalled = find(report, 'tool', 'stall');
  assert.equal(stalled.status, 'fail');
  assert.match(stalled.message, /no tool_result within \d+ ms/);
  assert.equal(find(report, 'tool', 'echo').status, 'pass');
  const text = await kit(['--url', server.url], { ZOT_EXT_TOKEN: TOKEN });
  assert.equal(text.code, 1);
  assert.match(text.stdout, /^zot ext test: remote-echo \(ws:\/\/127\.0\.0\.1:\d+\/\)$/m);
  assert.match(text.stdout, /^fail  tool stall: no tool_result within/m);
  assert.match(text.stdout, /^skip  processes: not applicable to a remote extension: /m);
});

test('a wrong token and a missing one are named, the token never printed', async (t) => {
  const server = await startSdkServer(box.project, 'auth', SDK_SOURCE('websocket', false), {
    SERVER_TOKEN: TOKEN,
  });
  t.after(() => server.close());
  const wrong = await kit(['--url', server.url, '--json', '--ext-token-env', 'MY_EXT_TOKEN'], {
    MY_EXT_TOKEN: `${TOKEN}-wrong`,
  });
  assert.equal(wrong.code, 1, wrong.stdout + wrong.stderr);
  const report = parse(wrong);
  const connect = find(report, 'connect');
  assert.equal(connect.status, 'fail');
  assert.match(connect.message, /refused the token from MY_EXT_TOKEN \(HTTP 401\)/);
  assert.equal(
    report.checks.find((c) => c.check === 'hello'),
    undefined,
  );
  assert.doesNotMatch(wrong.stdout, /kit-tok/);
  const missing = await kit(['--url', server.url, '--json']);
  assert.equal(missing.code, 1);
  assert.match(
    find(parse(missing), 'connect').message,
    /wants a token \(HTTP 401\); set ZOT_EXT_TOKEN/,
  );
  const unset = await kit(['--url', server.url, '--ext-token-env', 'NOT_SET_ANYWHERE']);
  assert.equal(unset.code, 2);
  assert.match(unset.stderr, /NOT_SET_ANYWHERE is not set/);
});

test('nothing listening is named; ws:// beyond loopback is refused without the flag', async () => {
  // A port that was free a moment ago: nothing listens there.
  const port = await new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
  for (const url of [`ws://127.0.0.1:${port}/`, `http://127.0.0.1:${port}/`]) {
    const result = await kit(['--url', url, '--json']);
    assert.equal(result.code, 1, result.stdout + result.stderr);
    const connect = find(parse(result), 'connect');
    assert.equal(connect.status, 'fail');
    assert.match(connect.message, /nothing listens at .*\(connection refused\)/);
  }
  // A server that accepts the connection and never answers: the connection timeout is named,
  // not a missing hello.
  const held: Socket[] = [];
  const silent = createServer((socket) => {
    held.push(socket);
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  try {
    const { port: quiet } = silent.address() as { port: number };
    const result = await kit(['--url', `ws://127.0.0.1:${quiet}/`, '--json']);
    assert.equal(result.code, 1, result.stdout + result.stderr);
    const connect = find(parse(result), 'connect');
    assert.equal(connect.status, 'fail');
    assert.match(
      connect.message,
      /no answer from ws:\/\/127\.0\.0\.1:\d+\/ within the connection timeout/,
    );
  } finally {
    for (const socket of held) socket.destroy();
    await new Promise((resolve) => silent.close(resolve));
  }
  const far = await kit(['--url', 'ws://192.0.2.1/ext']);
  assert.equal(far.code, 2);
  assert.match(far.stderr, /not a loopback address; use wss:\/\/ or pass --insecure-ext-transport/);
  const both = await kit(['--url', 'ws://127.0.0.1:1/', 'somedir']);
  assert.equal(both.code, 2);
  const flagAlone = await kit(['somedir', '--insecure-ext-transport']);
  assert.equal(flagAlone.code, 2);
  assert.match(flagAlone.stderr, /--insecure-ext-transport goes with --url/);
});

test("the Python SDK's WebSocket server passes", async (t) => {
  const server = await startPythonServer(
    box.project,
    'py',
    `
import os
from zot_sdk import Extension, text

ext = Extension("pyremote", "0.3.0")

@ext.tool("shout", "upper-cases", {"type": "object", "properties": {"s": {"type": "string"}}, "required": ["s"]})
def shout(args, call):
    return text(args["s"].upper())

listening = ext.listen(port=0, token=os.environ["SERVER_TOKEN"])
print("LISTENING " + listening.url, flush=True)
listening.wait()
`,
    { SERVER_TOKEN: TOKEN },
  );
  t.after(() => server.close());
  const result = await kit(['--url', server.url, '--json'], { ZOT_EXT_TOKEN: TOKEN });
  assert.equal(result.code, 0, result.stdout + result.stderr + server.stderr());
  const report = parse(result);
  assert.equal(report.extension.name, 'pyremote');
  assert.equal(find(report, 'tool', 'shout').status, 'pass');
  assert.equal(find(report, 'shutdown').status, 'pass', JSON.stringify(report.checks));
  processChecksNotApplicable(report);
});

test('TLS as the host checks it: untrusted refused and named, trusted through NODE_EXTRA_CA_CERTS', async (t) => {
  const cert = makeCert(box.project, 'kit', ['127.0.0.1', 'localhost']);
  const server = await startSdkServer(box.project, 'tls', SDK_SOURCE('websocket', false), {
    SERVER_TOKEN: TOKEN,
    CERT: cert.certPath,
    KEY: cert.certPath.replace('-cert.pem', '-key.pem'),
  });
  t.after(() => server.close());
  assert.match(server.url, /^wss:/);
  const untrusted = await kit(['--url', server.url, '--json'], { ZOT_EXT_TOKEN: TOKEN });
  assert.equal(untrusted.code, 1, untrusted.stdout + untrusted.stderr);
  const connect = find(parse(untrusted), 'connect');
  assert.equal(connect.status, 'fail');
  assert.match(
    connect.message,
    /TLS certificate of 127\.0\.0\.1:\d+ is not trusted .*NODE_EXTRA_CA_CERTS/,
  );
  const trusted = await kit(['--url', server.url, '--json'], {
    ZOT_EXT_TOKEN: TOKEN,
    NODE_EXTRA_CA_CERTS: cert.certPath,
  });
  assert.equal(trusted.code, 0, trusted.stdout + trusted.stderr);
  assert.equal(find(parse(trusted), 'tool', 'echo').status, 'pass');
});
