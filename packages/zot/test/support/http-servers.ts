// For the HTTP transport's tests, on 127.0.0.1: a TCP proxy that can hold back what flows to
// zot and cut every connection (a dropped stream, with bytes lost on the way), and a raw HTTP
// server the test scripts (the extension's event stream written by hand).
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import { createServer, connect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export interface CuttingProxy {
  /** `http://127.0.0.1:port/` */
  url: string;
  /** From now on, bytes to zot wait here (on every connection, new ones too). */
  hold(): void;
  /** What is held so far, as text. */
  held(): string;
  /** How many HTTP answers with this status went to zot so far. */
  answered(status: number): number;
  /** Cuts every connection; what was held is lost. Later connections flow freely. */
  cut(): void;
  /** Later connections go to `port`. */
  retarget(port: number): void;
  close(): Promise<void>;
}

export async function startCuttingProxy(targetPort: number): Promise<CuttingProxy> {
  let target = targetPort;
  let holding = false;
  let heldChunks: Buffer[] = [];
  const statuses: number[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(target, '127.0.0.1');
    sockets.add(client);
    sockets.add(upstream);
    client.on('data', (chunk) => upstream.write(chunk));
    upstream.on('data', (chunk: Buffer) => {
      if (holding) return void heldChunks.push(chunk);
      for (const match of chunk.toString('latin1').matchAll(/^HTTP\/1\.1 (\d{3}) /gm))
        statuses.push(Number(match[1]));
      client.write(chunk);
    });
    const end = () => (client.destroy(), upstream.destroy());
    client.on('close', end);
    upstream.on('close', end);
    client.on('error', end);
    upstream.on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/`,
    hold: () => (holding = true),
    held: () => Buffer.concat(heldChunks).toString('utf8'),
    answered: (status) => statuses.filter((s) => s === status).length,
    cut: () => {
      holding = false;
      heldChunks = [];
      for (const socket of sockets) socket.destroy();
      sockets.clear();
    },
    retarget: (next) => (target = next),
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

export interface ScriptedStream {
  /** The event stream of the first GET, to write by hand. */
  stream: Promise<ServerResponse>;
  /** Bodies POSTed, in order. */
  posts: string[];
  url: string;
  close(): Promise<void>;
}

/**
 * An HTTP "extension" whose event stream the test writes: session `s-test-0001`. POSTs are
 * answered by `answer` (the body read, and the request for its headers), 204 without one.
 */
export async function startScriptedStream(
  answer?: (body: string, res: ServerResponse, req: IncomingMessage) => void,
): Promise<ScriptedStream> {
  const posts: string[] = [];
  let give!: (res: ServerResponse) => void;
  const stream = new Promise<ServerResponse>((resolve) => (give = resolve));
  const server = createHttpServer((req: IncomingMessage, res: ServerResponse) => {
    if (req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'zot-session': 's-test-0001' });
      res.flushHeaders();
      return give(res);
    }
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      if (req.method === 'POST') posts.push(body);
      if (req.method === 'POST' && answer) answer(body, res, req);
      else res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    stream,
    posts,
    url: `http://127.0.0.1:${port}/ext`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
