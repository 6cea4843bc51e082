// Serving an extension over HTTP (ext.listen({transport: 'http'})), with Node's http module
// only. zot opens a session with a GET and reads our frames from its event stream (`id: N`,
// `data: <frame>`); it POSTs its own as NDJSON, each POST saying where in its byte stream the
// body starts (so a POST sent again is not read twice). The frames our handlers send while a
// POST is handled (until our next turn) go in its answer instead of the stream, numbered in the
// same sequence: a tool call and its result are one request and its answer. A stream that drops
// is resumed with Last-Event-ID: we resend what came after it, from frames kept until zot
// acknowledges them; an answer that was lost is resent in the next POST's answer.
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import {
  encodeFrameMessage,
  MAX_FRAME_BYTES,
  type LineSplitter,
  type Transport,
  type TransportHandlers,
} from '@zot/protocol';
import {
  bearerMatches,
  linesTo,
  startListening,
  type Listening,
  type ListenOptions,
} from './listen.js';

const SESSION_HEADER = 'zot-session';
const OFFSET_HEADER = 'zot-offset';
const ACK_HEADER = 'zot-ack';
const EVENT_STREAM = 'text/event-stream';
/** A POST body larger than this is refused (413): a frame is at most 32 MiB. */
const MAX_POST_BYTES = 2 * MAX_FRAME_BYTES;
/** Frames kept for a resume; past this the oldest are forgotten (a resume before them: 410). */
const MAX_KEPT_BYTES = 4 * MAX_FRAME_BYTES;
const KEEPALIVE_MS = 15_000;
/** How long a session whose stream dropped waits for zot to resume it (default). */
const RESUME_WINDOW_MS = 30_000;

/** A POST's answer being gathered: the events that will go in it. */
interface Answer {
  res: ServerResponse;
  texts: string[];
}

/** One zot's session as the extension's Transport. Contract: as Transport. */
export class HttpSession<Out extends { readonly type: string }> implements Transport<Out> {
  readonly id = randomBytes(18).toString('base64url');
  private handlers: TransportHandlers | undefined;
  private splitter: LineSplitter | undefined;
  /** Frames zot has not acknowledged; `answered`: first sent in a POST's answer. */
  private kept: Array<{ id: number; text: string; answered: boolean }> = [];
  private keptBytes = 0;
  /** The highest id forgotten before zot acknowledged it. */
  private forgotten = 0;
  private nextId = 1;
  private stream: ServerResponse | undefined;
  private post: IncomingMessage | undefined;
  /** The answer of the POST being read: frames sent until our turn after its end go in it. */
  private answer: Answer | undefined;
  private received = 0;
  private wantReading = true;
  private backedUp = false;
  private exited = false;
  private orphanTimer: NodeJS.Timeout | undefined;
  private keepalive: NodeJS.Timeout | undefined;

  constructor(
    private readonly resumeWindowMs: number,
    private readonly forget: () => void,
  ) {}

  start(handlers: TransportHandlers): void {
    this.handlers = handlers;
    this.splitter = linesTo(handlers);
  }

  /** A GET: the stream from now on, after resending what came after `lastId` (a resume). */
  attach(res: ServerResponse, lastId: number | undefined): void {
    if (this.exited) return refuse(res, 404, 'this session is over');
    if (lastId !== undefined) {
      if (lastId >= this.nextId) return refuse(res, 409, `no event ${lastId} was sent yet`);
      if (lastId < this.forgotten)
        return refuse(res, 410, `events after ${lastId} are no longer kept`);
      this.acknowledge(lastId);
    }
    const old = this.stream;
    this.stream = undefined;
    old?.destroy();
    clearTimeout(this.orphanTimer);
    res.writeHead(200, {
      'content-type': EVENT_STREAM,
      'cache-control': 'no-cache, no-transform',
      'x-accel-buffering': 'no',
      [SESSION_HEADER]: this.id,
    });
    res.flushHeaders();
    this.stream = res;
    this.backedUp = false;
    for (const event of this.kept) this.write(event.text);
    res.on('drain', () => {
      this.backedUp = false;
      this.applyReading();
    });
    res.on('close', () => {
      if (this.stream !== res) return;
      this.stream = undefined;
      this.backedUp = false;
      this.applyReading();
      if (!this.exited)
        this.orphanTimer = setTimeout(
          () => this.exit('zot did not resume the stream'),
          this.resumeWindowMs,
        );
    });
    clearInterval(this.keepalive);
    this.keepalive = setInterval(() => this.write(': keepalive\n\n'), KEEPALIVE_MS);
    this.keepalive.unref();
  }

