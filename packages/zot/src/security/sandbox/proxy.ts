// The network proxy for a sandbox whose sandbox.network is a host list. It runs in zot, outside
// the sandbox, and speaks HTTP CONNECT and plain proxied HTTP only; anything else is refused.
// A host that is not on the list gets a 403 naming the host and the setting, and is recorded so
// the tool result can say so too (curl does not show a CONNECT answer's body).
import { mkdtempSync, rmSync } from 'node:fs';
import {
  createServer,
  request,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DENIED_HEADER, denialText, hostAllowed, normalizeHost, splitHostPort } from './hosts.js';

export interface ProxyDenial {
  host: string;
  port: number;
  /** The refusal as the proxy answered it. */
  text: string;
}

export interface ProxyOptions {
  allow: readonly string[];
  /** Where the setting came from, for the message (e.g. `sandbox.network in ~/.zot/config.json`). */
  setting: string;
  /** Listen on 127.0.0.1 (macOS: no network namespace, the profile allows this port) instead of a Unix socket. */
  tcp?: boolean;
}

/** Upstream connections that do not connect within this long are given up. */
const CONNECT_TIMEOUT_MS = 30_000;
const MAX_DENIALS = 100;

/**
 * One proxy per sandboxed launch. Contract: `start` binds synchronously (the socket exists when
 * it returns, so bwrap can bind its directory); `close` never rejects and removes the socket.
 */
export class NetworkProxy {
  readonly denials: ProxyDenial[] = [];
  private readonly sockets = new Set<Socket>();
  private constructor(
    private readonly server: Server,
    private readonly options: ProxyOptions,
    /** The private directory holding the socket (Unix socket mode). */
    readonly dir: string | undefined,
    readonly socketPath: string | undefined,
  ) {}

  /** Contract: throws when it cannot listen. */
  static start(options: ProxyOptions): NetworkProxy {
    const server = createServer();
    let proxy: NetworkProxy;
    if (options.tcp) {
      proxy = new NetworkProxy(server, options, undefined, undefined);
      server.listen(0, '127.0.0.1');
    } else {
      // 0700, ours alone: nobody else can connect through it.
      const dir = mkdtempSync(join(tmpdir(), 'zot-net-'));
      const socketPath = join(dir, 'proxy.sock');
      proxy = new NetworkProxy(server, options, dir, socketPath);
      // Binding a Unix socket happens within listen() (errors come later, as 'error').
      server.listen(socketPath);
    }
    server.on('error', () => undefined);
    server.on('connection', (socket: Socket) => proxy.track(socket));
    server.on('request', (req: IncomingMessage, res: ServerResponse) => proxy.onRequest(req, res));
    server.on('connect', (req: IncomingMessage, socket: Socket, head: Buffer) =>
      proxy.onConnect(req, socket, head),
    );
    return proxy;
  }

  /** The TCP port (tcp mode), once listening. */
  get port(): number | undefined {
    const address = this.server.address();
    return address && typeof address === 'object' ? address.port : undefined;
  }

  private track(socket: Socket): void {
    this.sockets.add(socket);
    socket.on('error', () => undefined);
    socket.once('close', () => this.sockets.delete(socket));
  }

  private deny(host: string, port: number): string {
    const text = denialText(host, port, this.options.setting);
    if (
      this.denials.length < MAX_DENIALS &&
      !this.denials.some((d) => d.host === host && d.port === port)
    )
      this.denials.push({ host, port, text });
    return text;
  }

  private onConnect(req: IncomingMessage, client: Socket, head: Buffer): void {
    this.track(client);
    const target = splitHostPort(req.url ?? '');
    if (!target) {
      client.end(statusLine(400, 'zot sandbox proxy: CONNECT needs host:port\n'));
      return;
    }
    const host = target.host.replace(/^\[|\]$/g, '');
    if (!hostAllowed(this.options.allow, target.host, target.port)) {
      const text = this.deny(target.host, target.port);
      client.end(statusLine(403, text + '\n', `${target.host}:${target.port}`));
      return;
    }
    const upstream = connect({ host, port: target.port });
    this.track(upstream);
    upstream.setTimeout(CONNECT_TIMEOUT_MS, () => upstream.destroy(new Error('timed out')));
    let connected = false;
    upstream.once('connect', () => {
      connected = true;
      upstream.setTimeout(0);
      client.write('HTTP/1.1 200 Connection established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.once('error', (error) => {
      if (!connected && !client.writableEnded) {
        client.end(
          statusLine(
            502,
            `zot sandbox proxy: cannot reach ${target.host}:${target.port}: ${error.message}\n`,
          ),
        );
      } else client.destroy();
    });
    client.once('close', () => upstream.destroy());
  }

  private onRequest(req: IncomingMessage, res: ServerResponse): void {
    const url = parseUrl(req.url ?? '');
    if (!url || url.protocol !== 'http:') {
      res.writeHead(400, { 'content-type': 'text/plain' });
      res.end('zot sandbox proxy: only proxied http:// requests and CONNECT are served\n');
      return;
    }
    const host = normalizeHost(url.hostname);
    const port = url.port === '' ? 80 : Number(url.port);
    if (!hostAllowed(this.options.allow, host, port)) {
      const text = this.deny(host, port);
      res.writeHead(403, { 'content-type': 'text/plain', [DENIED_HEADER]: `${host}:${port}` });
      res.end(text + '\n');
      return;
    }
    const headers = { ...req.headers };
    for (const name of Object.keys(headers)) if (name.startsWith('proxy-')) delete headers[name];
    headers.connection = 'close';
    const upstream = request({
      host: url.hostname.replace(/^\[|\]$/g, ''),
      port,
      method: req.method,
      path: `${url.pathname}${url.search}`,
      headers,
      timeout: CONNECT_TIMEOUT_MS,
    });
    upstream.on('response', (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('timeout', () => upstream.destroy(new Error('timed out')));
    upstream.on('error', (error) => {
      if (!res.headersSent) {
        res.writeHead(502, { 'content-type': 'text/plain' });
        res.end(`zot sandbox proxy: cannot reach ${host}:${port}: ${error.message}\n`);
      } else res.destroy();
    });
    req.pipe(upstream);
  }

  /** Stops listening, ends every connection, removes the socket. Contract: never rejects. */
  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    if (this.dir) rmSync(this.dir, { recursive: true, force: true });
  }
}

function parseUrl(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}

function statusLine(code: number, body: string, denied?: string): string {
  const reason = code === 403 ? 'Forbidden' : code === 400 ? 'Bad Request' : 'Bad Gateway';
  const extra = denied ? `${DENIED_HEADER}: ${denied}\r\n` : '';
  return (
    `HTTP/1.1 ${code} ${reason}\r\ncontent-type: text/plain\r\ncontent-length: ` +
    `${Buffer.byteLength(body)}\r\n${extra}connection: close\r\n\r\n${body}`
  );
}
