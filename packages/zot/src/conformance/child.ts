// The extension under test, reached through the host's own transport (a process: extensions/
// process-transport.ts, with the security launcher, its own process group, the scope's sandbox,
// stderr into a log file; a remote one: the host's WebSocket or HTTP transport) and asked through
// the host's request peer. Every stdout line is decoded once at
// the boundary and kept only as far as the checks need: bounded whatever the extension writes.
import { decodeFromExtension, type FrameFromExtension, type FrameFromHost } from '@zot/protocol';
import { FrameStats } from './frame-stats.js';
import { KitLog, tail } from './stderr-log.js';
import {
  isReplyType,
  Peer,
  RequestError,
  type ReplyFrame,
  type RequestType,
} from '../extensions/peer.js';
import type { ExtensionLog } from '../extensions/log.js';
import { describeExit, type ExitInfo, type ExtensionTransport } from '../extensions/transport.js';
import { processGroupAlive, type KillResult } from '../util/process-group.js';

/** A line as received, with its decoding. */
export interface Line {
  text: string;
  at: number;
  frame?: FrameFromExtension;
  /** Why the line is not a valid frame (invalid JSON, a field of the wrong type, ...). */
  problem?: string;
  unknownType?: boolean;
}

/** How long after stdout closed an exit still counts as the reason (a crash), not a mute process. */
const MUTE_GRACE_MS = 1000;
/** How a request fails when the extension closed its stdout but kept running. */
const STDOUT_CLOSED = 'closed its stdout while still running';

export type Outcome =
  | { kind: 'reply'; frame: ReplyFrame; line: string; ms: number }
  | { kind: 'malformed'; line: string; error: string; ms: number }
  | { kind: 'timeout'; ms: number }
  | { kind: 'exited'; how: string; ms: number }
  | { kind: 'aborted'; ms: number };

/** The link the kit talks through; a process's can say what stopping its group took. */
export type KitTransport = ExtensionTransport & { terminateGroup?(): Promise<KillResult> };

export interface Spec {
  /** Builds the link, not yet started: the host's own transport for this kind of extension. */
  open(log: ExtensionLog): KitTransport;
  /** Where its stderr goes (a file in the kit's scratch directory). */
  logPath: string;
  /** Between SIGTERM and SIGKILL of its group (a remote's: for its connection to close). */
  killGraceMs: number;
}

/** Most registration frames kept; more are counted. */
const MAX_REGISTRATIONS = 500;
/** After the exit, how long its last output may take to be read (a grandchild may hold it). */
const OUTPUT_END_GRACE_MS = 500;
/** Most stderr kept for the report (its end). */
const STDERR_LIMIT = 16 * 1024;

/** What the version-2 checks see of the conversation. */
export interface RequestWatcher {
  sent(id: string, frame: { type: string } & Record<string, unknown>): void;
  settled(id: string): void;
  /** Every frame after hello that is not a registration or a reply. */
  onFrame(line: Line, frame: FrameFromExtension): void;
  /** A line that names a frame type but is not a valid one. */
  malformed(type: string, line: string, error: string): void;
}

interface Asked {
  sentAt: number;
  /** The reply as it came (for the report). */
  line?: string;
  /** The malformed reply that failed it, when one did. */
  malformed?: { line: string; error: string };
}

/**
 * Contract: never throws into its caller; every wait resolves (never rejects) by its deadline,
 * at the extension's exit or when `signal` aborts; memory stays bounded.
 */
