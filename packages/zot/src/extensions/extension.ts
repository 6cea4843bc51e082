// One running extension: spawn, handshake, registrations, replies, and its end.
import {
  negotiateProtocolVersion,
  type ProtocolVersion,
  type EventFrame,
  type FrameFromExtension,
  type FrameFromHost,
} from '@zot/protocol';
import {
  DEFAULT_POLICY,
  RESTARTING,
  type ExtensionContext,
  type ExtensionPolicy,
  type ExtensionState,
  type ReadyKind,
} from './extension-context.js';
import { ExitWatch } from './exit-watch.js';
import { endProcess, whenNoExitFollows } from './extension-ending.js';
import { FrameOutbox } from './frame-outbox.js';
import {
  ArrivalGate,
  brokenReplyIn,
  isShutdownAck,
  readFirstLine,
  readLine,
  type BrokenReply,
  type HelloFrame,
} from './frame-reading.js';
import type { ExtensionLog } from './log.js';
import { Peer, type ReplyFrame } from './peer.js';
import { ProgressRelay } from './progress-relay.js';
import { RegistrationIntake } from './registration-intake.js';
import type { Registrations } from './registrations.js';
import { StartDeadlines } from './start-deadlines.js';
import { errorMessage } from '../util/errors.js';
import {
  loadSchemaCheck,
  type CommandRegistration,
  type ToolRegistration,
} from './registrations.js';
import { describeExit, type ExitInfo, type ExtensionTransport } from './transport.js';

export * from './extension-context.js';

export class RunningExtension {
  state: ExtensionState = 'starting';
  readyKind: ReadyKind | undefined;
  failure: string | undefined;
  readonly warnings: string[] = [];
  /** What it registered: commands, tools and its subscription. */
  private readonly registrations = new RegistrationIntake(
    (message) => this.warn(message),
    (message) => this.log.write(message),
  );
  /** Its commands (keyed by lower-case name) and tools. */
  readonly commands: Map<string, CommandRegistration> = this.registrations.commands;
  readonly tools: Map<string, ToolRegistration> = this.registrations.tools;
  shutdownAcked = false;
  /**
   * The protocol version negotiated in this process's hello (1 until then, and for an extension
   * that named none): frames of a later version are neither sent to it nor taken from it.
   */
  protocolVersion: ProtocolVersion = 1;
  readonly peer: Peer;
  private readonly outbox: FrameOutbox;
  /** tool_progress lines, routed to the calls in flight. */
  readonly progress = new ProgressRelay(
    (message) => this.warn(message),
    (message) => this.log.write(message),
  );
  /** Set while shutting down a live process: its calls in flight are cancelled first. */
  private cancelOnClose = false;
  private readonly exited = new ExitWatch();
  private readonly deadlines = new StartDeadlines();
  private outputBlocked = false;
  private settle: ((state: ExtensionState) => void) | undefined;
  /** Set by the supervisor after a crash: a restart is pending. */
  restarting = false;
  /** When the pending restart is due (the supervisor's clock, ms). */
  restartAt: number | undefined;
  /** Set by the supervisor when it will not restart this one (and why). */
  stayDown: string | undefined;
  /** The process that replaced this one after a crash (set by the supervisor). */
  successor: RunningExtension | undefined;
  private starting: Promise<ExtensionState> | undefined;
  /** Held back by hold(): not spawned until start(). */
  private held = false;

  /** Contract: the transport is started by start() and owned by this extension from then on. */
  constructor(
    readonly name: string,
    readonly dir: string,
    private readonly transport: ExtensionTransport,
    readonly log: ExtensionLog,
    private readonly context: ExtensionContext,
    readonly policy: ExtensionPolicy = DEFAULT_POLICY,
    /** hello_ack's data_dir: its own directory, or a scoped extension's data directory. */
    readonly dataDir: string = dir,
  ) {
    this.outbox = new FrameOutbox(
      transport,
      () => this.protocolVersion,
      (message) => this.warn(message),
      (message) => this.log.write(message),
    );
    this.peer = new Peer(
      (frame) => this.send(frame),
      () => this.updateReading(),
      // It listens while its process is there and, for a call closed by shutdown(), only when
      // that shutdown cancels the calls in flight first.
      (frame, reason) =>
        this.outbox.cancel(
          frame,
          reason,
          !this.exit && (reason === 'closed' ? this.cancelOnClose : this.running),
        ),
    );
  }

  /** The events it subscribed to, and those it intercepts. */
  get events(): Set<string> {
    return this.registrations.events;
  }
  get intercepts(): Set<string> {
    return this.registrations.intercepts;
  }

