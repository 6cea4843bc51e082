// Real servers on 127.0.0.1 for remote extensions: an SDK extension served with ext.listen() in
// a process of its own, a raw `ws` server a test scripts frame by frame, and TLS certificates
// made at test time with openssl.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer as createHttps } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { WebSocketServer, type WebSocket } from 'ws';

const ROOT = fileURLToPath(new URL('../../../../../', import.meta.url));

export interface SdkServer {
  url: string;
  child: ChildProcess;
  /** What the server wrote on stderr so far. */
  stderr(): string;
  close(): Promise<void>;
}

/**
 * Runs `source` (an ES module importing '@zot/sdk' that ends by calling
 * `printUrl(await ext.listen(...))`) in its own Node process; resolves with the URL it listens on.
 */
export async function startSdkServer(
  root: string,
  name: string,
  source: string,
  env: NodeJS.ProcessEnv = {},
): Promise<SdkServer> {
  const dir = join(root, name);
  mkdirSync(join(dir, 'node_modules', '@zot'), { recursive: true });
  symlinkSync(join(ROOT, 'packages', 'sdk'), join(dir, 'node_modules', '@zot', 'sdk'));
  symlinkSync(join(ROOT, 'node_modules', 'ws'), join(dir, 'node_modules', 'ws'));
  const prelude = "const printUrl = (l) => process.stdout.write('LISTENING ' + l.url + '\\n');\n";
  writeFileSync(join(dir, 'server.mjs'), prelude + source);
  const child = spawn(process.execPath, ['server.mjs'], {
    cwd: dir,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /LISTENING (\S+)/.exec(out);
      if (match) resolve(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`server ${name} exited (${code}): ${err}`)));
  });
  return {
    url,
    child,
    stderr: () => err,
    close: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const gone = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await gone;
    },
  };
}

export interface RawServer {
  url: string;
  /** Connections in the order they came. */
  connections: WebSocket[];
  /** Authorization headers the connections presented. */
  authorizations: Array<string | undefined>;
  /** Resolves with the next connection. */
  nextConnection(): Promise<WebSocket>;
  close(): Promise<void>;
}

/** A bare `ws` server on 127.0.0.1 (or wss:// with `tls`): the test plays the extension. */
export async function startRawServer(
  tls?: { cert: Buffer; key: Buffer },
  options: { maxPayload?: number } = {},
): Promise<RawServer> {
  const https = tls ? createHttps({ cert: tls.cert, key: tls.key }) : undefined;
  const wss = https
    ? new WebSocketServer({ server: https, maxPayload: options.maxPayload ?? 256 * 1024 * 1024 })
    : new WebSocketServer({
        host: '127.0.0.1',
        port: 0,
        maxPayload: options.maxPayload ?? 256 * 1024 * 1024,
      });
  if (https) await new Promise<void>((resolve) => https.listen(0, '127.0.0.1', resolve));
  else await new Promise<void>((resolve) => wss.once('listening', resolve));
  const port = ((https ?? wss).address() as AddressInfo).port;
  const connections: WebSocket[] = [];
  const authorizations: Array<string | undefined> = [];
  const waiting: Array<(socket: WebSocket) => void> = [];
  let claimed = 0;
  wss.on('connection', (socket, req) => {
    connections.push(socket);
    authorizations.push(req.headers.authorization);
    const waiter = waiting.shift();
    if (waiter) {
      claimed += 1;
      waiter(socket);
    }
  });
  return {
    url: `${tls ? 'wss' : 'ws'}://127.0.0.1:${port}/ext`,
    connections,
    authorizations,
    nextConnection: () =>
      new Promise((resolve) => {
        if (claimed < connections.length) resolve(connections[claimed++]!);
        else waiting.push(resolve);
      }),
    close: () =>
      new Promise((resolve) => {
        for (const socket of wss.clients) socket.terminate();
        wss.close(() => (https ? https.close(() => resolve()) : resolve()));
      }),
  };
}

export interface TestCert {
  cert: Buffer;
  key: Buffer;
  certPath: string;
}

/**
 * A self-signed certificate for `names` (IP addresses and DNS names), made now with openssl in
 * `dir` under `label`.
 */
export function makeCert(dir: string, label: string, names: string[]): TestCert {
  const keyPath = join(dir, `${label}-key.pem`);
  const certPath = join(dir, `${label}-cert.pem`);
  const san = names.map((n) => (/^[\d.]+$/.test(n) ? `IP:${n}` : `DNS:${n}`)).join(',');
  const run = spawnSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      keyPath,
      '-out',
      certPath,
      '-days',
      '2',
      '-subj',
      `/CN=${names[0]}`,
      '-addext',
      `subjectAltName=${san}`,
    ],
    { encoding: 'utf8' },
  );
  if (run.status !== 0) throw new Error(`openssl failed: ${run.stderr}`);
  return { cert: readFileSync(certPath), key: readFileSync(keyPath), certPath };
}
