// The HTTP transport's requests, made once here: which headers they carry, what each status
// means, and reading a small answer body within a bound. No state: http.ts holds the session.
import { Agent, request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { urlToHttpOptions } from 'node:url';
import { displayUrl, type RemoteConfig } from '../../ext-setup/remote-config.js';
import { connectionProblem } from './remote-connect.js';

/** The session a GET opened; every later request names it. */
export const SESSION_HEADER = 'zot-session';
/** A POST's place in the host's byte stream: how many bytes were sent before its body. */
export const OFFSET_HEADER = 'zot-offset';
/** On a POST: the last event id the host received (the server may forget up to it). */
export const ACK_HEADER = 'zot-ack';
export const SESSION_ID = /^[A-Za-z0-9._~-]{8,128}$/;
/** The type of the event stream, and of a POST's answer that carries events. */
export const EVENT_STREAM = 'text/event-stream';
/** Most bytes of an error answer read for its message. */
const MAX_ANSWER_BYTES = 4096;

export interface WireTarget {
  config: RemoteConfig;
  token?: string | undefined;
  agent?: Agent | undefined;
}

/**
 * What every request to a target shares, worked out once: its URL parsed, and the headers zot
 * adds to a request's own. Each tool call is a POST; parsing the URL and copying the headers
 * again each time cost microseconds a call.
 */
interface Prepared {
  /**
   * The URL as request options, in a plain object of our own: urlToHttpOptions gives one
   * without a prototype, in V8's dictionary mode, and copying from it cost 3 µs a request.
   */
  protocol: string;
  hostname: string;
  port: number | undefined;
  path: string;
  agent: Agent | undefined;
  make: typeof httpRequest;
  /** Host (the URL's: brackets around IPv6, no default port), as Node would have set it. */
  host: string;
  /** The configured headers as name, value pairs (names lowercased, none reserved). */
  configured: string[];
  /** The token's header pair, or none. */
  authorization: string[];
}
const prepared = new WeakMap<WireTarget, Prepared>();

function prepare(target: WireTarget): Prepared {
  let ready = prepared.get(target);
  if (ready === undefined) {
    const url = new URL(target.config.url);
    const { protocol, hostname, port, path } = urlToHttpOptions(url);
    ready = {
      protocol: protocol!,
      hostname: hostname!,
      port: port === undefined || port === '' ? undefined : Number(port),
      path: path!,
      agent: target.agent,
      make: url.protocol === 'https:' ? httpsRequest : httpRequest,
      host: url.host,
      configured: Object.entries(target.config.headers).flat(),
      authorization: target.token ? ['authorization', `Bearer ${target.token}`] : [],
    };
    prepared.set(target, ready);
  }
  return ready;
}

/**
 * The agent of a direct connection (no proxy), one per link: keep-alive, without the socket
 * timeout of Node's global agent (5 s), which arms a timer and clears it again on every request,
 * and every tool call is a POST. An idle socket the server closes leaves the pool when its end
 * arrives; a POST that meets one as it closes fails on the way and is sent again at the same
 * offset. Its sockets are destroyed when the link ends.
 */
export function directAgent(url: string): Agent {
  const secure = new URL(url).protocol === 'https:';
  return secure ? new HttpsAgent({ keepAlive: true }) : new Agent({ keepAlive: true });
}

/**
 * Starts a request to the extension's URL with zot's headers (the token never leaves here).
 * `own` is the request's headers as lowercase name, value pairs; `bodyBytes`, the length of the
 * body that end() will be given (a POST's: the head is written before end() is called).
 *
 * The headers go to Node as one array: with an object, Node stores each header apart (a name
 * check, a lowercased copy and a map entry per header), then asks for Host and works out the
 * Content-Length from the body a second time; an array is checked and written in one pass.
 * Node adds no Host for an array, so it is the first pair here.
 */
export function startRequest(
  target: WireTarget,
  method: 'GET' | 'POST' | 'DELETE',
  own: string[],
  bodyBytes?: number,
): ClientRequest {
  const ready = prepare(target);
  // In this order: Host, the configured headers (those the request sets itself left out), the
  // request's own, the token, the length.
  const headers = ['host', ready.host];
  const configured = ready.configured;
  for (let i = 0; i < configured.length; i += 2)
    if (!namedIn(own, configured[i]!)) headers.push(configured[i]!, configured[i + 1]!);
  for (const part of own) headers.push(part);
  for (const part of ready.authorization) headers.push(part);
  if (bodyBytes !== undefined) headers.push('content-length', String(bodyBytes));
  const { protocol, hostname, port, path, agent } = ready;
  return ready.make({ protocol, hostname, port, path, agent, method, headers });
}

/** Whether name, value pairs `pairs` hold a header named `name`. */
function namedIn(pairs: string[], name: string): boolean {
  for (let i = 0; i < pairs.length; i += 2) if (pairs[i] === name) return true;
  return false;
}

/** Reads at most MAX_ANSWER_BYTES of `res` as text for a message, printable ASCII only. */
export function readAnswer(res: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    res.on('data', (chunk: Buffer) => {
      if (text.length < MAX_ANSWER_BYTES) text += chunk.toString('latin1');
      if (text.length >= MAX_ANSWER_BYTES) res.destroy();
    });
    const done = () =>
      resolve(
        text
          .slice(0, 200)
          .replace(/[^\x20-\x7e]/g, ' ')
          .trim(),
      );
    res.on('end', done);
    res.on('close', done);
    res.on('error', done);
  });
}