  /** A POST of frames starting at byte `offset` of zot's stream; what was read before is skipped. */
  receive(
    req: IncomingMessage,
    res: ServerResponse,
    offset: number,
    ack: number | undefined,
  ): void {
    if (this.exited) return refuse(res, 404, 'this session is over');
    if (offset > this.received)
      return refuse(res, 409, `bytes ${this.received} to ${offset} never arrived`);
    if (ack !== undefined) this.acknowledge(ack);
    // zot sends one POST at a time: an earlier one still open here was given up on its side.
    this.post?.destroy();
    this.post = req;
    let skip = this.received - offset;
    let total = 0;
    req.on('data', (chunk: Buffer) => {
      total += chunk.length;
      if (total > MAX_POST_BYTES) {
        refuse(res, 413, `a POST may carry at most ${MAX_POST_BYTES} bytes`);
        req.destroy();
        return;
      }
      if (skip >= chunk.length) return void (skip -= chunk.length);
      const fresh = skip > 0 ? chunk.subarray(skip) : chunk;
      skip = 0;
      this.received += fresh.length;
      this.splitter?.push(fresh);
    });
    // A host that reads events in answers says so; without that, 204 and everything on the stream.
    const answer = (req.headers.accept ?? '').includes(EVENT_STREAM)
      ? this.openAnswer(res)
      : undefined;
    req.on('end', () => {
      if (this.post === req) this.post = undefined;
      if (answer) setImmediate(() => this.sendAnswer(answer));
      else if (!res.headersSent) res.writeHead(204).end();
    });
    req.on('close', () => {
      if (this.post === req) this.post = undefined;
      // Cut short: what went in the answer is sent again in the next one (it stays `answered`).
      if (this.answer === answer && !req.complete) this.answer = undefined;
    });
    this.applyReading();
  }

  send(frame: Out): boolean {
    if (this.exited) return true;
    const id = this.nextId++;
    const text = `id: ${id}\ndata: ${encodeFrameMessage(frame)}\n\n`;
    const answer = this.answer;
    this.kept.push({ id, text, answered: answer !== undefined });
    this.keptBytes += text.length;
    while (this.keptBytes > MAX_KEPT_BYTES && this.kept.length > 1) {
      const oldest = this.kept.shift()!;
      this.keptBytes -= oldest.text.length;
      this.forgotten = oldest.id;
    }
    if (answer) answer.texts.push(text);
    else this.write(text);
    return true;
  }

  setReading(on: boolean): void {
    this.wantReading = on;
    this.applyReading();
  }

  /** Ends the session: zot reads `event: end` (a normal close, not a drop to resume). */
  close(): void {
    if (this.exited) return;
    if (this.answer) this.sendAnswer(this.answer); // zot reads it before it ends the session
    this.stream?.end('event: end\n\n');
    this.stream = undefined;
    this.exit('connection closed');
  }

  terminate(): Promise<void> {
    this.stream?.destroy();
    this.stream = undefined;
    this.exit('connection closed');
    return Promise.resolve();
  }

  /**
   * Opens the answer of a POST: frames sent from now until our turn after its body was read go
   * in it, after the frames first sent in an answer that zot did not acknowledge (lost on the
   * way: this POST's zot-ack says what it received).
   */
  private openAnswer(res: ServerResponse): Answer {
    const texts: string[] = [];
    for (const event of this.kept) if (event.answered) texts.push(event.text);
    const answer = { res, texts };
    this.answer = answer;
    return answer;
  }

  /** 200 with the frames as events, or 204 when there are none. */
  private sendAnswer(answer: Answer): void {
    if (this.answer === answer) this.answer = undefined;
    const { res, texts } = answer;
    if (res.headersSent || res.destroyed) return;
    if (texts.length === 0) return void res.writeHead(204).end();
    const body = texts.join('');
    res
      .writeHead(200, {
        'content-type': EVENT_STREAM,
        'cache-control': 'no-cache, no-transform',
        'content-length': Buffer.byteLength(body),
      })
      .end(body);
  }

