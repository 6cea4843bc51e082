// Remote extensions over WebSocket on loopback: a tool round trip through the host
// (`tool.execute(args)` to its result: tool_call out, tool_result back) over the WebSocket
// transport, against
// - a raw `ws` client talking to the same raw echo server (one JSON text message out, the reply
//   parsed): what zot's host adds over the bare library (target <= 1.3);
// - the same echo tool served by @zot/sdk over stdio, run by the same host (report only): what
//   the network link costs over a pipe, SDK on both ends;
// - the host over the HTTP transport (the tool_call POSTed; the result in the POST's answer, as
//   a server answers when it has the result by its next turn, else on the event stream) against
//   a raw HTTP echo (one keep-alive POST whose answer is the reply), same raw server (target <= 1.3).
// The servers run in processes of their own; calls alternate in blocks in one run. Each row's
// note also gives the CPU time (user + system) this process spent per call, in the median block:
// on a loaded machine it moves far less than wall time, and only the client's side runs here.
import { spawn } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT, row, rounds } from '../lib/common.mjs';
import {
  echoArgs,
  extensionEnv,
  importHost,
  makeExtension,
  medianOf,
  tempRoot,
  timedToolCall,
} from '../lib/ext.mjs';

const BLOCK = 50;
const TARGET = { maxRatio: 1.3 };

/** A raw ws server that speaks just enough protocol: hello, one tool, ready, echoes. */
const RAW_SERVER = `import { WebSocketServer } from 'ws';
const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: false });
wss.on('listening', () => console.log('LISTENING ws://127.0.0.1:' + wss.address().port + '/raw'));
wss.on('connection', (socket) => {
  socket.send(JSON.stringify({ type: 'hello', name: 'raw', version: '1' }));
  socket.on('message', (data) => {
    const frame = JSON.parse(String(data));
    if (frame.type === 'hello_ack') {
      socket.send(JSON.stringify({ type: 'register_tool', name: 'echo_raw', description: 'echo', schema: { type: 'object' } }));
      socket.send(JSON.stringify({ type: 'ready' }));
    } else if (frame.type === 'tool_call') {
      socket.send(JSON.stringify({ type: 'tool_result', id: frame.id, content: [{ type: 'text', text: 'echo:' + JSON.stringify(frame.args) }] }));
    } else if (frame.type === 'shutdown') {
      socket.send(JSON.stringify({ type: 'shutdown_ack' }));
      socket.close(1000);
    }
  });
});
`;

/**
 * A raw HTTP server: the HTTP transport's wire by hand (/raw-http: frames sent while a POST is
 * handled go in its answer when the POST accepts events, as the SDK's server does; others on
 * the stream), and a plain echo (/echo).
 */
const RAW_HTTP_SERVER = `import { createServer } from 'node:http';
let stream;
let id = 0;
const event = (frame) => 'id: ' + ++id + '\\ndata: ' + JSON.stringify(frame) + '\\n\\n';
const send = (frame) => stream.write(event(frame));
const reply = (frame) => ({ type: 'tool_result', id: frame.id, content: [{ type: 'text', text: 'echo:' + JSON.stringify(frame.args) }] });
const server = createServer((req, res) => {
  if (req.method === 'GET') {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'zot-session': 'bench-session' });
    stream = res;
    return send({ type: 'hello', name: 'raw-http', version: '1' });
  }
  let body = '';
  req.on('data', (chunk) => (body += chunk));
  req.on('end', () => {
    if (req.url === '/echo') {
      const out = JSON.stringify(reply(JSON.parse(body)));
      return res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(out) }).end(out);
    }
    const answer = (req.headers.accept ?? '').includes('text/event-stream') ? [] : undefined;
    const emit = (frame) => (answer ? answer.push(event(frame)) : send(frame));
    let end = false;
    for (const line of body.split('\\n').filter(Boolean)) {
      const frame = JSON.parse(line);
      if (frame.type === 'hello_ack') {
        emit({ type: 'register_tool', name: 'echo_http', description: 'echo', schema: { type: 'object' } });
        emit({ type: 'ready' });
      } else if (frame.type === 'tool_call') emit(reply(frame));
      else if (frame.type === 'shutdown') { emit({ type: 'shutdown_ack' }); end = true; }
    }
    if (!answer?.length) res.writeHead(204).end();
    else {
      const out = answer.join('');
      res.writeHead(200, { 'content-type': 'text/event-stream', 'content-length': Buffer.byteLength(out) }).end(out);
    }
    if (end) stream.end('event: end\\n\\n');
  });
});
server.listen(0, '127.0.0.1', () => console.log('LISTENING http://127.0.0.1:' + server.address().port + '/raw-http'));
`;