  /** How its process ended, once it has. */
  get exit(): ExitInfo | undefined {
    return this.exited.info;
  }
  get logPath(): string {
    return this.log.path;
  }
  get pid(): number | undefined {
    return this.transport.pid;
  }
  get running(): boolean {
    return this.state === 'handshaking' || this.state === 'ready';
  }
  /** Why it is not running, for "extension x is not running (...)" messages. */
  get whyNotRunning(): string {
    if (this.restarting) return RESTARTING;
    const why = this.failure ?? (this.exit ? describeExit(this.exit) : 'stopped');
    return this.stayDown ? `${why}; ${this.stayDown}` : why;
  }
  /** What a call of a not running extension gets back: "restarting, try again" or why it is down. */
  get unavailable(): string {
    if (this.restarting) return `extension ${this.name} is ${RESTARTING}`;
    return `extension ${this.name} is not running (${this.whyNotRunning}); see ${this.logPath}`;
  }
  /** Whether its remembered registrations stand in for its own (it is not ready yet). */
  get offersRemembered(): boolean {
    return this.registrations.hasRemembered && !this.settled;
  }
  /** The tools offered for it: its own, or while it starts, those it registered last time. */
  get offeredTools(): ReadonlyMap<string, ToolRegistration> {
    return this.registrations.offered(this.offersRemembered).tools;
  }
  get offeredCommands(): ReadonlyMap<string, CommandRegistration> {
    return this.registrations.offered(this.offersRemembered).commands;
  }

  /**
   * Offers `registrations` (of an earlier run with the same code) until it is ready; ignored
   * once it is ready or its start has failed.
   */
  remember(registrations: Registrations): void {
    if (this.state !== 'starting' && this.state !== 'handshaking') return;
    this.registrations.remember(registrations);
    this.context.onRegistrationChange(this);
  }

  /** Whether its start has ended (ready, or failed or stopped before that). */
  get settled(): boolean {
    return this.state !== 'starting' && this.state !== 'handshaking';
  }

  /** Settles like start(), once it has been started. Never rejects. */
  whenStarted(): Promise<ExtensionState> {
    return this.starting ?? Promise.resolve(this.state);
  }

  /** This extension, or the process that took its place after its last restart. */
  get latest(): RunningExtension {
    let current: RunningExtension = this;
    while (current.successor) current = current.successor;
    return current;
  }

  /**
   * zot's own output is backed up (or drained again). While it is, this extension's stdout is
   * not read, so its writes block instead of piling up in zot; but never while zot awaits
   * something from it (hello, ready, a reply): back-pressure must not turn into a timeout.
   */
  setOutputBlocked(blocked: boolean): void {
    this.outputBlocked = blocked;
    this.updateReading();
  }

  private updateReading(): void {
    const hold = this.outputBlocked && this.state === 'ready' && this.peer.pendingCount === 0;
    this.transport.setReading(!hold);
  }

  /** Sends a frame, or returns why it was not sent (logged): see FrameOutbox. */
  send(frame: FrameFromHost): string | undefined {
    return this.outbox.send(frame);
  }

  /** Sends a lifecycle event, dropped (counted) while it does not read its stdin. */
  sendEvent(frame: EventFrame): void {
    this.outbox.sendEvent(frame);
  }

  /**
   * Holds its start back (a one-shot run spawns it once its first model request is out; see
   * ExtensionLifecycle.begin): it stays `starting`, whenStarted() waits for start(), and a
   * shutdown before start() settles it `stopped` without a process.
   */
  hold(): void {
    if (this.state !== 'starting' || this.starting) return;
    this.held = true;
    this.starting = new Promise<ExtensionState>((resolve) => (this.settle = resolve));
  }

  /** Whether it is held back and not started yet. */
  get isHeld(): boolean {
    return this.held;
  }

  /** Starts it if it is held back (`why` goes to its log); settles like whenStarted(). */
  release(why: string): Promise<ExtensionState> {
    if (!this.held) return this.whenStarted();
    this.log.write(`${why}: starting it`);
    return this.start();
  }

