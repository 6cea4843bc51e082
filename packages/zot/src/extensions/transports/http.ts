// The HTTP transport: one remote extension over plain HTTP requests. zot opens a session with a
// GET whose answer is a long-lived event stream (the extension's frames, numbered `id: N`), and
// sends its own frames as POSTs of NDJSON. A dropped stream is resumed (GET again with the
// session and Last-Event-ID; the server resends what came after); a POST that failed is sent
// again with the same offset, and the server skips what it already read. A POST's answer may
// carry the events the server sent while handling it (a tool's result: one request, one answer);
// events from both carriers are put back in order by id. Frames are delivered once and in order
// both ways; a drop that cannot be resumed is an exit (a crash).
import type { Agent, ClientRequest, IncomingMessage } from 'node:http';
import {
  encodeFrame,
  type FrameFromHost,
  type SendOptions,
  type TransportHandlers,
} from '@zot/protocol';
import type { ExtensionLog } from '../log.js';
import { RemoteTransport, type RemoteSpec } from './remote-transport.js';
import { SseReader, type EventItem } from './sse-reader.js';
import { EventOrder, type Carrier } from './event-order.js';
import {
  ACK_HEADER,
  directAgent,
  EVENT_STREAM,
  isEventStream,
  networkProblem,
  OFFSET_HEADER,
  readAnswer,
  SESSION_HEADER,
  startRequest,
  statusProblem,
  streamProblem,
  type WireTarget,
} from './http-wire.js';
import type { LineSink } from '../held-events.js';
import { PostWatch } from './post-watch.js';

/** Most bytes of frames in one POST (a larger single frame goes alone). */
const BATCH_BYTES = 1024 * 1024;
/** Events received before zot tells the server (on a POST) that it may forget them. */
const ACK_EVERY_EVENTS = 256;
const ACK_DELAY_MS = 1000;
/** The server comments every 15 s; a stream silent for this long is dead and is resumed. */
const STREAM_IDLE_MS = 45_000;

/**
 * A POST of frames: its body (a string: Node writes it in one piece with the request's head),
 * its length in bytes, and the request carrying it (one attempt at a time).
 */
interface Inflight {
  body: string;
  bytes: number;
  request?: ClientRequest;
}

/** Contract: as WebSocketTransport (transport.ts); the token is never written anywhere. */
export class HttpTransport extends RemoteTransport {
  private sink: LineSink | undefined;
  private target: WireTarget | undefined;
  /** The agent of a direct link (see directAgent); a proxy's is not ours to end. */
  private ownAgent: Agent | undefined;
  private session: string | undefined;
  private stream: ClientRequest | undefined;
  private serverEnded = false;
  /** The server ended the session while a POST's answer was still to be read. */
  private endAfterPost = false;
  private closing = false;
  private deleting = false;
  /** Events from the stream and POST answers, in order; the last id a POST acknowledged. */
  private readonly order = new EventOrder((items) => {
    for (const item of items) this.deliverItem(item);
  });
  private ackedId = 0;
  private ackTimer: NodeJS.Timeout | undefined;
  private readonly queue: string[] = [];
  private queuedBytes = 0;
  /** Bytes of zot's frame stream the server confirmed; the POST in flight, if any. */
  private posted = 0;
  private inflight: Inflight | undefined;
  private postFailingSince: number | undefined;
  private postFailures = 0;
  private resumingSince: number | undefined;
  private resumeAttempts = 0;
  private retryTimer: NodeJS.Timeout | undefined;
  private idleTimer: NodeJS.Timeout | undefined;
  private lastBytesAt = 0;
  private response: IncomingMessage | undefined;
  /** The answer of the POST in flight, while its events are read. */
  private answer: IncomingMessage | undefined;
  private answerReader: SseReader | undefined;
  /** A POST whose connection moves nothing for the connection timeout is dropped and sent again. */
  private readonly postWatch: PostWatch;

  constructor(spec: RemoteSpec, log: ExtensionLog) {
    super(spec, log);
    this.postWatch = new PostWatch(spec.connectTimeoutMs);
  }

  start(handlers: TransportHandlers): void {
    this.handlers = handlers;
    this.sink = this.events.sinkFor(handlers);
    this.log.write(`connecting to ${this.shown}`);
    void this.begin();
  }

  private async begin(): Promise<void> {
    const via = await this.connectionAgent();
    if (via === undefined) return;
    // A proxy's tunnel agent is shared; a direct link has an agent of its own.
    if (via.agent === undefined) this.ownAgent = directAgent(this.spec.config.url);
    const agent = via.agent ?? this.ownAgent;
    this.target = { config: this.spec.config, token: this.spec.token, agent };
    this.openStream(false);
  }