/** What an unexpected HTTP status from the extension's server means, and what to do. */
export function statusProblem(
  status: number,
  said: string,
  target: WireTarget,
  what: string,
): string {
  const shown = displayUrl(target.config.url);
  const detail = said ? `: ${said}` : '';
  if (status === 401 || status === 403) {
    const variable = target.config.tokenFrom ?? target.config.tokenEnv ?? 'ZOT_EXT_TOKEN';
    return target.token !== undefined
      ? `${shown} refused the token from ${variable} (HTTP ${status}); check its value`
      : `${shown} wants a token (HTTP ${status}); set ${variable} (or name the variable with "token_env" / --ext-token-env)`;
  }
  if (status === 404 && what !== 'open')
    return `${shown} no longer knows this session (HTTP 404${detail})`;
  if (status === 410) return `${shown} can no longer resend what was lost (HTTP 410${detail})`;
  if (status === 503) return `${shown} is busy (HTTP 503${detail}); too many connections?`;
  return `${shown} answered HTTP ${status} to ${what}${detail}; is this the URL of an HTTP extension?`;
}

/** A network error's meaning, as for the WebSocket transport. */
export function networkProblem(error: unknown, target: WireTarget): string {
  return connectionProblem(error, target.config, target.token !== undefined);
}

export function isEventStream(res: IncomingMessage): boolean {
  const type = res.headers['content-type'];
  return type !== undefined && type.toLowerCase().startsWith(EVENT_STREAM);
}

/**
 * What is wrong with the answer to a GET of the event stream, if anything: a status, a type or
 * a session header that is not an open stream (of `resumed`, the session being resumed).
 */
export async function streamProblem(
  res: IncomingMessage,
  target: WireTarget,
  resumed: string | undefined,
): Promise<string | undefined> {
  const shown = displayUrl(target.config.url);
  const session = res.headers[SESSION_HEADER];
  if (res.statusCode !== 200) {
    const said = await readAnswer(res);
    return statusProblem(res.statusCode ?? 0, said, target, resumed ? 'a resume' : 'open');
  }
  if (!isEventStream(res)) {
    const type = String(res.headers['content-type'] ?? '');
    return `${shown} answered with ${JSON.stringify(type.slice(0, 60))} instead of an event stream; is this the URL of an HTTP extension?`;
  }
  if (typeof session !== 'string' || !SESSION_ID.test(session))
    return `${shown} answered without a valid ${SESSION_HEADER} header`;
  if (resumed !== undefined && session !== resumed)
    return `${shown} resumed another session than this one`;
  return undefined;
}