  /**
   * Resolves once the extension is ready (or auto-ready) or has failed to load; a held one is
   * started now, and a second call returns the first's promise. Never rejects.
   */
  start(): Promise<ExtensionState> {
    if (this.starting && !this.held) return this.starting;
    if (this.held) {
      this.held = false;
      // Shut down (or failed) while held: it never runs.
      if (this.state !== 'starting') return this.starting!;
    }
    this.log.write(`starting ${this.name} (${this.dir})`);
    const done = this.starting ?? new Promise<ExtensionState>((resolve) => (this.settle = resolve));
    this.starting = done;
    const helloMs = this.context.timeouts.helloMs;
    this.deadlines.expect(helloMs, () => this.fail(`no hello within ${helloMs} ms`));
    // Its register_tool frames need the schema check: loaded now, while its process starts.
    const gate = new ArrivalGate(loadSchemaCheck(), (error) =>
      this.fail(`zot could not load its tool-schema check: ${errorMessage(error)}`),
    );
    this.transport.start(
      gate.handlers({
        onLine: (line) => this.onLine(line),
        onOversize: (bytes) => this.onOversize(bytes),
        onInvalidUtf8: (length, bytes) => this.onInvalidUtf8(length, bytes),
        onOutputEnd: () => this.onOutputEnd(),
        onExit: (info) => this.onExit(info),
      }),
    );
    return done;
  }

  private resolveStart(): void {
    this.deadlines.clear();
    this.settle?.(this.state);
    this.settle = undefined;
    // What was offered from memory gives way to what it registered (or to nothing).
    if (this.registrations.forgetRemembered()) this.context.onRegistrationChange(this);
  }

  /** Fails the load: logged, the process group killed, pending requests failed. */
  private fail(reason: string): void {
    if (this.state === 'failed' || this.state === 'stopped') return;
    this.state = 'failed';
    this.failure = reason;
    this.log.write(`load failed: ${reason}`);
    this.peer.close(`extension ${this.name} is not running (${reason}); see ${this.logPath}`);
    this.resolveStart();
    void this.transport.terminate();
  }

  private markReady(kind: ReadyKind): void {
    if (this.state !== 'handshaking') return;
    this.state = 'ready';
    this.readyKind = kind;
    if (kind === 'auto-ready') {
      this.log.write(
        `auto-readied: registered but sent no "ready" for ${this.context.timeouts.autoReadyMs} ms`,
      );
    }
    this.updateReading();
    this.resolveStart();
    this.context.onReady?.(this);
  }

  private onOversize(bytes: number): void {
    if (this.state === 'starting')
      this.fail(`first line was ${bytes} bytes, over the 32 MiB frame limit`);
    else this.warn(`dropped a line of ${bytes} bytes (over the 32 MiB frame limit)`);
  }

  /** Design D12: dropped and logged; as the first line it fails the load. */
  private onInvalidUtf8(length: number, bytes: Uint8Array): void {
    if (this.state === 'failed' || this.state === 'stopped' || this.state === 'exited') return;
    const what = `a line of ${length} bytes that is not valid UTF-8`;
    if (this.state === 'starting') {
      this.fail(`the first line must be a hello frame; got ${what}`);
      return;
    }
    this.warn(`dropped ${what}`);
    this.failReply(brokenReplyIn(bytes));
  }

  /** A reply that could not be read but names its request fails it now, not at its timeout. */
  private failReply(reply: BrokenReply | undefined): void {
    if (reply !== undefined) this.peer.fail(reply.id, reply.type, reply.message);
  }

  /**
   * Its stdout ended or failed. Usually the process is exiting: give the exit a moment to
   * arrive and tell that story. A process still alive after it can no longer speak to us is
   * gone: treated like a crash (or a failed load), and its group is killed.
   */
  private onOutputEnd(): void {
    if (this.state === 'failed' || this.state === 'stopped' || this.state === 'exited') return;
    whenNoExitFollows(this.exited, this.context.timeouts.outputEndGraceMs, () => {
      if (this.state === 'starting') this.fail('closed its stdout before sending hello');
      else if (this.state === 'handshaking') this.fail('closed its stdout before sending ready');
      else if (this.state === 'ready') {
        this.failure = 'closed its stdout';
        this.log.write('closed its stdout while still running; stopping it');
        this.gone(this.failure);
      }
    });
  }

  /** A loaded extension that can no longer serve: pending requests fail, ext_error, group killed. */
  private gone(reason: string): void {
    this.state = 'exited';
    this.peer.close(`extension ${this.name} is not running (${reason}); see ${this.logPath}`);
    this.context.onCrash(this, `extension ${this.name} ${reason}`);
    // A crashed leader's children may linger in its group; a mute extension is still running.
    void this.transport.terminate();
  }

  private onLine(line: string): void {
    if (this.state === 'failed' || this.state === 'exited') return;
    if (this.state === 'stopped') {
      // Shutting down: what it still writes is read (so it never blocks), but only an ack counts.
      if (isShutdownAck(line)) this.onShutdownAck();
      return;
    }
    if (this.state === 'starting') {
      const first = readFirstLine(line);
      if (first.ok) this.onHello(first.frame);
      else this.fail(first.reason);
      return;
    }
    const reading = readLine(line, this.protocolVersion);
    if (reading.ok) return this.onFrame(reading.frame);
    this.warn(reading.warning);
    this.failReply(reading.brokenReply);
  }