  /** GETs the event stream: a new session, or (`resume`) the current one after lastId. */
  private openStream(resume: boolean): void {
    const headers = ['accept', EVENT_STREAM];
    if (resume)
      headers.push(SESSION_HEADER, this.session!, 'last-event-id', String(this.order.lastId));
    let request: ClientRequest;
    try {
      request = startRequest(this.target!, 'GET', headers);
    } catch (error) {
      return this.streamFailed(undefined, error);
    }
    this.stream = request;
    const timer = setTimeout(() => {
      const error = Object.assign(new Error('timed out'), { code: 'ETIMEDOUT' });
      request.destroy(error);
    }, this.spec.connectTimeoutMs);
    request.on('response', (res) => {
      clearTimeout(timer);
      void this.attach(request, res, resume);
    });
    request.on('error', (error) => {
      clearTimeout(timer);
      this.streamFailed(request, error);
    });
    request.end();
  }

  private async attach(
    request: ClientRequest,
    res: IncomingMessage,
    resume: boolean,
  ): Promise<void> {
    const problem = await streamProblem(res, this.target!, resume ? this.session : undefined);
    if (this.exited || this.stream !== request) return void res.destroy();
    if (problem !== undefined) {
      res.destroy();
      this.stream = undefined;
      return resume
        ? this.finish({ disconnected: `lost: the stream dropped and could not resume: ${problem}` })
        : this.finish({ spawnError: problem, disconnected: `could not connect: ${problem}` });
    }
    this.session = res.headers[SESSION_HEADER] as string;
    this.response = res;
    this.lastBytesAt = Date.now();
    const reader = this.reader('stream', () => request.destroy());
    res.on('data', (chunk: Buffer) => {
      this.lastBytesAt = Date.now();
      if (this.stream === request) reader.push(chunk);
    });
    res.on('end', () => this.streamEnded(request));
    res.on('close', () => this.streamEnded(request));
    res.on('error', () => this.streamEnded(request));
    if (!this.events.reading) res.pause();
    this.watchIdle();
    if (resume) {
      this.log.write(`resumed the stream of ${this.shown} after event ${this.order.lastId}`);
      this.resumingSince = undefined;
      this.resumeAttempts = 0;
      this.pump();
      return;
    }
    this.open = true;
    this.log.write(`connected to ${this.shown}`);
    this.pump();
  }

  /**
   * A reader of the events on `carrier` (the stream, or a POST's answer), each put in order by
   * id, so nothing is delivered twice; `drop` closes the connection it reads.
   */
  private reader(carrier: Carrier, drop: () => void): SseReader {
    let duplicates = 0;
    return new SseReader({
      onEvent: (id, items) => {
        if (id === undefined) return this.log.write('dropped an event without an id');
        const accepted = this.order.accept(id, items, carrier, this.inflight !== undefined);
        if (accepted === 'delivered') this.ackSoon();
        else if (accepted === 'duplicate') {
          if (duplicates++ === 0) this.log.write(`ignored event ${id}: already received`);
        } else if (accepted !== 'held') {
          drop();
          this.finish({ disconnected: `lost: ${accepted.lost}` });
        }
      },
      onEnd: () =>
        carrier === 'stream'
          ? (this.serverEnded = true)
          : this.log.write('dropped an end event in the answer to a POST'),
      onGarbage: (what) => this.log.write(`dropped ${what}`),
      onOverflow: (bytes) => {
        drop();
        this.finish({
          disconnected: `lost: sent an event of over ${bytes} bytes (frames are at most 32 MiB); connection closed`,
        });
      },
    });
  }

  private deliverItem(item: EventItem): void {
    const sink = this.sink!;
    if (item.kind === 'line') sink.onLine(item.text);
    else if (item.kind === 'oversize') sink.onOversize(item.bytes);
    else sink.onInvalidUtf8(item.length, item.bytes);
  }

  private streamEnded(request: ClientRequest): void {
    if (this.stream !== request || this.exited) return;
    this.stream = undefined;
    this.response = undefined;
    // The server's last events may be in the answer to the POST in flight: read it first.
    if (this.serverEnded && this.inflight) return void (this.endAfterPost = true);
    if (this.serverEnded || this.closing) return this.finish({ disconnected: 'connection closed' });
    this.resume(undefined);
  }

  private streamFailed(request: ClientRequest | undefined, error: unknown): void {
    if ((request && this.stream !== request) || this.exited) return;
    this.stream = undefined;
    this.response = undefined;
    if (!this.open) {
      const why = networkProblem(error, this.target!);
      return this.finish({ spawnError: why, disconnected: `could not connect: ${why}` });
    }
    if (this.closing) return this.finish({ disconnected: 'connection closed' });
    this.resume(error);
  }

