// HTTP requests to model APIs over node:http / node:https (not fetch: loading undici and its
// WebAssembly parser costs a short run more than the request itself). Keep-alive agents, proxies
// from the environment (proxy.ts), an abort signal and an idle timeout on every byte.
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import type { ClientRequest, IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import type { Agent as HttpsAgentType } from 'node:https';
import type { Socket } from 'node:net';
import { isLoopbackUrl } from '../util/base-url.js';
import { proxyAuthorization, proxyFor, proxyPort, targetPort, type ProxyEnv } from './proxy.js';

export interface HttpCall {
  method: 'GET' | 'POST';
  url: string;
  headers: Record<string, string>;
  body?: string;
  signal: AbortSignal;
  /** Ends the call when this long passes without a byte from the server. */
  idleMs: number;
  /** The environment the proxy settings come from (tests pass their own). */
  env?: ProxyEnv;
  /** Called once the request is written (handed to the socket), before any answer. */
  onSent?(): void;
}

/** Why a call ended early: the caller's abort or the idle timeout. */
export class CallEndedError extends Error {
  constructor(
    readonly reason: 'aborted' | 'idle',
    message: string,
  ) {
    super(message);
  }
}

type Https = typeof import('node:https');
type Tls = typeof import('node:tls');
let httpsModules: Promise<{ https: Https; tls: Tls }> | undefined;
/** node:https (and tls, crypto) load only for https URLs: local servers need none of it. */
function loadHttps(): Promise<{ https: Https; tls: Tls }> {
  httpsModules ??= Promise.all([import('node:https'), import('node:tls')]).then(([https, tls]) => ({
    https,
    tls,
  }));
  return httpsModules;
}

const KEEP_ALIVE = { keepAlive: true, keepAliveMsecs: 15_000 };
let directHttp: HttpAgent | undefined;
let directHttps: HttpsAgentType | undefined;
/** Agents per proxy URL (plain requests to an HTTP proxy, tunnels through it). */
const proxyAgents = new Map<string, HttpAgent | HttpsAgentType>();

/** A response whose headers arrived; its body is read once, through `text()` or `chunks()`. */
export interface Reply {
  status: number;
  headers: IncomingMessage['headers'];
  /** The body as UTF-8 text pieces (split characters joined); errors with the call's end reason. */
  chunks(): AsyncIterable<string>;
  /** The body as text, up to `limit` characters. Contract: never rejects (returns what arrived). */
  text(limit?: number): Promise<string>;
  /** Drops the rest of the body and the connection. */
  close(): void;
}

/**
 * Sends one request and resolves once the response headers arrived.
 * Contract: rejects with CallEndedError on abort or idle timeout, with the network error
 * otherwise; after the headers, the same two end the body (its reads reject with them); the
 * idle timer restarts on every piece of the body and stops when the body ends or is closed.
 */
export async function send(call: HttpCall): Promise<Reply> {
  const target = new URL(call.url);
  if (target.protocol !== 'http:' && target.protocol !== 'https:') {
    throw new Error(`unsupported URL scheme ${target.protocol}`);
  }
  const route = proxyFor(target, call.env);
  if (route && 'error' in route) throw new Error(route.error);
  if (call.signal.aborted) throw new CallEndedError('aborted', 'aborted');
  const headers: OutgoingHttpHeaders = { ...call.headers };
  if (call.body !== undefined) headers['content-length'] = Buffer.byteLength(call.body);
  const req = await openRequest(target, route?.proxy, headers, call.method);
  let ended: CallEndedError | undefined;
  let response: IncomingMessage | undefined;
  let timer: NodeJS.Timeout | undefined;
  const end = (error: CallEndedError) => {
    ended ??= error;
    response?.destroy(ended);
    req.destroy(ended);
  };
  const onAbort = () => end(new CallEndedError('aborted', 'aborted'));
  const arm = () => {
    clearTimeout(timer);
    timer = setTimeout(
      () => end(new CallEndedError('idle', idleMessage(call.idleMs))),
      call.idleMs,
    );
  };
  const finish = () => {
    clearTimeout(timer);
    call.signal.removeEventListener('abort', onAbort);
  };
  call.signal.addEventListener('abort', onAbort, { once: true });
  if (call.signal.aborted) onAbort();
  arm();
  const res = await new Promise<IncomingMessage>((resolve, reject) => {
    req.on('error', (error) => {
      finish();
      reject(ended ?? error);
    });
    req.on('response', resolve);
    if (call.onSent) req.once('finish', call.onSent);
    req.end(call.body);
  });
  response = res;
  arm();
  res.setEncoding('utf8');
  res.on('end', finish);
  res.on('close', finish);
  // An abort or idle timeout before the caller reads the body must not go unhandled; the
  // caller's read sees the error through `chunks()`.
  res.on('error', () => {});
  const close = () => {
    finish();
    res.destroy();
  };
  async function* chunks(): AsyncGenerator<string> {
    try {
      for await (const chunk of res) {
        arm();
        yield chunk as string;
      }
    } catch (error) {
      throw ended ?? error;
    } finally {
      close();
    }
  }
  return {
    status: res.statusCode ?? 0,
    headers: res.headers,
    chunks,
    async text(limit = 64 * 1024) {
      let text = '';
      try {
        for await (const chunk of chunks()) {
          text += chunk;
          if (text.length >= limit) return text.slice(0, limit);
        }
      } catch {
        // what arrived is all there is
      }
      return text;
    },
    close,
  };
}

function idleMessage(ms: number): string {
  const seconds = ms >= 1000 ? `${Math.round(ms / 1000)} s` : `${ms} ms`;
  return `no data from the server for ${seconds}; gave up`;
}

async function openRequest(
  target: URL,
  proxy: URL | undefined,
  headers: OutgoingHttpHeaders,
  method: string,
): Promise<ClientRequest> {
  const secure = target.protocol === 'https:';
  // URL keeps IPv6 brackets in hostname; sockets want the bare address.
  const host = target.hostname.replace(/^\[|\]$/g, '');
  const base = { method, headers, host, port: targetPort(target) };
  const path = `${target.pathname}${target.search}`;
  if (!proxy) {
    if (!secure) {
      directHttp ??= new HttpAgent(KEEP_ALIVE);
      return httpRequest({ ...base, path, agent: directHttp });
    }
    const { https } = await loadHttps();
    directHttps ??= new https.Agent(KEEP_ALIVE);
    return https.request({ ...base, path, agent: directHttps });
  }
  if (secure) {
    // An https target goes through a CONNECT tunnel, so the proxy sees only host and port.
    const agent = (await tunnelAgent(proxy)) as HttpsAgentType;
    const { https } = await loadHttps();
    return https.request({ ...base, path, agent });
  }
  // A plain-http target goes to the proxy with the absolute URL as the path, as curl sends it.
  const auth = proxyAuthorization(proxy);
  const viaProxy = {
    method,
    host: proxy.hostname.replace(/^\[|\]$/g, ''),
    port: proxyPort(proxy),
    path: target.href,
    headers: { ...headers, host: target.host, ...(auth ? { 'proxy-authorization': auth } : {}) },
  };
  if (proxy.protocol === 'https:') {
    const { https } = await loadHttps();
    const agent = cachedAgent(`plain ${proxy.href}`, () => new https.Agent(KEEP_ALIVE));
    return https.request({
      ...viaProxy,
      agent: agent as HttpsAgentType,
      servername: serverName(proxy),
    });
  }
  const agent = cachedAgent(`plain ${proxy.href}`, () => new HttpAgent(KEEP_ALIVE));
  return httpRequest({ ...viaProxy, agent: agent as HttpAgent });
}

function cachedAgent<A extends HttpAgent | HttpsAgentType>(key: string, make: () => A): A {
  let agent = proxyAgents.get(key) as A | undefined;
  if (!agent) {
    agent = make();
    proxyAgents.set(key, agent);
  }
  return agent;
}

/** SNI takes names only, never IP addresses. */
function serverName(url: URL): string | undefined {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return /^[\d.]+$/.test(host) || host.includes(':') ? undefined : host;
}

type Connect = (
  options: Record<string, unknown>,
  done: (error: Error | null, socket?: Socket) => void,
) => Socket | undefined;

/** An https agent whose connections are TLS inside a CONNECT tunnel through `proxy`. */
async function tunnelAgent(proxy: URL): Promise<HttpsAgentType> {
  const { https } = await loadHttps();
  return cachedAgent(`tunnel ${proxy.href}`, () => {
    const agent = new https.Agent(KEEP_ALIVE);
    // https.Agent's own createConnection wraps a given socket in TLS (and reuses sessions).
    const overTls = (agent.createConnection as unknown as Connect).bind(agent);
    // The agent takes the socket through the callback when createConnection returns none.
    const connect: Connect = (options, done) => {
      const host = String(options.host ?? '');
      const port = Number(options.port ?? 443);
      openTunnel(proxy, host, port).then(
        (tunnel) => {
          try {
            done(
              null,
              overTls({ ...options, socket: tunnel }, () => {}),
            );
          } catch (error) {
            tunnel.destroy();
            done(error as Error);
          }
        },
        (error: Error) => done(error),
      );
      return undefined;
    };
    (agent as unknown as { createConnection: Connect }).createConnection = connect;
    return agent;
  });
}

/**
 * The agent a client that opens its own connection to `target` (a remote extension's WebSocket:
 * ws, wss, http or https) goes through: none for loopback addresses (a proxy cannot reach this
 * machine's loopback) or without a proxy setting, else a CONNECT tunnel through the proxy that
 * https_proxy / http_proxy / all_proxy name (no_proxy honoured), as for send().
 * Contract: a proxy setting that is not usable is an `{ error }`, never a direct connection.
 */
export async function connectionAgent(
  target: URL,
  env: ProxyEnv = process.env,
): Promise<HttpAgent | HttpsAgentType | undefined | { error: string }> {
  if (isLoopbackUrl(target.href)) return undefined;
  const secure = target.protocol === 'wss:' || target.protocol === 'https:';
  // proxy.ts reads https_proxy for https targets and http_proxy for plain ones.
  const asHttp = new URL(target.href.replace(/^wss?:/i, secure ? 'https:' : 'http:'));
  const route = proxyFor(asHttp, env);
  if (!route) return undefined;
  if ('error' in route) return route;
  return proxyTunnelAgent(route.proxy, secure);
}

/** An agent whose connections go through a CONNECT tunnel to `proxy` (TLS inside when `secure`). */
async function proxyTunnelAgent(proxy: URL, secure: boolean): Promise<HttpAgent | HttpsAgentType> {
  if (secure) return tunnelAgent(proxy);
  return cachedAgent(`plain tunnel ${proxy.href}`, () => {
    const agent = new HttpAgent(KEEP_ALIVE);
    const connect: Connect = (options, done) => {
      openTunnel(proxy, String(options.host ?? ''), Number(options.port ?? 80)).then(
        (socket) => done(null, socket),
        (error: Error) => done(error),
      );
      return undefined;
    };
    (agent as unknown as { createConnection: Connect }).createConnection = connect;
    return agent;
  });
}

/**
 * Opens a CONNECT tunnel to `host:port` through `proxy`.
 * Contract: resolves with the raw socket once the proxy answered 2xx; rejects with a message
 * that names the proxy's status otherwise.
 */
async function openTunnel(proxy: URL, host: string, port: number): Promise<Socket> {
  const authority = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
  const auth = proxyAuthorization(proxy);
  const options = {
    method: 'CONNECT',
    host: proxy.hostname.replace(/^\[|\]$/g, ''),
    port: proxyPort(proxy),
    path: authority,
    headers: { host: authority, ...(auth ? { 'proxy-authorization': auth } : {}) },
    agent: false as const,
  };
  let req: ClientRequest;
  if (proxy.protocol === 'https:') {
    const { https } = await loadHttps();
    req = https.request({ ...options, servername: serverName(proxy) });
  } else {
    req = httpRequest(options);
  }
  return new Promise<Socket>((resolve, reject) => {
    req.once('connect', (response: IncomingMessage, socket: Socket, head: Buffer) => {
      const status = response.statusCode ?? 0;
      if (status < 200 || status > 299) {
        socket.destroy();
        reject(
          new Error(
            `proxy ${proxy.host} refused the tunnel: HTTP ${status} ${response.statusMessage ?? ''}`.trim(),
          ),
        );
        return;
      }
      if (head.length > 0) socket.unshift(head);
      resolve(socket);
    });
    // Some Node versions hand a non-2xx answer to CONNECT over as an ordinary response.
    req.once('response', (response: IncomingMessage) => {
      response.resume();
      req.destroy();
      reject(
        new Error(
          `proxy ${proxy.host} refused the tunnel: HTTP ${response.statusCode ?? 0} ${response.statusMessage ?? ''}`.trim(),
        ),
      );
    });
    req.once('error', (error) =>
      reject(new Error(`proxy ${proxy.host}: ${error.message}`, { cause: error })),
    );
    req.end();
  });
}

/** The idle timeout for streams: ZOT_STREAM_IDLE_TIMEOUT_MS, or 120 s. */
export function streamIdleMs(env: ProxyEnv = process.env): number {
  const value = Number(env.ZOT_STREAM_IDLE_TIMEOUT_MS);
  return Number.isFinite(value) && value > 0 ? value : 120_000;
}