const sdkEcho = (serve) => `import { createExtension, text } from '@zot/sdk';
const ext = createExtension({ name: '${serve ? 'echo-ws' : 'echo-stdio'}', version: '1.0.0' });
ext.tool('${serve ? 'echo_ws' : 'echo_stdio'}', 'echo', { type: 'object' }, (args) => text('echo:' + JSON.stringify(args)));
${serve ? "const l = await ext.listen({ port: 0 }); process.stdout.write('LISTENING ' + l.url + String.fromCharCode(10));" : 'await ext.run();'}
`;

/**
 * Runs `fn(i)` `total` times in blocks of `block`, alternating between named variants (as
 * alternateBlocks does); returns wall samples (ms) per call and this process's CPU time per call
 * (µs) per block.
 */
async function blocksWithCpu(total, block, variants) {
  const names = Object.keys(variants);
  const wall = Object.fromEntries(names.map((name) => [name, []]));
  const cpu = Object.fromEntries(names.map((name) => [name, []]));
  for (let done = 0, round = 0; done < total; done += block, round++) {
    const count = Math.min(block, total - done);
    for (let i = 0; i < names.length; i++) {
      const name = names[(round + i) % names.length];
      const before = process.cpuUsage();
      for (let k = 0; k < count; k++) wall[name].push(await variants[name](done + k));
      const used = process.cpuUsage(before);
      cpu[name].push((used.user + used.system) / count);
    }
  }
  return { wall, cpu };
}

/** "CPU per call: raw 40.1 µs, host 52.3 µs (1.30x)", from the median block of each. */
function cpuNote(cpu, baseline, subject) {
  const base = medianOf(cpu[baseline]);
  const host = medianOf(cpu[subject]);
  return `CPU per call (this process, median block): ${baseline} ${base.toFixed(1)} µs, ${subject} ${host.toFixed(1)} µs (${(host / base).toFixed(2)}x)`;
}

/** Starts `file` with node; resolves with the URL it prints and the child. */
function startServer(file, cwd) {
  const child = spawn(process.execPath, [file], { cwd, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const match = /LISTENING (\S+)/.exec(out);
      if (match) resolve({ url: match[1], child });
    });
    child.once('exit', (code) => reject(new Error(`${file} exited (${code})`)));
  });
}