  /** Opens the stream again after a drop, within the connection timeout; else the link is lost. */
  private resume(error: unknown): void {
    const code = (error as NodeJS.ErrnoException | undefined)?.code;
    const why = error === undefined ? 'the stream ended' : networkProblem(error, this.target!);
    if (code === 'ECONNREFUSED')
      return this.finish({ disconnected: `lost: the stream dropped and ${why}` });
    const now = Date.now();
    if (this.resumingSince === undefined) {
      this.resumingSince = now;
      this.log.write(`the stream dropped after event ${this.order.lastId} (${why}); resuming`);
    } else if (now - this.resumingSince > this.spec.connectTimeoutMs) {
      const seconds = Math.round(this.spec.connectTimeoutMs / 1000);
      return this.finish({
        disconnected: `lost: the stream dropped and could not be resumed within ${seconds} s (${why})`,
      });
    }
    const delay = this.resumeAttempts++ === 0 ? 0 : Math.min(1000, 50 * 2 ** this.resumeAttempts);
    this.retryTimer = setTimeout(() => this.openStream(true), delay);
  }

  private watchIdle(): void {
    if (this.idleTimer) return;
    this.idleTimer = setInterval(() => {
      if (!this.stream || !this.events.reading || Date.now() - this.lastBytesAt < STREAM_IDLE_MS)
        return;
      this.log.write(`nothing on the stream for ${STREAM_IDLE_MS / 1000} s; reopening it`);
      this.stream.destroy();
    }, STREAM_IDLE_MS / 3);
    this.idleTimer.unref();
  }

  /** Tells the server, on the next POST or a bare one soon, which events it may forget. */
  private ackSoon(): void {
    if (this.order.lastId - this.ackedId >= ACK_EVERY_EVENTS) return this.pump(true);
    this.ackTimer ??= setTimeout(() => {
      this.ackTimer = undefined;
      this.pump(true);
    }, ACK_DELAY_MS);
  }

  /** Sends the next POST when none is in flight: queued frames, or (`ack`) an empty one. */
  private pump(ack = false): void {
    if (!this.open || this.exited || this.inflight || this.stream === undefined) return;
    if (this.queue.length === 0) {
      if (ack && this.order.lastId > this.ackedId) this.post({ body: '', bytes: 0 });
      else if (this.closing && !this.deleting) this.sendDelete();
      return;
    }
    const lines: string[] = [];
    let bytes = 0;
    while (
      this.queue.length > 0 &&
      (lines.length === 0 || bytes + this.queue[0]!.length <= BATCH_BYTES)
    ) {
      const line = this.queue.shift()!;
      this.queuedBytes -= line.length;
      bytes += line.length;
      lines.push(line);
    }
    const body = lines.length === 1 ? lines[0]! : lines.join('');
    this.post({ body, bytes: Buffer.byteLength(body) });
  }

  private post(inflight: Inflight): void {
    this.inflight = inflight;
    const ack = this.order.lastId;
    const request = startRequest(
      this.target!,
      'POST',
      [
        SESSION_HEADER,
        this.session!,
        OFFSET_HEADER,
        String(this.posted),
        ACK_HEADER,
        String(ack),
        'accept',
        EVENT_STREAM,
        'content-type',
        'application/x-ndjson',
      ],
      inflight.bytes,
    );
    inflight.request = request;
    this.postWatch.watch(request);
    request.on('response', (res) => {
      if (this.inflight !== inflight || this.exited) return void res.resume();
      const status = res.statusCode ?? 0;
      if (status < 200 || status > 299) {
        this.postWatch.done(request);
        // The server ended the session (event: end) before this POST reached it.
        if (this.endAfterPost) return this.finish({ disconnected: 'connection closed' });
        void readAnswer(res).then((said) =>
          this.finish({
            disconnected: `lost: ${statusProblem(status, said, this.target!, 'a POST of frames')}`,
          }),
        );
        return;
      }
      if (isEventStream(res)) return this.readPostAnswer(inflight, ack, res);
      res.resume();
      this.postDone(inflight, ack);
    });
    request.on('error', (error) => this.postFailed(inflight, error));
    request.end(inflight.body);
  }

  /** Reads the events a POST was answered with; the POST is done at the answer's end. */
  private readPostAnswer(inflight: Inflight, ack: number, res: IncomingMessage): void {
    this.answer = res;
    // One reader serves every answer (one POST at a time); an answer cut short leaves it
    // mid-event, so the next answer gets a new one.
    const reader = (this.answerReader ??= this.reader('answer', () =>
      this.inflight?.request?.destroy(),
    ));
    res.on('data', (chunk: Buffer) => {
      if (this.answer === res) reader.push(chunk);
    });
    res.on('end', () => {
      if (this.answer !== res) return;
      this.answer = undefined;
      if (!reader.betweenEvents) this.answerReader = undefined; // an event left unfinished
      this.postDone(inflight, ack);
    });
    res.on('close', () => {
      if (this.answer !== res) return;
      this.answer = undefined;
      this.answerReader = undefined;
      this.postFailed(inflight, new Error('the answer to a POST was cut short'));
    });
    if (!this.events.reading) res.pause();
  }

