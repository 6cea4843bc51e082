// The HTTP transport's POST in flight, watched for a stall: one whose connection has moved no
// bytes for the timeout is destroyed (the transport then sends it again). One interval per
// transport, checked ten times per timeout while POSTs are being made, replaces a socket timeout
// armed on every POST: arming a request's timeout costs tens of microseconds, and every tool
// call is a POST. A stall is noticed between one and 1.2 timeouts after the last byte moved.
import type { ClientRequest } from 'node:http';

const CHECKS_PER_TIMEOUT = 10;

export class PostWatch {
  private timer: NodeJS.Timeout | undefined;
  private request: ClientRequest | undefined;
  /** Bytes the request's connection had moved at the last check, and since when unchanged. */
  private moved = -1;
  private quietSince = 0;
  private idleChecks = 0;

  constructor(private readonly timeoutMs: number) {}

  /** Watches `request`, the one POST in flight, from now on. */
  watch(request: ClientRequest): void {
    this.request = request;
    this.moved = -1;
    this.quietSince = Date.now();
    this.idleChecks = 0;
    if (this.timer !== undefined) return;
    const every = Math.max(10, Math.ceil(this.timeoutMs / CHECKS_PER_TIMEOUT));
    this.timer = setInterval(this.check, every);
    this.timer.unref(); // as a socket timeout: it never keeps the process alive by itself
  }

  /** `request` was answered or failed: nothing to watch until the next POST. */
  done(request: ClientRequest | undefined): void {
    if (this.request === request) this.request = undefined;
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.request = undefined;
  }

  private readonly check = (): void => {
    const request = this.request;
    if (request === undefined) {
      // No POST for a whole timeout: the interval stops until the next one.
      if (++this.idleChecks >= CHECKS_PER_TIMEOUT) this.stop();
      return;
    }
    const socket = request.socket;
    const moved = socket ? socket.bytesRead + socket.bytesWritten : -1;
    const now = Date.now();
    if (moved !== this.moved) {
      this.moved = moved;
      if (this.moved !== -1) this.quietSince = now;
      return;
    }
    if (now - this.quietSince < this.timeoutMs) return;
    this.request = undefined;
    request.destroy(Object.assign(new Error('timed out'), { code: 'ETIMEDOUT' }));
  };
}