export async function run(options) {
  const warmup = rounds(options, 500, 100);
  const calls = rounds(options, 2000, 400);
  const root = tempRoot('ext-remote');
  const env = extensionEnv();
  const rows = [];
  const children = [];
  let host;
  let rawClient;
  try {
    mkdirSync(join(root.dir, 'node_modules', '@zot'), { recursive: true });
    symlinkSync(join(ROOT, 'packages', 'sdk'), join(root.dir, 'node_modules', '@zot', 'sdk'));
    symlinkSync(join(ROOT, 'node_modules', 'ws'), join(root.dir, 'node_modules', 'ws'));
    writeFileSync(join(root.dir, 'package.json'), '{"type":"module","private":true}\n');
    writeFileSync(join(root.dir, 'raw-server.mjs'), RAW_SERVER);
    writeFileSync(join(root.dir, 'raw-http-server.mjs'), RAW_HTTP_SERVER);
    writeFileSync(join(root.dir, 'sdk-ws.mjs'), sdkEcho(true));
    writeFileSync(join(root.dir, 'sdk-stdio.mjs'), sdkEcho(false));
    const raw = await startServer('raw-server.mjs', root.dir);
    const sdk = await startServer('sdk-ws.mjs', root.dir);
    const rawHttp = await startServer('raw-http-server.mjs', root.dir);
    children.push(raw.child, sdk.child, rawHttp.child);
    const stdioDir = makeExtension(root.dir, 'echo-stdio', 'node', [
      join(root.dir, 'sdk-stdio.mjs'),
    ]);
    const { ExtensionHost } = await importHost();
    host = new ExtensionHost({
      cwd: root.dir,
      zotHome: join(root.dir, 'zot-home'),
      logsDir: join(root.dir, 'logs'),
      extPaths: [stdioDir],
      noExt: true,
      version: '0.0.0-bench',
      model: () => ({ provider: 'anthropic', model: 'bench-model' }),
      builtins: { commands: new Set(), tools: new Set() },
      env,
      remote: { urls: [raw.url, sdk.url, rawHttp.url], insecure: false, env: {} },
    });
    const reports = await host.start();
    const bad = reports.filter((report) => report.status !== 'ready');
    if (bad.length > 0)
      throw new Error(`not ready: ${bad.map((r) => `${r.name} ${r.error}`).join('; ')}`);

    // The raw client: the bare ws library, one message out, its reply parsed.
    const { WebSocket } = await import(
      pathToFileURL(join(ROOT, 'node_modules/ws/wrapper.mjs')).href
    );
    rawClient = new WebSocket(raw.url, { perMessageDeflate: false });
    const waiting = [];
    rawClient.on('message', (data) => {
      const frame = JSON.parse(String(data));
      if (frame.type === 'hello')
        rawClient.send(JSON.stringify({ type: 'hello_ack', protocol_version: 1 }));
      else if (frame.type === 'tool_result') waiting.shift()?.(frame);
    });
    await new Promise((resolve) => rawClient.once('open', resolve));

    const args = echoArgs;
    let seq = 0;
    const viaHost = (name) => timedToolCall(host, name, root.dir);
    const rawEcho = async (i) => {
      const start = performance.now();
      const reply = new Promise((resolve) => waiting.push(resolve));
      rawClient.send(
        JSON.stringify({ type: 'tool_call', id: `r${++seq}`, name: 'echo_raw', args: args(i) }),
      );
      const frame = await reply;
      const ms = performance.now() - start;
      if (frame.content?.[0]?.text !== `echo:${JSON.stringify(args(i))}`)
        throw new Error(`unexpected raw reply: ${JSON.stringify(frame)}`);
      return ms;
    };
    // The raw HTTP echo: one keep-alive POST of the tool_call, its answer the tool_result.
    const { Agent, request } = await import('node:http');
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const echoUrl = new URL('/echo', rawHttp.url);
    const rawHttpEcho = async (i) => {
      const start = performance.now();
      const body = JSON.stringify({
        type: 'tool_call',
        id: `h${++seq}`,
        name: 'echo_http',
        args: args(i),
      });
      const text = await new Promise((resolve, reject) => {
        const req = request(
          echoUrl,
          { method: 'POST', agent, headers: { 'content-type': 'application/json' } },
          (res) => {
            let out = '';
            res.setEncoding('utf8');
            res.on('data', (chunk) => (out += chunk));
            res.on('end', () => resolve(out));
          },
        );
        req.on('error', reject);
        req.end(body);
      });
      const frame = JSON.parse(text);
      const ms = performance.now() - start;
      if (frame.content?.[0]?.text !== `echo:${JSON.stringify(args(i))}`)
        throw new Error(`unexpected raw HTTP reply: ${text}`);
      return ms;
    };
    const variants = {
      raw: rawEcho,
      rawHttp: rawHttpEcho,
      hostHttp: viaHost('echo_http'),
      hostRaw: viaHost('echo_raw'),
      hostWs: viaHost('echo_ws'),
      hostStdio: viaHost('echo_stdio'),
    };
    await blocksWithCpu(warmup, BLOCK, variants);
    const load = loadavg()
      .map((value) => value.toFixed(2))
      .join(' ');
    const { wall: samples, cpu } = await blocksWithCpu(calls, BLOCK, variants);
    const loadNote = `load average ${load} (1, 5, 15 min) when the samples began`;
    const note = (baseline, subject) => ({
      note: `${loadNote}; ${cpuNote(cpu, baseline, subject)}`,
    });
    rows.push(
      row(
        'remote tool round trip: host over WebSocket vs a raw ws client, same raw echo server',
        samples.raw,
        samples.hostRaw,
        TARGET,
        note('raw', 'hostRaw'),
      ),
      row(
        'remote tool round trip: host over HTTP (POST + event stream) vs a raw HTTP POST echo, same server',
        samples.rawHttp,
        samples.hostHttp,
        TARGET,
        note('rawHttp', 'hostHttp'),
      ),
      {
        ...row(
          'remote tool round trip: @zot/sdk over WebSocket vs @zot/sdk over stdio, same host',
          samples.hostStdio,
          samples.hostWs,
          { maxRatio: Infinity },
          note('hostStdio', 'hostWs'),
        ),
        target: 'none (report)',
        pass: null,
      },
    );
  } finally {
    rawClient?.terminate();
    await host?.shutdown();
    for (const child of children) child.kill('SIGKILL');
    root.cleanup();
  }
  return { name: 'ext-remote', rows };
}
