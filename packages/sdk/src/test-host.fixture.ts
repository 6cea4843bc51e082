// A scripted host for the SDK's unit tests: the other end of an in-memory link, recording
// every frame the extension writes (decoded by the protocol's own checks).
import {
  decodeFromExtension,
  InMemoryTransport,
  type FrameFromExtension,
  type FrameFromHost,
  type HelloAckFrame,
} from '@zot/protocol';
import { createExtension, type Extension, type ExtensionOptions } from './index.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Reply = { type: string; id: string } & Record<string, any>;

export type Received = FrameFromExtension | { type: 'invalid'; line: string; error: string };

export class TestHost {
  readonly frames: Received[] = [];
  readonly stderr: string[] = [];
  readonly exits: number[] = [];
  readonly ext: Extension;
  private readonly hostEnd: InMemoryTransport<FrameFromHost>;
  private waiters: Array<() => void> = [];
  private nextId = 1;

  constructor(options: Partial<ExtensionOptions> = {}) {
    const [hostEnd, extEnd] = InMemoryTransport.createLinkedPair<
      FrameFromHost,
      FrameFromExtension
    >();
    this.hostEnd = hostEnd;
    hostEnd.start({
      onLine: (line) => {
        const decoded = decodeFromExtension(line);
        this.frames.push(
          decoded.ok ? decoded.frame : { type: 'invalid', line, error: decoded.error },
        );
        for (const waiter of this.waiters.splice(0)) waiter();
      },
      onExit: () => undefined,
    });
    this.ext = createExtension({
      name: 'test',
      version: '1.2.3',
      transport: extEnd,
      exit: (code) => this.exits.push(code),
      stderr: (text) => this.stderr.push(text),
      ...options,
    });
  }

  send(frame: FrameFromHost): void {
    this.hostEnd.send(frame);
  }

  /** One line as written (bytes are sent as they are, not as UTF-8 text). */
  sendRaw(line: string | Uint8Array): void {
    this.hostEnd.sendRaw(
      typeof line === 'string' ? line + '\n' : Buffer.concat([line, Buffer.from('\n')]),
    );
  }

  ack(fields: Partial<HelloAckFrame> = {}): void {
    this.send({
      type: 'hello_ack',
      protocol_version: 1,
      zot_version: '9.9.9',
      provider: 'anthropic',
      model: 'm1',
      cwd: '/project',
      extension_dir: '/ext',
      data_dir: '/ext',
      ...fields,
    });
  }

  /** Waits until a frame matching `pred` has arrived (from index `from`); returns it. */
  async waitFor<T extends Received>(
    pred: (frame: Received) => frame is T,
    from = 0,
    ms = 2000,
  ): Promise<T> {
    const deadline = Date.now() + ms;
    for (;;) {
      const found = this.frames.slice(from).find(pred);
      if (found) return found;
      if (Date.now() > deadline) {
        throw new Error(`timed out; frames: ${JSON.stringify(this.frames)}`);
      }
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 20);
      });
    }
  }

  async waitType<K extends Received['type']>(
    type: K,
    from = 0,
  ): Promise<Extract<Received, { type: K }>> {
    return this.waitFor((f): f is Extract<Received, { type: K }> => f.type === type, from);
  }

  /** Sends a request with a fresh id and waits for the frame answering it (loosely typed). */
  async request(
    frame: { type: 'tool_call' | 'command_invoked' | 'event_intercept' } & Record<string, unknown>,
  ): Promise<Reply> {
    const id = `r${this.nextId++}`;
    this.send({ ...frame, id } as unknown as FrameFromHost);
    return (await this.waitFor(
      (f): f is Received & { id: string } => 'id' in f && f.id === id,
    )) as Reply;
  }

  /** Starts the extension and completes the handshake (waits for ready). */
  async start(fields: Partial<HelloAckFrame> = {}): Promise<{ running: Promise<void> }> {
    const running = this.ext.run();
    await this.waitType('hello');
    this.ack(fields);
    await this.waitType('ready');
    return { running };
  }
}