export class ExtensionChild {
  private transport: KitTransport | undefined;
  private readonly log: KitLog;
  readonly startedAtMs = Date.now();
  private exitInfo: ExitInfo | undefined;
  /** The exit is known and what it wrote before it has been read (or it had long enough). */
  private gone = false;
  private stdoutEnded = false;
  private readonly watchers = new Set<() => void>();
  private readonly peer: Peer;
  private readonly asked = new Map<string, Asked>();
  /** The first line (or what stood for it: an oversize or non-UTF-8 line). */
  first: Line | undefined;
  helloAt: number | undefined;
  readyAt: number | undefined;
  readyLine: string | undefined;
  shutdownAckAt: number | undefined;
  readonly registrations: Line[] = [];
  droppedRegistrations = 0;
  lastRegistrationAt: number | undefined;
  readonly stats = new FrameStats();
  /** Set from hello: a version-2 extension is told `cancel` for requests given up on. */
  cancelsAbandoned = false;
  private stderrKept: { text: string; truncated: boolean } | undefined;
  /** Set for a version-2 extension: sees every request and the frames it sends on its own. */
  watcher: RequestWatcher | undefined;
  /** Ids of requests the kit cancelled: an answer to one is expected, not unsolicited. */
  readonly cancelled = new Set<string>();
  /** Answers that came for cancelled requests (zot ignores them). */
  answersAfterCancel = 0;

  constructor(
    private readonly spec: Spec,
    private readonly signal: AbortSignal,
  ) {
    this.log = new KitLog(spec.logPath);
    this.peer = new Peer(
      (frame) => void this.send(frame),
      () => undefined,
      (frame, reason) => {
        // As the host: a call given up on (timeout, the kit's deadline) is cancelled.
        if (reason === 'closed' || !this.cancelsAbandoned || this.exitInfo) return;
        if (frame.type !== 'tool_call' && frame.type !== 'command_invoked') return;
        this.cancelled.add(frame.id);
        this.send({ type: 'cancel', id: frame.id });
      },
    );
    signal.addEventListener('abort', () => this.notify(), { once: true });
  }

  get pid(): number | undefined {
    return this.transport?.pid;
  }
  get exit(): ExitInfo | undefined {
    return this.exitInfo;
  }
  /** How it went, after "the extension ": a process's exit, or a remote's connection end. */
  get exitText(): string | undefined {
    const info = this.exitInfo;
    if (info?.disconnected !== undefined) return `ended its connection (${info.disconnected})`;
    return info && describeExit(info);
  }
  /** The end of what it wrote on stderr. */
  get stderr(): string {
    return this.stderrNow().text;
  }
  get stderrTruncated(): boolean {
    return this.stderrNow().truncated;
  }
  private stderrNow(): { text: string; truncated: boolean } {
    return this.stderrKept ?? tail(this.spec.logPath, STDERR_LIMIT);
  }
  elapsed(from = this.startedAtMs): number {
    return Date.now() - from;
  }

  start(): void {
    const transport = this.spec.open(this.log);
    this.transport = transport;
    transport.start({
      onLine: (text) => this.receive(text),
      onOversize: (bytes) =>
        this.receiveBad(`a line of ${bytes} bytes, over the 32 MiB frame limit`, bytes),
      onInvalidUtf8: (length, bytes) =>
        this.receiveBad(
          `a line of ${length} bytes that is not valid UTF-8`,
          undefined,
          Buffer.from(bytes).toString('utf8'),
        ),
      onOutputEnd: () => {
        this.stdoutEnded = true;
        if (this.exitInfo) return this.settleGone();
        // A crash closes stdout a moment before its exit is seen; one still running after the
        // grace is alive but mute, and nothing it does can answer any more.
        setTimeout(() => {
          if (!this.exitInfo) this.closePeer(STDOUT_CLOSED);
        }, MUTE_GRACE_MS).unref();
      },
      onExit: (info) => this.settleExit(info),
    });
  }

  /** The exit is settled once its last output is read, or after OUTPUT_END_GRACE_MS. */
  private settleExit(info: ExitInfo): void {
    if (this.exitInfo) return;
    this.exitInfo = info;
    if (this.stdoutEnded || this.transport?.pid === undefined) return this.settleGone();
    setTimeout(() => this.settleGone(), OUTPUT_END_GRACE_MS);
  }

  /** Every request waiting, and every later one, fails at once with `how`. */
  private closePeer(how: string): void {
    this.peer.close(how);
    this.notify();
  }

