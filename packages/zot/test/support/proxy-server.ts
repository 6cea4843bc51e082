// A real forward proxy on a local port: CONNECT tunnels (for https targets) and absolute-URI
// requests (for http targets), optionally demanding Basic credentials. It notes what it saw.
import { readFileSync } from 'node:fs';
import { createServer, request, type IncomingMessage } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';

export interface ProxySeen {
  method: string;
  /** `host:port` for CONNECT, the absolute URL for plain requests. */
  target: string;
  authorization?: string;
}

export interface ProxyServer {
  readonly url: string;
  readonly port: number;
  readonly seen: ProxySeen[];
  close(): Promise<void>;
}

/** The test certificate (CN and SAN localhost, 127.0.0.1) and its key. */
export function testTls(): { cert: Buffer; key: Buffer; certPath: string } {
  const path = (name: string) =>
    fileURLToPath(new URL(`../../../test/fixtures/tls/${name}`, import.meta.url));
  return {
    cert: readFileSync(path('localhost-cert.pem')),
    key: readFileSync(path('localhost-key.pem')),
    certPath: path('localhost-cert.pem'),
  };
}

/** `requireAuth`: the exact Proxy-Authorization value to demand (407 without it). */
export async function startProxy(requireAuth?: string): Promise<ProxyServer> {
  const seen: ProxySeen[] = [];
  const sockets = new Set<Socket>();
  const note = (req: IncomingMessage): boolean => {
    const authorization = req.headers['proxy-authorization'];
    seen.push({
      method: req.method ?? '',
      target: req.url ?? '',
      ...(authorization ? { authorization } : {}),
    });
    return requireAuth === undefined || authorization === requireAuth;
  };
  const server = createServer((req, res) => {
    if (!note(req)) {
      res.writeHead(407, { 'proxy-authenticate': 'Basic realm="test"' }).end();
      return;
    }
    const target = new URL(req.url ?? '');
    const headers = { ...req.headers };
    delete headers['proxy-authorization'];
    const upstream = request(
      {
        host: target.hostname.replace(/^\[|\]$/g, ''),
        port: target.port,
        path: `${target.pathname}${target.search}`,
        method: req.method,
        headers,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => client.destroy());
    if (!note(req)) {
      client.end('HTTP/1.1 407 Proxy Authentication Required\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    const colon = (req.url ?? '').lastIndexOf(':');
    const host = (req.url ?? '').slice(0, colon).replace(/^\[|\]$/g, '');
    const port = Number((req.url ?? '').slice(colon + 1));
    const upstream = connect(port, host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on('close', () => {
      sockets.delete(upstream);
      client.destroy();
    });
    upstream.on('error', () => client.end('HTTP/1.1 502 Bad Gateway\r\n\r\n'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