  private write(text: string): void {
    const stream = this.stream;
    if (!stream || stream.destroyed) return;
    if (!stream.write(text) && !this.backedUp) {
      this.backedUp = true;
      this.applyReading();
    }
  }

  private acknowledge(id: number): void {
    while (this.kept.length > 0 && this.kept[0]!.id <= id) {
      this.keptBytes -= this.kept.shift()!.text.length;
    }
  }

  /** zot's POSTs are read only while our stream is not backed up (as stdio pauses stdin). */
  private applyReading(): void {
    if (this.wantReading && !this.backedUp) this.post?.resume();
    else this.post?.pause();
  }

  private exit(why: string): void {
    if (this.exited) return;
    this.exited = true;
    clearTimeout(this.orphanTimer);
    clearInterval(this.keepalive);
    this.post?.destroy();
    this.splitter?.end();
    this.forget();
    this.handlers?.onExit({ code: null, signal: null, disconnected: why });
  }
}

function refuse(res: ServerResponse, status: number, message: string): void {
  if (res.headersSent) return void res.destroy();
  res.writeHead(status, { 'content-type': 'text/plain', connection: 'close' });
  res.end(`${message}\n`);
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return typeof value === 'string' ? value : undefined;
}

function counter(text: string | undefined): number | undefined {
  return text !== undefined && /^\d{1,15}$/.test(text) ? Number(text) : undefined;
}

/**
 * Starts an HTTP server on which each new stream (a GET without a session) gets
 * `session(connection)`. Contract: resolves once listening; a request without the token gets
 * 401; more than `maxConnections` sessions get 503.
 */
export async function listenHttp(
  options: ListenOptions,
  session: (connection: HttpSession<never>) => void,
): Promise<Listening> {
  const server: Server = options.tls
    ? (await import('node:https')).createServer({ cert: options.tls.cert, key: options.tls.key })
    : (await import('node:http')).createServer();
  const sessions = new Map<string, HttpSession<never>>();
  const maxConnections = options.maxConnections ?? 16;
  const window = options.resumeWindowMs ?? RESUME_WINDOW_MS;
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (options.token !== undefined && !bearerMatches(req.headers.authorization, options.token)) {
      res.setHeader('www-authenticate', 'Bearer');
      return refuse(res, 401, 'a valid bearer token is needed');
    }
    const id = header(req, SESSION_HEADER);
    const known = id === undefined ? undefined : sessions.get(id);
    if (id !== undefined && !known) return refuse(res, 404, 'no such session');
    if (req.method === 'GET') {
      if (known) {
        const lastId = counter(header(req, 'last-event-id'));
        if (lastId === undefined) return refuse(res, 400, 'a resume needs Last-Event-ID');
        return known.attach(res, lastId);
      }
      if (sessions.size >= maxConnections) return refuse(res, 503, 'too many sessions');
      const created: HttpSession<never> = new HttpSession(window, () =>
        sessions.delete(created.id),
      );
      sessions.set(created.id, created);
      session(created);
      return created.attach(res, undefined);
    }
    if (!known) return refuse(res, 400, `a ${req.method} needs the ${SESSION_HEADER} header`);
    if (req.method === 'POST') {
      const offset = counter(header(req, OFFSET_HEADER));
      if (offset === undefined) return refuse(res, 400, `a POST needs ${OFFSET_HEADER}`);
      return known.receive(req, res, offset, counter(header(req, ACK_HEADER)));
    }
    if (req.method === 'DELETE') {
      known.close();
      res.writeHead(204).end();
      return;
    }
    refuse(res, 405, 'GET, POST or DELETE');
  });
  const { port, url } = await startListening(server, options, options.tls ? 'https' : 'http');
  return {
    port,
    url,
    close: () =>
      new Promise<void>((resolve) => {
        for (const open of [...sessions.values()]) void open.terminate();
        server.close(() => resolve());
        server.closeAllConnections?.();
      }),
  };
}