  private settleGone(): void {
    if (this.gone || !this.exitInfo) return;
    this.gone = true;
    this.closePeer(describeExit(this.exitInfo));
  }

  private notify(): void {
    for (const watcher of [...this.watchers]) watcher();
  }

  private receiveBad(problem: string, oversize?: number, text = ''): void {
    const line: Line = { text, at: Date.now(), problem };
    if (!this.first) {
      this.first = line;
      return this.notify();
    }
    this.stats.total++;
    if (oversize !== undefined) {
      this.stats.oversizeLine(oversize);
    } else this.stats.invalidLine(line.text, problem);
    this.notify();
  }

  private receive(text: string): void {
    const decoded = decodeFromExtension(text);
    const line: Line = { text, at: Date.now() };
    if (decoded.ok) line.frame = decoded.frame;
    else {
      line.problem = decoded.error;
      line.unknownType = decoded.kind === 'unknown_type';
    }
    if (!this.first) {
      this.first = line;
      if (line.frame?.type === 'hello') this.helloAt = line.at;
      return this.notify();
    }
    this.stats.total++;
    if (!decoded.ok) {
      if (decoded.kind === 'unknown_type') {
        this.stats.unknownType(text);
      } else {
        this.stats.invalidLine(text, decoded.error);
        if (decoded.type !== undefined) this.watcher?.malformed(decoded.type, text, decoded.error);
      }
      // A broken reply that still names its request fails that request at once (as the host).
      if (decoded.id !== undefined && isReplyType(decoded.type))
        this.failRequest(decoded.id, decoded.type, text, decoded.error);
    } else this.dispatch(line, decoded.frame);
    this.notify();
  }

  private failRequest(id: string, type: ReplyFrame['type'], line: string, error: string): void {
    const asked = this.asked.get(id);
    if (!asked) return;
    asked.malformed = { line, error };
    if (!this.peer.fail(id, type, error)) delete asked.malformed;
  }

  private dispatch(line: Line, frame: FrameFromExtension): void {
    switch (frame.type) {
      case 'register_command':
      case 'register_tool':
      case 'subscribe':
        this.lastRegistrationAt = line.at;
        if (this.registrations.length < MAX_REGISTRATIONS) this.registrations.push(line);
        else this.droppedRegistrations++;
        return;
      case 'ready':
        if (this.readyAt === undefined) {
          this.readyAt = line.at;
          this.readyLine = line.text;
        }
        return;
      case 'shutdown_ack':
        this.shutdownAckAt ??= line.at;
        return;
      case 'tool_result':
      case 'command_response':
      case 'event_intercept_response':
        return this.onReply(line, frame);
      default:
        this.watcher?.onFrame(line, frame);
    }
  }

  private onReply(line: Line, frame: ReplyFrame): void {
    const asked = this.asked.get(frame.id);
    if (asked) asked.line = line.text;
    const delivery = this.peer.resolve(frame);
    if (delivery === 'resolved') return;
    if (delivery === 'unknown') {
      if (this.cancelled.has(frame.id)) this.answersAfterCancel++;
      else this.stats.unsolicitedReply(line.text);
      return;
    }
    // The kit is stricter than the host, which keeps waiting: the wrong type fails at once.
    const error = `answered with a ${frame.type}; the request expects a ${delivery.expected}`;
    this.failRequest(frame.id, delivery.expected, line.text, error);
  }

  /** Writes one frame (any object with a `type`); returns the line written. */
  send(frame: { type: string } & Record<string, unknown>): string {
    const line = JSON.stringify(frame);
    // Frames the host never sends (an unknown type, made-up intercepts) go out as they are.
    if (!this.exitInfo) this.transport?.send(frame as unknown as FrameFromHost);
    return line;
  }

