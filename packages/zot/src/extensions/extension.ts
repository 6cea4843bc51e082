// One running extension: spawn, handshake, registrations, replies, and its end.
import {
  decodeFromExtension,
  FRAME_LIMITS,
  frameVersion,
  jsonLimitProblem,
  negotiateProtocolVersion,
  type AbandonReason,
  type ProtocolVersion,
  type EventFrame,
  type RequestFrame,
  type FrameFromExtension,
  type FrameFromHost,
} from '@zot/protocol';
import { ExitWatch } from './exit-watch.js';
import type { ExtensionLog } from './log.js';
import type { InterceptFailure, RestartPolicy } from '../ext-setup/manifest.js';
import { isReplyType, Peer, type ReplyFrame } from './peer.js';
import { ProgressRelay } from './progress-relay.js';
import type { Registrations } from './remembered.js';
import {
  checkCommand,
  checkSubscription,
  checkTool,
  REGISTRATION_LIMITS,
  type CommandRegistration,
  type ToolRegistration,
} from './registrations.js';
import type { ExtensionTimeouts } from './timeouts.js';
import {
  describeExit,
  MAX_QUEUED_BYTES,
  type ExitInfo,
  type ExtensionTransport,
} from './transport.js';

/** `exited`: gone after a successful load (its process exited, or it closed its stdout). */
export type ExtensionState = 'starting' | 'handshaking' | 'ready' | 'failed' | 'exited' | 'stopped';
export type ReadyKind = 'ready' | 'auto-ready';

/** Frames the host surfaces to the user rather than correlating. */
export type SurfacedFrame = Extract<
  FrameFromExtension,
  {
    type:
      | 'notify'
      | 'display'
      | 'clear_notes'
      | 'submit'
      | 'panel_render'
      | 'panel_close'
      | 'open_panel'
      | 'ui_request';
  }
>;

export interface ExtensionContext {
  timeouts: ExtensionTimeouts;
  hostInfo(): { zot_version: string; provider: string; model: string; cwd: string };
  /** Registrations of this extension changed (tools, commands, subscriptions). */
  onRegistrationChange(extension: RunningExtension): void;
  onFrame(extension: RunningExtension, frame: SurfacedFrame): void;
  /** The extension died (or stopped talking) after a successful load. */
  onCrash(extension: RunningExtension, message: string): void;
  /** It is ready (or auto-ready): its own registrations replace any remembered ones. */
  onReady?(extension: RunningExtension): void;
}

/** The manifest's supervision fields (design D24, D25), and its ready deadline. */
export interface ExtensionPolicy {
  interceptFailure: InterceptFailure;
  restart: RestartPolicy;
  /** Absent: the host's (`timeouts.readyMs`). */
  readyMs?: number;
}

export const DEFAULT_POLICY: ExtensionPolicy = { interceptFailure: 'allow', restart: 'on-failure' };

/** Why not running, while a restart is pending: callers are told to try again. */
export const RESTARTING = 'restarting, try again';

/** A frame named for a log line: its type, and its event when it has one. */
function describeFrame(frame: FrameFromHost): string {
  const event = (frame as { event?: unknown }).event;
  return typeof event === 'string' ? `${frame.type} (${event})` : `a ${frame.type} frame`;
}

function preview(line: string): string {
  return line.length > 120 ? `${line.slice(0, 120)}…` : line;
}

