// Serving an extension over WebSocket (ext.listen): zot connects to it instead of spawning it.
// Each connection is one protocol session (hello, registrations, ready, requests) with the
// extension's handlers; frames are one text message each, read through the protocol's
// splitter so bounds and invalid UTF-8 are handled as on stdio.
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import {
  encodeFrameMessage,
  LineSplitter,
  MAX_FRAME_BYTES,
  type Transport,
  type TransportHandlers,
} from '@zot/protocol';

export interface ListenOptions {
  /** The port (0: any free one; see Listening.port). */
  readonly port?: number;
  /** The address to bind; 127.0.0.1 unless given (expose it on purpose, with a token and TLS). */
  readonly host?: string;
  /** A bearer token every connection must present (`Authorization: Bearer <token>`). */
  readonly token?: string;
  /** Serve wss:// with this certificate and key (PEM). */
  readonly tls?: { readonly cert: string | Buffer; readonly key: string | Buffer };
  /** Most connections (HTTP: sessions) at once (default 16); more are refused with 503. */
  readonly maxConnections?: number;
  /** `websocket` (default; needs the `ws` package) or `http` (Node's http module only). */
  readonly transport?: 'websocket' | 'http';
  /** HTTP: how long a session whose stream dropped waits to be resumed (default 30 s). */
  readonly resumeWindowMs?: number;
}

export interface Listening {
  readonly port: number;
  /** `ws://host:port/` (wss://, http://, https://) to give zot (`--ext-url` or a manifest's transport). */
  readonly url: string;
  /** Stops accepting and closes every connection. */
  close(): Promise<void>;
}

/** A message this large closes the connection; a smaller one over the frame limit is dropped. */
const MAX_MESSAGE_BYTES = 2 * MAX_FRAME_BYTES;
const LF = Buffer.of(0x0a);

type Ws = typeof import('ws');
type WsSocket = import('ws').WebSocket;

function loadWs(): Ws {
  try {
    return createRequire(import.meta.url)('ws') as Ws;
  } catch {
    throw new Error(
      '@zot/sdk: listen() needs the "ws" package: npm install --save-exact ws@8.23.0',
    );
  }
}

/** One connection as the extension's Transport. Contract: as Transport. */
export class WebSocketConnection<Out extends { readonly type: string }> implements Transport<Out> {
  private exited = false;

  constructor(private readonly socket: WsSocket) {}

  start(handlers: TransportHandlers): void {
    const splitter = linesTo(handlers);
    this.socket.on('message', (data, isBinary) => {
      if (isBinary) return; // frames are text messages
      if (Buffer.isBuffer(data)) splitter.push(data);
      else if (Array.isArray(data)) for (const chunk of data) splitter.push(chunk);
      else splitter.push(Buffer.from(data));
      splitter.push(LF);
    });
    this.socket.on('error', () => undefined); // 'close' follows
    this.socket.on('close', () => {
      if (this.exited) return;
      this.exited = true;
      handlers.onExit({ code: null, signal: null, disconnected: 'connection closed' });
    });
  }

  send(frame: Out): boolean {
    if (this.exited) return true;
    this.socket.send(encodeFrameMessage(frame));
    return true;
  }

  setReading(on: boolean): void {
    if (on) this.socket.resume();
    else this.socket.pause();
  }

  /** Closes the connection once what was sent is written. */
  close(): void {
    if (this.socket.readyState === this.socket.OPEN) this.socket.close(1000, 'done');
  }

  terminate(): Promise<void> {
    this.socket.terminate();
    return Promise.resolve();
  }
}

/** A splitter handing zot's lines to `handlers`, with stdio's bounds and UTF-8 check. */
export function linesTo(handlers: TransportHandlers): LineSplitter {
  return new LineSplitter({
    onLine: (line) => handlers.onLine(line),
    onOversize: (n) => handlers.onOversize?.(n),
    onInvalidUtf8: (n, bytes) => handlers.onInvalidUtf8?.(n, bytes),
  });
}

/** Whether `header` is `Bearer <token>`, compared in constant time. */
export function bearerMatches(header: string | undefined, token: string): boolean {
  const given = Buffer.from(/^Bearer (.+)$/i.exec(header ?? '')?.[1] ?? '');
  const wanted = Buffer.from(token);
  return given.length === wanted.length && timingSafeEqual(given, wanted);
}

/**
 * Starts a WebSocket server on which each connection gets `session(connection)`.
 * Contract: resolves once listening; a client without the token gets 401 and no session.
 */
/**
 * Listens on `options.host` (127.0.0.1 unless given) and `options.port` (0: any free one).
 * Contract: rejects with the server's error (a port in use, say).
 */
export async function startListening(
  server: Server,
  options: ListenOptions,
  scheme: string,
): Promise<{ port: number; url: string }> {
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return { port, url: `${scheme}://${shownHost}:${port}/` };
}

export async function listenWebSocket(
  options: ListenOptions,
  session: (connection: WebSocketConnection<never>) => void,
): Promise<Listening> {
  const ws = loadWs();
  const server: Server = options.tls
    ? (await import('node:https')).createServer({ cert: options.tls.cert, key: options.tls.key })
    : (await import('node:http')).createServer();
  server.on('request', (_req, res) => {
    res.writeHead(426, { 'content-type': 'text/plain' });
    res.end('a zot extension: connect with a WebSocket\n');
  });
  const maxConnections = options.maxConnections ?? 16;
  const wss = new ws.WebSocketServer({
    noServer: true,
    maxPayload: MAX_MESSAGE_BYTES,
    perMessageDeflate: false,
    skipUTF8Validation: true,
  });
  server.on('upgrade', (req: IncomingMessage, socket, head) => {
    const refuse = (status: string) => {
      socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
    };
    if (options.token !== undefined && !bearerMatches(req.headers.authorization, options.token))
      return refuse('401 Unauthorized');
    if (wss.clients.size >= maxConnections) return refuse('503 Service Unavailable');
    wss.handleUpgrade(req, socket, head, (client) => session(new WebSocketConnection(client)));
  });
  const { port, url } = await startListening(server, options, options.tls ? 'wss' : 'ws');
  return {
    port,
    url,
    close: () =>
      new Promise<void>((resolve) => {
        for (const client of wss.clients) client.terminate();
        wss.close();
        server.close(() => resolve());
        server.closeAllConnections?.();
      }),
  };
}
