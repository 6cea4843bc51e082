// Host unit tests without processes: scripted extensions on the far end of in-memory links,
// and an ExtensionHost whose extensions are connected to them.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import {
  InMemoryTransport,
  type FrameFromExtension,
  type FrameFromHost,
  type TransportExit,
} from '@zot/protocol';
import { ExtensionHost, type HostEvent, type HostOptions } from './host.js';
import { extensionLogPath } from './log.js';
import { extensionTimeouts } from './timeouts.js';

export interface FakeScript {
  commands?: string[];
  tools?: string[];
  /** Registered with `deferred: true`. */
  deferredTools?: string[];
  /** Extra hello fields (e.g. protocol_version). */
  hello?: Record<string, unknown>;
  /** Extra manifest fields (e.g. restart, intercept_failure). */
  manifest?: Record<string, unknown>;
  /** Registers and says ready this long after hello_ack (default: at once). */
  readyAfterMs?: number;
  /** Asked at each spawn: a status to exit with before hello (a failed start), or undefined. */
  exitBeforeHello?(): number | undefined;
  /** Extra handling of each frame from the host, after the built-in replies. */
  onFrame?(frame: FrameFromHost, fake: FakeExtension): void;
}

/**
 * Says hello, registers on hello_ack and sends ready; on shutdown acks and exits (status 0).
 * Every frame it receives is kept in `received`.
 */
export class FakeExtension {
  readonly received: FrameFromHost[] = [];
  private readonly waiters: Array<() => void> = [];

  constructor(
    readonly name: string,
    readonly end: InMemoryTransport<FrameFromExtension>,
    private readonly script: FakeScript,
  ) {
    end.start({
      onLine: (line) => this.onFrame(JSON.parse(line) as FrameFromHost),
      onExit: () => undefined,
    });
    const status = script.exitBeforeHello?.();
    if (status !== undefined) void this.exit(status);
    else this.send({ type: 'hello', name, version: '1.0.0', ...script.hello });
  }

  send(frame: FrameFromExtension): void {
    this.end.send(frame);
  }

  /** The process "exits" with `code`. */
  exit(code: number): Promise<void> {
    const info: TransportExit = { code, signal: null };
    return this.end.terminate(info);
  }

  /** The first received frame (earlier or later) that matches. */
  async next<T extends FrameFromHost['type']>(
    type: T,
    match: (frame: Extract<FrameFromHost, { type: T }>) => boolean = () => true,
  ): Promise<Extract<FrameFromHost, { type: T }>> {
    for (;;) {
      const found = this.received.find(
        (frame): frame is Extract<FrameFromHost, { type: T }> =>
          frame.type === type && match(frame as Extract<FrameFromHost, { type: T }>),
      );
      if (found) return found;
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  private register(): void {
    for (const name of this.script.commands ?? [])
      this.send({ type: 'register_command', name, description: name });
    for (const name of this.script.tools ?? [])
      this.send({ type: 'register_tool', name, description: name });
    for (const name of this.script.deferredTools ?? [])
      this.send({ type: 'register_tool', name, description: name, deferred: true });
    this.send({ type: 'ready' });
  }

  private onFrame(frame: FrameFromHost): void {
    this.received.push(frame);
    if (frame.type === 'hello_ack') {
      if (this.script.readyAfterMs === undefined) this.register();
      else setTimeout(() => this.register(), this.script.readyAfterMs);
    } else if (frame.type === 'shutdown') {
      this.send({ type: 'shutdown_ack' });
      void this.exit(0);
    }
    this.script.onFrame?.(frame, this);
    for (const wake of this.waiters.splice(0)) wake();
  }
}

export interface FakeHost {
  host: ExtensionHost;
  events: HostEvent[];
  /** The current fake of each extension (a reload connects new ones). */
  fakes: Map<string, FakeExtension>;
  log(name: string): string;
  cleanup(): void;
}

/**
 * A host over `--ext` directories named after `scripts` (exec `node`, never spawned): each
 * extension is connected to a FakeExtension. Call host.start() yourself. `events` records what
 * the host emits, unless `subscribe: false` (the test subscribes itself).
 */
export function fakeHost(
  scripts: Record<string, FakeScript>,
  { subscribe = true, ...options }: Partial<HostOptions> & { subscribe?: boolean } = {},
): FakeHost {
  const base = mkdtempSync(join(tmpdir(), 'zot-host-'));
  const logsDir = join(base, 'logs');
  const extPaths = Object.keys(scripts).map((name) => {
    const dir = join(base, name);
    mkdirSync(dir);
    const manifest = { name, exec: 'node', ...scripts[name]!.manifest };
    writeFileSync(join(dir, 'extension.json'), JSON.stringify(manifest));
    return dir;
  });
  const fakes = new Map<string, FakeExtension>();
  const events: HostEvent[] = [];
  const host = new ExtensionHost({
    cwd: base,
    zotHome: join(base, 'home'),
    logsDir,
    extPaths,
    noExt: true,
    version: '0.0.0-test',
    model: () => ({ provider: 'test', model: 'test-model' }),
    builtins: { commands: new Set(['help']), tools: new Set(['read']) },
    timeouts: extensionTimeouts({}),
    transport: (spec) => {
      const name = basename(spec.cwd);
      const [hostEnd, extEnd] = InMemoryTransport.createLinkedPair<
        FrameFromHost,
        FrameFromExtension
      >();
      fakes.set(name, new FakeExtension(name, extEnd, scripts[name] ?? {}));
      return hostEnd;
    },
    ...options,
  });
  if (subscribe) host.subscribe((event) => events.push(event));
  return {
    host,
    events,
    fakes,
    log: (name) => readFileSync(extensionLogPath(logsDir, name), 'utf8'),
    cleanup: () => rmSync(base, { recursive: true, force: true }),
  };
}