  /** The server read the POST and its answer was read: the next one may go. */
  private postDone(inflight: Inflight, ack: number): void {
    this.postWatch.done(inflight.request);
    if (this.inflight !== inflight || this.exited) return;
    this.posted += inflight.bytes;
    this.ackedId = Math.max(this.ackedId, ack);
    this.inflight = undefined;
    this.postFailingSince = undefined;
    this.postFailures = 0;
    const lost = this.order.answerRead();
    if (lost !== undefined) {
      this.stream?.destroy();
      return this.finish({ disconnected: `lost: ${lost}` });
    }
    if (this.endAfterPost) return this.finish({ disconnected: 'connection closed' });
    this.pump(this.order.lastId - this.ackedId >= ACK_EVERY_EVENTS);
  }

  /** A POST that failed on the way is sent again (same offset) until the connection timeout. */
  private postFailed(inflight: Inflight, error: unknown): void {
    this.postWatch.done(inflight.request);
    if (this.inflight !== inflight || this.exited) return;
    if (this.endAfterPost) return this.finish({ disconnected: 'connection closed' });
    const why = networkProblem(error, this.target!);
    if ((error as NodeJS.ErrnoException).code === 'ECONNREFUSED')
      return this.finish({ disconnected: `lost: ${why}` });
    const now = Date.now();
    this.postFailingSince ??= now;
    if (now - this.postFailingSince > this.spec.connectTimeoutMs)
      return this.finish({ disconnected: `lost: could not send frames (${why})` });
    // A kept-alive connection the server closed as this POST went out: again at once, on a new one.
    const stale = this.postFailures === 0 && inflight.request?.reusedSocket === true;
    const delay = stale ? 0 : Math.min(1000, 50 * 2 ** this.postFailures);
    this.postFailures++;
    this.retryTimer = setTimeout(() => {
      if (this.inflight === inflight && !this.exited) this.post(inflight);
    }, delay);
  }

  private sendDelete(): void {
    this.deleting = true;
    const request = startRequest(this.target!, 'DELETE', [SESSION_HEADER, this.session!]);
    const done = () => {
      this.stream?.destroy();
      this.finish({ disconnected: 'connection closed' });
    };
    request.setTimeout(this.spec.closeGraceMs, () => request.destroy());
    request.on('response', (res) => (res.resume(), res.on('end', done)));
    request.on('error', done);
    request.end();
  }

  protected release(): void {
    clearTimeout(this.ackTimer);
    clearTimeout(this.retryTimer);
    clearInterval(this.idleTimer);
    this.postWatch.stop();
    this.queue.length = 0;
    this.queuedBytes = 0;
    this.stream?.destroy();
    this.inflight?.request?.destroy();
    this.ownAgent?.destroy();
  }

  /** Queues one frame (see ProcessTransport.send for `droppable`). */
  send(frame: FrameFromHost, options: SendOptions = {}): boolean {
    if (this.exited) return true;
    if (this.refuses(options)) return false;
    const line = encodeFrame(frame);
    this.queue.push(line);
    this.queuedBytes += line.length;
    this.pump();
    return true;
  }

  protected backlogBytes(): number {
    return this.queuedBytes + (this.inflight?.bytes ?? 0);
  }

  /** Pauses or resumes reading the stream: the server's writes back up in TCP. */
  setReading(on: boolean): void {
    this.events.setReading(on, this.pauseStream, this.resumeStream);
  }

  // Made once: setReading runs twice a call (a request added, then settled).
  private readonly pauseStream = (): void => {
    this.response?.pause();
    this.answer?.pause();
  };
  private readonly resumeStream = (): void => {
    this.lastBytesAt = Date.now();
    this.response?.resume();
    this.answer?.resume();
  };

  /** Ends the session once queued frames are sent (a DELETE), as a normal close. */
  close(): void {
    if (this.closing || this.exited) return;
    this.closing = true;
    if (!this.open) {
      this.stream?.destroy();
      return this.finish({ disconnected: 'connection closed' });
    }
    this.pump();
  }

  override async terminate(): Promise<void> {
    if (!this.exited && !this.stream && !this.open) {
      this.finish({ disconnected: 'connection closed' });
      return;
    }
    return super.terminate();
  }

  terminateNow(): void {
    this.finish({ disconnected: 'connection closed' });
  }
}