  /** Sends a request with a fresh id; resolves with the outcome. Contract: never rejects. */
  request(
    frame: { type: RequestType } & Record<string, unknown>,
    timeoutMs: number,
    /** Gives up on this request alone (a version-2 extension hears cancel). */
    giveUp?: AbortSignal,
  ): { sent: string; outcome: Promise<Outcome>; id: string } {
    let id = '';
    let sent = '';
    const sentAt = Date.now();
    const reply = this.peer.request(
      frame as unknown as Parameters<Peer['request']>[0],
      frame.type,
      timeoutMs,
      giveUp ? AbortSignal.any([this.signal, giveUp]) : this.signal,
      (given) => {
        id = given;
        this.asked.set(id, { sentAt });
        sent = JSON.stringify({ ...frame, id });
        this.watcher?.sent(id, frame);
      },
    );
    if (sent === '') sent = JSON.stringify(frame);
    const ms = () => Date.now() - sentAt;
    const outcome = reply.then(
      (answer): Outcome => {
        const line = this.asked.get(id)?.line ?? JSON.stringify(answer);
        this.asked.delete(id);
        this.watcher?.settled(id);
        return { kind: 'reply', frame: answer as ReplyFrame, line, ms: ms() };
      },
      (error: unknown): Outcome => {
        const asked = this.asked.get(id);
        this.asked.delete(id);
        this.watcher?.settled(id);
        const reason = error instanceof RequestError ? error.reason : 'closed';
        if (reason === 'invalid' && asked?.malformed)
          return { kind: 'malformed', ...asked.malformed, ms: ms() };
        if (reason === 'timeout') return { kind: 'timeout', ms: ms() };
        if (reason === 'aborted') return { kind: 'aborted', ms: ms() };
        const how = error instanceof Error ? error.message : String(error);
        return { kind: 'exited', how, ms: ms() };
      },
    );
    return { sent, outcome, id };
  }

  /**
   * Resolves true once `done()` holds (checked now and after every line and at exit), false
   * after `timeoutMs`, at the exit or on abort. Contract: never rejects; leaves no timer.
   */
  waitUntil(done: () => boolean, timeoutMs: number, abortable = true): Promise<boolean> {
    const over = () => this.gone || (abortable && this.signal.aborted);
    if (done()) return Promise.resolve(true);
    if (over()) return Promise.resolve(false);
    return new Promise((resolve) => {
      const finish = (value: boolean) => {
        clearTimeout(timer);
        this.watchers.delete(watcher);
        resolve(value);
      };
      const watcher = () => {
        if (done()) finish(true);
        else if (over()) finish(false);
      };
      const timer = setTimeout(() => finish(done()), timeoutMs);
      this.watchers.add(watcher);
    });
  }

  /** Waits for the process to exit (and its output to be read); true when it has. */
  async waitForExit(timeoutMs: number): Promise<boolean> {
    await this.waitUntil(() => this.gone, timeoutMs, false);
    return this.exitInfo !== undefined;
  }

  /** The process has exited and its last output has been read. */
  get ended(): boolean {
    return this.gone;
  }

  closeStdin(): void {
    this.transport?.close();
  }

  /** Whether a live member of its process group remains (the leader included). */
  groupAlive(): boolean {
    return this.pid !== undefined && processGroupAlive(this.pid);
  }

  /** SIGTERM to the group, SIGKILL after the kill grace, as zot does. Contract: never rejects. */
  async terminate(): Promise<KillResult> {
    const transport = this.transport;
    let result: KillResult = 'gone';
    if (transport?.terminateGroup) result = await transport.terminateGroup();
    else if (transport) await transport.terminate();
    await this.waitForExit(this.spec.killGraceMs + OUTPUT_END_GRACE_MS);
    return result;
  }

  /** Last resort when zot itself is exiting: SIGKILL to the group, synchronously. */
  killNow(): void {
    this.transport?.terminateNow();
  }

  /**
   * Keeps the end of its stderr (its log file is about to be removed) and releases the pipes,
   * so that nothing keeps zot's event loop alive.
   */
  release(): void {
    this.stderrKept = this.stderrNow();
    this.watchers.clear();
    void this.transport?.terminate();
  }
}
