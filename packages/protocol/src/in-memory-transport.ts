// Two linked transports in one process (like MCP's InMemoryTransport): what one end sends,
// the other reads as lines, through the same JSONL splitter as a pipe. For unit tests of a
// host or an SDK without processes.
import { encodeFrame } from './decode.js';
import { LineSplitter } from './jsonl.js';
import type { SendOptions, Transport, TransportExit, TransportHandlers } from './transport.js';

type Item =
  | { kind: 'line'; line: string }
  | { kind: 'oversize'; byteLength: number }
  | { kind: 'invalid'; byteLength: number; bytes: Uint8Array }
  | { kind: 'end' }
  | { kind: 'exit'; info: TransportExit };

const SEVERED: TransportExit = { code: null, signal: null };

/**
 * One end of an in-memory link. Delivery is asynchronous (a microtask per batch), ordered,
 * and held while reading is paused; an exit is delivered even then (as a process exit is),
 * and lines still held after it are dropped.
 * Contract: as Transport; what is sent before the other end starts waits for it.
 */
export class InMemoryTransport<Out extends { readonly type: string }> implements Transport<Out> {
  private other!: InMemoryTransport<{ readonly type: string }>;
  private handlers: TransportHandlers | undefined;
  private readonly inbox: Item[] = [];
  private reading = true;
  private scheduled = false;
  private draining = false;
  /** The other end closed its output (or the link was severed): nothing more arrives. */
  private inputEnded = false;
  private outputClosed = false;
  private exited: TransportExit | undefined;
  private exitDelivered = false;
  private exitWaiters: Array<() => void> = [];
  private readonly splitter: LineSplitter;

  /** Two ends: frames of type A go from the first to the second, frames of type B back. */
  static createLinkedPair<A extends { readonly type: string }, B extends { readonly type: string }>(
    options: { maxLineBytes?: number } = {},
  ): [InMemoryTransport<A>, InMemoryTransport<B>] {
    const a = new InMemoryTransport<A>(options);
    const b = new InMemoryTransport<B>(options);
    a.other = b as InMemoryTransport<{ readonly type: string }>;
    b.other = a as InMemoryTransport<{ readonly type: string }>;
    return [a, b];
  }

  private constructor(options: { maxLineBytes?: number }) {
    const push = (item: Item) => this.inbox.push(item);
    this.splitter = new LineSplitter({
      ...(options.maxLineBytes !== undefined ? { maxLineBytes: options.maxLineBytes } : {}),
      onLine: (line) => push({ kind: 'line', line }),
      onOversize: (byteLength) => push({ kind: 'oversize', byteLength }),
      // Copied: the splitter's bytes are valid only during the call.
      onInvalidUtf8: (byteLength, bytes) =>
        push({ kind: 'invalid', byteLength, bytes: Uint8Array.from(bytes) }),
    });
  }

  /** Whether the link is gone (this end saw, or will see, onExit). */
  get ended(): boolean {
    return this.exited !== undefined;
  }

  start(handlers: TransportHandlers): void {
    this.handlers = handlers;
    this.schedule();
  }

  send(frame: Out, _options?: SendOptions): boolean {
    this.sendRaw(encodeFrame(frame));
    return true;
  }

  /** Writes bytes as they are (partial, malformed, not UTF-8): for tests of a receiver. */
  sendRaw(data: string | Uint8Array): void {
    if (this.outputClosed || this.exited) return;
    this.other.receive(data);
  }

  setReading(on: boolean): void {
    if (this.reading === on) return;
    this.reading = on;
    if (on) this.schedule();
  }

  close(): void {
    if (this.outputClosed) return;
    this.outputClosed = true;
    this.other.endInput();
  }

  /** Severs the link: both ends read end of input, then exit with `info` (e.g. a status). */
  terminate(info: TransportExit = SEVERED): Promise<void> {
    this.terminateNow(info);
    return this.exitDelivered ? Promise.resolve() : new Promise((r) => this.exitWaiters.push(r));
  }

  /** terminate() without waiting for the delivery. */
  terminateNow(info: TransportExit = SEVERED): void {
    for (const end of [this.other, this as InMemoryTransport<{ readonly type: string }>]) {
      end.outputClosed = true;
      end.endInput();
      if (end.exited) continue;
      end.exited = info;
      end.inbox.push({ kind: 'exit', info });
      end.schedule();
    }
  }

  private receive(data: string | Uint8Array): void {
    if (this.inputEnded) return;
    this.splitter.push(typeof data === 'string' ? data : Uint8Array.from(data));
    this.schedule();
  }

  private endInput(): void {
    if (this.inputEnded) return;
    this.inputEnded = true;
    this.splitter.end();
    this.inbox.push({ kind: 'end' });
    this.schedule();
  }

  private schedule(): void {
    if (this.scheduled || !this.handlers) return;
    this.scheduled = true;
    queueMicrotask(() => {
      this.scheduled = false;
      this.drain();
    });
  }

  private drain(): void {
    const handlers = this.handlers;
    if (!handlers || this.draining) return;
    this.draining = true;
    try {
      while (this.inbox.length > 0 && !this.exitDelivered) {
        const exitIndex = this.reading ? 0 : this.inbox.findIndex((i) => i.kind === 'exit');
        if (exitIndex < 0) return;
        const [item] = this.inbox.splice(exitIndex, 1);
        this.deliver(item!, handlers);
      }
    } finally {
      this.draining = false;
    }
  }

  private deliver(item: Item, handlers: TransportHandlers): void {
    switch (item.kind) {
      case 'line':
        return handlers.onLine(item.line);
      case 'oversize':
        return handlers.onOversize?.(item.byteLength);
      case 'invalid':
        if (handlers.onInvalidUtf8) return handlers.onInvalidUtf8(item.byteLength, item.bytes);
        return handlers.onLine(new TextDecoder().decode(item.bytes));
      case 'end':
        return handlers.onOutputEnd?.();
      case 'exit':
        this.exitDelivered = true;
        this.inbox.length = 0;
        try {
          handlers.onExit(item.info);
        } finally {
          for (const waiter of this.exitWaiters.splice(0)) waiter();
        }
    }
  }
}
