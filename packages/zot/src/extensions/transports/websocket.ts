// The WebSocket transport: one remote extension over one WebSocket connection, one text message
// per frame. It keeps the child-process transport's contract (transport.ts), so the handshake,
// timeouts, bounds, back-pressure and supervision above it are the stdio ones: a dropped
// connection is an exit, which the supervisor treats as a crash.
import { isUtf8 } from 'node:buffer';
import { createRequire } from 'node:module';
import {
  encodeFrameMessage,
  MAX_FRAME_BYTES,
  type FrameFromHost,
  type SendOptions,
  type TransportHandlers,
} from '@zot/protocol';
import { LineSplitter } from '@zot/protocol/jsonl';
import type WebSocketType from 'ws';
import { connectionProblem } from './remote-connect.js';
import { RemoteTransport, type RemoteSpec } from './remote-transport.js';

export type { RemoteSpec };

/**
 * A message larger than this closes the connection (a crash); one between the frame limit and
 * this is read, counted and dropped like an oversize stdio line, and the link stays up.
 */
export const MAX_MESSAGE_BYTES = 2 * MAX_FRAME_BYTES;
/** A connection that answers no ping for this long is gone (a network that died silently). */
const PING_INTERVAL_MS = 15_000;
const LF = Buffer.of(0x0a);

const require = createRequire(import.meta.url);
let wsModule: typeof WebSocketType | undefined;
/** `ws` loads with the first remote extension only. */
function webSocketClass(): typeof WebSocketType {
  return (wsModule ??= require('ws') as typeof WebSocketType);
}

/**
 * Contract: as ProcessTransport: callbacks never throw into the transport; writes stay in order;
 * reading can be paused; onExit fires exactly once (a refused or dropped connection included);
 * the token is never written anywhere.
 */
export class WebSocketTransport extends RemoteTransport {
  private socket: WebSocketType | undefined;
  private readonly queue: string[] = [];
  private closing = false;
  private pingTimer: NodeJS.Timeout | undefined;
  private awaitingPong = false;
  private splitter: LineSplitter | undefined;

  start(handlers: TransportHandlers): void {
    this.handlers = handlers;
    this.log.write(`connecting to ${this.shown}`);
    void this.connect(handlers);
  }

  private async connect(handlers: TransportHandlers): Promise<void> {
    const via = await this.connectionAgent();
    if (via === undefined) return;
    const { agent } = via;
    const url = new URL(this.spec.config.url);
    const headers: Record<string, string> = { ...this.spec.config.headers };
    if (this.spec.token) headers.authorization = `Bearer ${this.spec.token}`;
    let socket: WebSocketType;
    try {
      const WebSocket = webSocketClass();
      socket = new WebSocket(url, {
        headers,
        ...(agent ? { agent } : {}),
        handshakeTimeout: this.spec.connectTimeoutMs,
        maxPayload: MAX_MESSAGE_BYTES,
        perMessageDeflate: false,
        // Invalid UTF-8 is dropped and logged like a stdio line, not a reason to close.
        skipUTF8Validation: true,
        followRedirects: false,
      });
    } catch (error) {
      const why = connectionProblem(error, this.spec.config, this.spec.token !== undefined);
      return this.finish({ spawnError: why, disconnected: `could not connect: ${why}` });
    }
    this.socket = socket;
    this.splitter = new LineSplitter(this.events.sinkFor(handlers));
    let failure: string | undefined;
    socket.on('open', () => {
      this.open = true;
      this.log.write(`connected to ${this.shown}`);
      this.startPings();
      this.flush();
    });
    socket.on('message', (data, isBinary) => this.receive(data, isBinary));
    socket.on('pong', () => (this.awaitingPong = false));
    socket.on('error', (error) => {
      failure ??= connectionProblem(error, this.spec.config, this.spec.token !== undefined);
    });
    socket.on('close', (code, reason) => {
      this.markClosed();
      const text = reason
        .toString('utf8')
        .slice(0, 200)
        .replace(/[^\x20-\x7e]/g, '?');
      if (!this.open) {
        const why = failure ?? `the connection closed during the handshake (${code})`;
        return this.finish({ spawnError: why, disconnected: `could not connect: ${why}` });
      }
      const how =
        failure ??
        (this.closing
          ? 'connection closed'
          : `closed the connection (${code}${text ? ` ${text}` : ''})`);
      // A normal close (1000) is the extension's own choice, like a process exiting with 0.
      const lost = failure !== undefined || (!this.closing && code !== 1000);
      this.finish({ disconnected: lost ? `lost: ${how}` : how });
    });
    if (!this.events.reading) socket.pause();
  }

