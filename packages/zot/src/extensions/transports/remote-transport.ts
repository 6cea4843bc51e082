// What the WebSocket and HTTP transports share: the connection's agent (a proxy tunnel) worked
// out before connecting, the exit reported once, the refusal of droppable frames while too much
// waits, held events while reading is paused, and a close that waits out the grace.
import type { Agent } from 'node:http';
import type { FrameFromHost, SendOptions, TransportExit, TransportHandlers } from '@zot/protocol';
import type { ExtensionLog } from '../log.js';
import { MAX_QUEUED_BYTES, type ExtensionTransport } from '../transport.js';
import { HeldEvents } from '../held-events.js';
import { displayUrl, type RemoteConfig } from '../../ext-setup/remote-config.js';
import type { AgentFor } from './remote-connect.js';

export interface RemoteSpec {
  config: RemoteConfig;
  /** The bearer token (never logged). */
  token?: string | undefined;
  /** The agent for the connection (a proxy tunnel); absent: a direct connection. */
  agent?: AgentFor | undefined;
  /** How long the connection (TCP, TLS, upgrade) may take. */
  connectTimeoutMs: number;
  /** After close(), how long the other side has to close before the socket is destroyed. */
  closeGraceMs: number;
}

/** Contract: onExit fires exactly once; the token is never written anywhere. */
export abstract class RemoteTransport implements ExtensionTransport {
  readonly pid = undefined;
  protected handlers: TransportHandlers | undefined;
  protected open = false;
  protected exited: TransportExit | undefined;
  protected readonly events = new HeldEvents();
  protected readonly closed: Promise<void>;
  protected markClosed!: () => void;

  constructor(
    protected readonly spec: RemoteSpec,
    protected readonly log: ExtensionLog,
  ) {
    this.closed = new Promise((resolve) => (this.markClosed = resolve));
  }

  abstract start(handlers: TransportHandlers): void;
  abstract send(frame: FrameFromHost, options?: SendOptions): boolean;
  abstract setReading(on: boolean): void;
  abstract close(): void;
  abstract terminateNow(): void;
  /** Characters of frames waiting to go out. */
  protected abstract backlogBytes(): number;
  /** Stops timers, drops what waits to go out and ends the connections (on exit). */
  protected abstract release(): void;

  protected get shown(): string {
    return displayUrl(this.spec.config.url);
  }

  /**
   * The agent to connect through (undefined: directly), or undefined after reporting why
   * there is none (the exit is then done).
   */
  protected async connectionAgent(): Promise<{ agent: Agent | undefined } | undefined> {
    const url = new URL(this.spec.config.url);
    const agent = this.spec.agent
      ? await this.spec.agent(url).catch((error: Error) => error)
      : undefined;
    if (this.exited) return undefined;
    if (agent instanceof Error || (agent && 'error' in agent)) {
      const why = agent instanceof Error ? agent.message : agent.error;
      this.finish({ spawnError: why, disconnected: `could not connect: ${why}` });
      return undefined;
    }
    return { agent: agent as Agent | undefined };
  }

  /** A frame `send` refuses: droppable while too much already waits (see ProcessTransport). */
  protected refuses(options: SendOptions): boolean {
    return options.droppable === true && this.backlogBytes() > MAX_QUEUED_BYTES;
  }

  /** The link is over: once, logged, then the handlers are told at once (held lines no longer matter). */
  protected finish(info: { spawnError?: string; disconnected: string }): void {
    if (this.exited) return;
    this.exited = { code: null, signal: null, ...info };
    this.release();
    this.log.write(`${this.shown}: ${info.disconnected}`);
    this.open = false;
    this.markClosed();
    this.handlers?.onExit(this.exited);
  }

  /** Closes as close() does, then ends the link (terminateNow) if it is not closed in the grace. */
  async terminate(): Promise<void> {
    this.close();
    const timer = setTimeout(() => this.terminateNow(), this.spec.closeGraceMs);
    await this.closed;
    clearTimeout(timer);
    this.events.clear();
  }
}