  private onHello(frame: HelloFrame): void {
    if (frame.name !== this.name) {
      this.warn(
        `hello names "${frame.name}" but the manifest says "${this.name}"; using "${this.name}"`,
      );
    }
    this.state = 'handshaking';
    this.protocolVersion = negotiateProtocolVersion(frame.protocol_version);
    if (frame.protocol_version !== undefined)
      this.log.write(
        `hello asks for protocol version ${frame.protocol_version}; speaking version ${this.protocolVersion}`,
      );
    const info = this.context.hostInfo();
    this.send({
      type: 'hello_ack',
      protocol_version: this.protocolVersion,
      ...info,
      extension_dir: this.dir,
      data_dir: this.dataDir,
    });
    const readyMs = this.policy.readyMs ?? this.context.timeouts.readyMs;
    this.deadlines.expect(readyMs, () => {
      if (this.registrations.registeredAny) this.markReady('auto-ready');
      else this.fail(`no "ready" within ${readyMs} ms of hello`);
    });
  }

  /** A protocol problem: logged, and kept (bounded) for `zot ext doctor`. */
  warn(message: string): void {
    this.log.write(message);
    if (this.warnings.length < 50) this.warnings.push(message);
  }

  private noteRegistration(): void {
    if (this.state === 'handshaking')
      this.deadlines.restartQuiet(this.context.timeouts.autoReadyMs, () =>
        this.markReady('auto-ready'),
      );
    this.context.onRegistrationChange(this);
  }

  private onFrame(frame: FrameFromExtension): void {
    switch (frame.type) {
      case 'hello':
        this.log.write('ignored a second hello');
        return;
      case 'ready':
        this.markReady('ready');
        return;
      case 'register_command':
      case 'register_tool':
      case 'subscribe':
      case 'unregister_tool': {
        const change = this.registrations.take(frame, this.protocolVersion);
        if (change === 'registered') this.noteRegistration();
        else if (change === 'unregistered') this.context.onRegistrationChange(this);
        return;
      }
      case 'tool_result':
      case 'command_response':
      case 'event_intercept_response':
        return this.onReply(frame);
      case 'tool_progress':
        return this.progress.deliver(frame, this.peer.isPending(frame.id, 'tool_call'));
      case 'shutdown_ack':
        return this.onShutdownAck();
      default:
        this.context.onFrame(this, frame);
    }
  }

  private onShutdownAck(): void {
    if (this.shutdownAcked) return;
    this.shutdownAcked = true;
    this.log.write('shutdown_ack received');
  }

  /** A reply is taken only by a pending request of its id that expects its type. */
  private onReply(frame: ReplyFrame): void {
    const delivery = this.peer.resolve(frame);
    if (delivery === 'unknown')
      this.log.write(`ignored a late or unknown ${frame.type} (id ${frame.id})`);
    else if (delivery !== 'resolved')
      this.warn(
        `ignored a ${frame.type} for request ${frame.id}, which awaits a ${delivery.expected}`,
      );
  }

  private onExit(info: ExitInfo): void {
    this.exited.settle(info); // its waiters resume after this handler (promise continuations)
    const how = describeExit(info);
    this.log.write(`process ${how}`);
    if (this.state === 'starting')
      return this.fail(info.spawnError ? how : `${how} before sending hello`);
    if (this.state === 'handshaking') return this.fail(`${how} before sending ready`);
    if (this.state === 'ready') this.gone(how);
  }

  /** Design D18, in endProcess(). Contract: never rejects; see endProcess(). */
  async shutdown(): Promise<void> {
    const wasRunning = this.running;
    const silent = this.state === 'starting' && !this.held && this.starting !== undefined;
    this.held = false;
    if (this.state === 'starting' || this.state === 'handshaking' || this.state === 'ready')
      this.state = 'stopped';
    this.updateReading(); // drain what it still writes (ignored), so it is never stuck in a write
    this.resolveStart();
    this.cancelOnClose = wasRunning && !this.exit;
    this.peer.close(`extension ${this.name} was shut down`);
    this.cancelOnClose = false;
    await endProcess({
      told: wasRunning && !this.exit,
      silent,
      graceMs: this.context.timeouts.shutdownGraceMs,
      exited: this.exited,
      transport: this.transport,
      log: this.log,
      sendShutdown: () => void this.send({ type: 'shutdown' }),
    });
  }

  /** Synchronous last resort when the host exits. */
  killNow(): void {
    if (this.pid !== undefined && !this.exit) this.log.write('zot is exiting');
    this.transport.terminateNow();
  }
}