  /** Each message is one frame; a message with LFs in it is read as several lines, like stdio. */
  private receive(data: WebSocketType.RawData, isBinary: boolean): void {
    if (isBinary) {
      this.log.write(
        `dropped a binary message of ${byteLength(data)} bytes: frames are text messages`,
      );
      return;
    }
    const splitter = this.splitter!;
    if (Buffer.isBuffer(data) && isPlainLine(data)) {
      // The usual message, one whole frame: the line the splitter would make, without it.
      const line = data.toString('utf8');
      if (this.events.runsNow) this.handlers!.onLine(line);
      else this.events.deliver(() => this.handlers!.onLine(line));
      return;
    }
    if (Buffer.isBuffer(data)) splitter.push(data);
    else if (Array.isArray(data)) for (const chunk of data) splitter.push(chunk);
    else splitter.push(Buffer.from(data));
    splitter.push(LF);
  }

  private startPings(): void {
    this.pingTimer = setInterval(() => {
      const socket = this.socket;
      if (!socket || socket.readyState !== socket.OPEN) return;
      if (this.awaitingPong) {
        this.log.write(`no answer to a ping for ${PING_INTERVAL_MS / 1000} s; dropping the link`);
        socket.terminate();
        return;
      }
      this.awaitingPong = true;
      socket.ping();
    }, PING_INTERVAL_MS);
    this.pingTimer.unref();
  }

  protected release(): void {
    clearInterval(this.pingTimer);
    this.queue.length = 0;
  }

  /** Queues one frame (see ProcessTransport.send for `droppable`). */
  send(frame: FrameFromHost, options: SendOptions = {}): boolean {
    if (this.exited) return true;
    if (this.refuses(options)) return false;
    const message = encodeFrameMessage(frame);
    // The usual case goes straight out; order is kept (nothing queued goes after it).
    if (this.open && this.queue.length === 0) this.socket!.send(message);
    else {
      this.queue.push(message);
      if (this.open) this.flush();
    }
    return true;
  }

  protected backlogBytes(): number {
    let queued = 0;
    for (const line of this.queue) queued += line.length;
    return queued + (this.socket?.bufferedAmount ?? 0);
  }

  private flush(): void {
    const socket = this.socket;
    if (!socket || !this.open) return;
    while (this.queue.length > 0) socket.send(this.queue.shift()!);
  }

  /** Pauses or resumes reading (the socket itself: the server's sends back up in TCP). */
  setReading(on: boolean): void {
    this.events.setReading(on, this.pauseSocket, this.resumeSocket);
  }

  // Made once: setReading runs twice a call (a request added, then settled).
  private readonly pauseSocket = (): void => this.socket?.pause();
  private readonly resumeSocket = (): void => this.socket?.resume();

  /** Closes the connection once queued frames are sent (a normal close, 1000). */
  close(): void {
    const socket = this.socket;
    if (!socket || this.closing) return;
    this.closing = true;
    this.flush();
    if (socket.readyState === socket.CONNECTING) socket.terminate();
    else socket.close(1000, 'zot is done');
  }

  /** Closes the connection; destroys it when the other side does not close within the grace. */
  override async terminate(): Promise<void> {
    if (!this.socket) {
      if (!this.exited) this.finish({ disconnected: 'connection closed' });
      return;
    }
    return super.terminate();
  }

  terminateNow(): void {
    this.socket?.terminate();
  }
}

/**
 * A message that is exactly one line as LineSplitter reads it: not empty, within the frame
 * limit, no LF, no trailing CR, valid UTF-8. Anything else goes through the splitter.
 */
function isPlainLine(data: Buffer): boolean {
  const length = data.length;
  return (
    length > 0 &&
    length <= MAX_FRAME_BYTES &&
    data[length - 1] !== 0x0d &&
    data.indexOf(0x0a) === -1 &&
    isUtf8(data)
  );
}

function byteLength(data: WebSocketType.RawData): number {
  if (Array.isArray(data)) return data.reduce((sum, chunk) => sum + chunk.length, 0);
  return (data as ArrayBuffer | Buffer).byteLength;
}