export class RunningExtension {
  state: ExtensionState = 'starting';
  readyKind: ReadyKind | undefined;
  failure: string | undefined;
  readonly warnings: string[] = [];
  readonly commands = new Map<string, CommandRegistration>();
  readonly tools = new Map<string, ToolRegistration>();
  events = new Set<string>();
  intercepts = new Set<string>();
  shutdownAcked = false;
  /**
   * The protocol version negotiated in this process's hello (1 until then, and for an extension
   * that named none): frames of a later version are neither sent to it nor taken from it.
   */
  protocolVersion: ProtocolVersion = 1;
  private droppedEvents = 0;
  private readonly refusedOverCap = { tool: 0, command: 0 };
  readonly peer: Peer;
  /** tool_progress lines, routed to the calls in flight. */
  readonly progress = new ProgressRelay(
    (message) => this.warn(message),
    (message) => this.log.write(message),
  );
  /** Set while shutting down a live process: its calls in flight are cancelled first. */
  private cancelOnClose = false;
  private readonly exited = new ExitWatch();
  private timers: NodeJS.Timeout[] = [];
  private autoReadyTimer: NodeJS.Timeout | undefined;
  private registered = false;
  private outputBlocked = false;
  private settle: ((state: ExtensionState) => void) | undefined;
  /** Set by the supervisor after a crash: a restart is pending. */
  restarting = false;
  /** Set by the supervisor when it will not restart this one (and why). */
  stayDown: string | undefined;
  /** The process that replaced this one after a crash (set by the supervisor). */
  successor: RunningExtension | undefined;
  /** What it registered in an earlier run (remembered.ts), offered until it is ready. */
  private remembered: Registrations | undefined;
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
    this.peer = new Peer(
      (frame) => this.send(frame),
      () => this.updateReading(),
      (frame, reason) => this.cancel(frame, reason),
    );
  }

  /**
   * A tool call or command zot stopped waiting for (aborted, timed out, or shut down) is
   * cancelled: a version-2 extension that is still there hears `cancel` with its id.
   */
  private cancel(frame: RequestFrame, reason: AbandonReason): void {
    if (frame.type !== 'tool_call' && frame.type !== 'command_invoked') return;
    if (this.protocolVersion < 2 || this.exit) return;
    if (reason === 'closed' && !this.cancelOnClose) return;
    if (reason !== 'closed' && !this.running) return;
    this.log.write(`cancel ${frame.type} ${frame.id} (${reason})`);
    this.send({ type: 'cancel', id: frame.id });
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
    return (
      this.remembered !== undefined && (this.state === 'starting' || this.state === 'handshaking')
    );
  }
  /** The tools offered for it: its own, or while it starts, those it registered last time. */
  get offeredTools(): ReadonlyMap<string, ToolRegistration> {
    return this.offersRemembered ? this.remembered!.tools : this.tools;
  }
  get offeredCommands(): ReadonlyMap<string, CommandRegistration> {
    return this.offersRemembered ? this.remembered!.commands : this.commands;
  }

  /**
   * Offers `registrations` (of an earlier run with the same code) until it is ready; ignored
   * once it is ready or its start has failed.
   */
  remember(registrations: Registrations): void {
    if (this.state !== 'starting' && this.state !== 'handshaking') return;
    this.remembered = registrations;
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

  /**
   * Sends a frame, or returns why it was not sent (logged). zot never sends a frame past the
   * protocol's own bounds: the extension would drop it, and a request would wait for nothing.
   */
  send(frame: FrameFromHost): string | undefined {
    const problem = this.unsendable(frame);
    if (problem === undefined) this.transport.send(frame);
    return problem;
  }

  private unsendable(frame: FrameFromHost): string | undefined {
    const needs = frameVersion(frame as { type: string; event?: unknown });
    if (needs > this.protocolVersion) {
      const what = `not sent: ${describeFrame(frame)} is a protocol version ${needs} frame and this extension speaks version ${this.protocolVersion}`;
      this.warn(what);
      return what;
    }
    const problem = jsonLimitProblem(frame, FRAME_LIMITS);
    if (problem === undefined) return undefined;
    const what = `not sent: the ${frame.type} frame would be ${problem} (the protocol's bound)`;
    this.warn(what);
    return what;
  }

  /**
   * Sends a lifecycle event. An extension that stops reading its stdin loses events past the
   * queue bound (counted and logged) instead of growing zot's memory; requests still queue.
   */
  sendEvent(frame: EventFrame): void {
    if (this.unsendable(frame) !== undefined) return;
    if (this.transport.send(frame, { droppable: true })) {
      if (this.droppedEvents > 0) {
        this.log.write(`delivering events again after dropping ${this.droppedEvents}`);
        this.droppedEvents = 0;
      }
      return;
    }
    if (this.droppedEvents++ === 0)
      this.warn(
        `not reading its stdin: over ${MAX_QUEUED_BYTES / (1024 * 1024)} MiB of events queued; dropping events until it catches up`,
      );
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
    this.timers.push(
      setTimeout(
        () => this.fail(`no hello within ${this.context.timeouts.helloMs} ms`),
        this.context.timeouts.helloMs,
      ),
    );
    this.transport.start({
      onLine: (line) => this.onLine(line),
      onOversize: (bytes) => this.onOversize(bytes),
      onInvalidUtf8: (length, bytes) => this.onInvalidUtf8(length, bytes),
      onOutputEnd: () => this.onOutputEnd(),
      onExit: (info) => this.onExit(info),
    });
    return done;
  }

  private resolveStart(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers = [];
    if (this.autoReadyTimer) clearTimeout(this.autoReadyTimer);
    this.settle?.(this.state);
    this.settle = undefined;
    // What was offered from memory gives way to what it registered (or to nothing).
    if (this.remembered !== undefined) {
      this.remembered = undefined;
      this.context.onRegistrationChange(this);
    }
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
    // A reply may still name its request (read leniently): fail it now, not at its timeout.
    const lenient = decodeFromExtension(new TextDecoder().decode(bytes));
    const frame = lenient.ok ? (lenient.frame as { type: string; id?: unknown }) : lenient;
    if (typeof frame.id === 'string' && isReplyType(frame.type)) {
      this.peer.fail(frame.id, frame.type, `malformed ${frame.type}: the line is not valid UTF-8`);
    }
  }

  /**
   * Its stdout ended or failed. Usually the process is exiting: give the exit a moment to
   * arrive and tell that story. A process still alive after it can no longer speak to us is
   * gone: treated like a crash (or a failed load), and its group is killed.
   */
  private onOutputEnd(): void {
    if (this.state === 'failed' || this.state === 'stopped' || this.state === 'exited') return;
    void this.exited.wait(this.context.timeouts.outputEndGraceMs).then((exited) => {
      if (exited) return;
      // After a stalled event loop the exit may be waiting in this turn's poll phase.
      setImmediate(() => {
        if (this.exit) return;
        if (this.state === 'starting') this.fail('closed its stdout before sending hello');
        else if (this.state === 'handshaking') this.fail('closed its stdout before sending ready');
        else if (this.state === 'ready') {
          this.failure = 'closed its stdout';
          this.log.write('closed its stdout while still running; stopping it');
          this.gone(this.failure);
        }
      });
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
      if (!line.includes('shutdown_ack')) return;
      const ack = decodeFromExtension(line);
      if (ack.ok && ack.frame.type === 'shutdown_ack') this.onShutdownAck();
      return;
    }
    const decoded = decodeFromExtension(line);
    if (this.state === 'starting') {
      if (!decoded.ok || decoded.frame.type !== 'hello') {
        const why = decoded.ok ? `a ${decoded.frame.type} frame` : decoded.error;
        this.fail(`the first line must be a hello frame; got ${why}: ${preview(line)}`);
        return;
      }
      this.onHello(decoded.frame);
      return;
    }
    if (!decoded.ok) {
      const type = decoded.type ?? '';
      if (decoded.kind === 'unknown_type' && this.refusedByVersion(type)) return;
      if (decoded.kind === 'unknown_type')
        this.warn(`ignored unknown frame type "${decoded.type}"`);
      else this.warn(`dropped a malformed line: ${decoded.error}: ${preview(line)}`);
      if (decoded.id !== undefined && isReplyType(decoded.type)) {
        this.peer.fail(decoded.id, decoded.type, `malformed ${decoded.type}: ${decoded.error}`);
      }
      return;
    }
    this.onFrame(decoded.frame);
  }

  private onHello(frame: Extract<FrameFromExtension, { type: 'hello' }>): void {
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
    for (const timer of this.timers) clearTimeout(timer);
    const readyMs = this.policy.readyMs ?? this.context.timeouts.readyMs;
    this.timers = [
      setTimeout(() => {
        if (this.registered) this.markReady('auto-ready');
        else this.fail(`no "ready" within ${readyMs} ms of hello`);
      }, readyMs),
    ];
  }

  /** A protocol problem: logged, and kept (bounded) for `zot ext doctor`. */
  warn(message: string): void {
    this.log.write(message);
    if (this.warnings.length < 50) this.warnings.push(message);
  }

  /**
   * Whether registering `key` anew would pass the limit of its kind; the first refusal is a
   * warning (log and `doctor`), later ones are only counted in the log, so that a flood of
   * registrations cannot flood the log too.
   */
  private overCap(
    kind: 'tool' | 'command',
    registered: Map<string, unknown>,
    key: string,
  ): boolean {
    const limit =
      kind === 'tool'
        ? REGISTRATION_LIMITS.toolsPerExtension
        : REGISTRATION_LIMITS.commandsPerExtension;
    if (registered.has(key) || registered.size < limit) return false;
    const refused = (this.refusedOverCap[kind] += 1);
    if (refused === 1)
      this.warn(
        `rejected: register_${kind} "${key}": over the limit of ${limit} ${kind}s per extension; later ${kind}s are refused too`,
      );
    else if (refused % 1000 === 0)
      this.log.write(`${refused} ${kind}s refused so far (limit ${limit})`);
    return true;
  }

  private noteRegistration(): void {
    this.registered = true;
    if (this.state === 'handshaking') {
      if (this.autoReadyTimer) clearTimeout(this.autoReadyTimer);
      this.autoReadyTimer = setTimeout(
        () => this.markReady('auto-ready'),
        this.context.timeouts.autoReadyMs,
      );
    }
    this.context.onRegistrationChange(this);
  }

  /**
   * A frame of a protocol version this extension did not negotiate is refused (named and
   * logged), never acted on. True when `type` was refused.
   */
  private refusedByVersion(type: string): boolean {
    const needs = frameVersion({ type });
    if (needs <= this.protocolVersion) return false;
    this.warn(
      `refused a ${type} frame: it is a protocol version ${needs} frame and this extension's hello did not ask for version ${needs} (send "protocol_version": ${needs} in hello)`,
    );
    return true;
  }

  private onFrame(frame: FrameFromExtension): void {
    if (this.refusedByVersion(frame.type)) return;
    switch (frame.type) {
      case 'hello':
        this.log.write('ignored a second hello');
        return;
      case 'ready':
        this.markReady('ready');
        return;
      case 'register_command': {
        const result = checkCommand(frame);
        if (typeof result === 'string') return this.warn(`rejected: ${result}`);
        const key = result.name.toLowerCase();
        if (this.overCap('command', this.commands, key)) return;
        this.commands.set(key, result);
        return this.noteRegistration();
      }
      case 'register_tool': {
        const result = checkTool(frame);
        if (typeof result === 'string') return this.warn(`rejected: ${result}`);
        if (this.overCap('tool', this.tools, result.name)) return;
        this.tools.set(result.name, result);
        return this.noteRegistration();
      }
      case 'subscribe': {
        const { accepted, problems } = checkSubscription(
          frame.events ?? [],
          frame.intercept ?? [],
          this.protocolVersion,
        );
        problems.forEach((problem) => this.warn(problem));
        this.events = accepted.events;
        this.intercepts = accepted.intercept;
        return this.noteRegistration();
      }
      case 'tool_result':
      case 'command_response':
      case 'event_intercept_response':
        return this.onReply(frame);
      case 'tool_progress':
        return this.progress.deliver(frame, this.peer.isPending(frame.id, 'tool_call'));
      case 'unregister_tool':
        return this.unregisterTool(frame.name);
      case 'shutdown_ack':
        return this.onShutdownAck();
      default:
        this.context.onFrame(this, frame);
    }
  }

  private unregisterTool(name: string): void {
    if (!this.tools.delete(name)) {
      this.warn(`unregister_tool: this extension registered no tool "${name}"; ignored`);
      return;
    }
    this.log.write(`unregistered tool ${name}`);
    this.context.onRegistrationChange(this);
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

  /**
   * Design D18: shutdown frame, grace for the exit, stdin closed, SIGTERM then SIGKILL the group.
   * Contract: never rejects; afterwards no process of the group is left.
   */
  async shutdown(): Promise<void> {
    const wasRunning = this.running;
    this.held = false;
    if (this.state === 'starting' || this.state === 'handshaking' || this.state === 'ready')
      this.state = 'stopped';
    this.updateReading(); // drain what it still writes (ignored), so it is never stuck in a write
    this.resolveStart();
    this.cancelOnClose = wasRunning && !this.exit;
    this.peer.close(`extension ${this.name} was shut down`);
    this.cancelOnClose = false;
    if (wasRunning && !this.exit) {
      this.send({ type: 'shutdown' });
      const graceMs = this.context.timeouts.shutdownGraceMs;
      if (!(await this.exited.wait(graceMs)))
        this.log.write(`no exit within ${graceMs} ms of shutdown; closing its stdin`);
    }
    this.transport.close();
    await this.transport.terminate();
  }

  /** Synchronous last resort when the host exits. */
  killNow(): void {
    this.transport.terminateNow();
  }
}
