// The extension under test, spawned the way the host spawns it (its directory as working
// directory, its own process group, stdin/stdout pipes), with every stdout line decoded once at
// the boundary and kept only as far as the checks need: bounded whatever the extension writes.
import type { ChildProcess } from 'node:child_process';
import { launchProcess, type ProcessPolicy } from '../../../security/launcher.js';
import type { ScopeStarter } from '../../../extensions/scopes.js';
import { decodeFromExtension, MAX_FRAME_BYTES, type FrameFromExtension } from '@zot/protocol';
import { LineSplitter } from '@zot/protocol/jsonl';
import { FrameStats } from './frame-stats.js';
import {
  isReplyType,
  REPLY_TYPE,
  type ReplyFrame,
  type RequestType,
} from '../../../extensions/peer.js';
import { describeExit, type ExitInfo } from '../../../extensions/transport.js';
import {
  killProcessGroup,
  processGroupAlive,
  signalProcessGroup,
  type KillResult,
} from '../../../util/process-group.js';

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

export interface Spec {
  command: string;
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** The environment filter (default: the launcher's, without env_passthrough). */
  scrubEnv?(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv;
  /** A scoped extension: the sandbox it runs in, as zot would run it. */
  scope?: ScopeStarter;
}

/** Most registration frames kept; more are counted. */
const MAX_REGISTRATIONS = 500;
/** After the exit, how long its last output may take to be read (a grandchild may hold it). */
const OUTPUT_END_GRACE_MS = 500;
/** Most stderr kept (its end). */
const STDERR_LIMIT = 16 * 1024;

interface Pending {
  expects: ReplyFrame['type'];
  sentAt: number;
  settle(outcome: Outcome): void;
}

/**
 * Contract: never throws into its caller; every wait resolves (never rejects) by its deadline,
 * at the extension's exit or when `signal` aborts; memory stays bounded.
 */
export class ExtensionChild {
  private child: ChildProcess | undefined;
  readonly startedAtMs = Date.now();
  private exitInfo: ExitInfo | undefined;
  /** The exit is known and what it wrote before it has been read (or it had long enough). */
  private gone = false;
  private stdoutEnded = false;
  /** Stdout closed and the process still ran after MUTE_GRACE_MS. */
  private mute = false;
  private readonly watchers = new Set<() => void>();
  private readonly pending = new Map<string, Pending>();
  private nextId = 1;
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
  private stderrText = '';
  /** Undoes a scoped start (its network proxy). */
  private releaseScope: (() => void) | undefined;
  stderrTruncated = false;
  /** Lines that arrive while nothing is pending are offered here (probes for late replies). */
  onLine: ((line: Line) => void) | undefined;

  constructor(
    private readonly spec: Spec,
    private readonly signal: AbortSignal,
  ) {
    signal.addEventListener('abort', () => this.notify(), { once: true });
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }
  get exit(): ExitInfo | undefined {
    return this.exitInfo;
  }
  get exitText(): string | undefined {
    return this.exitInfo && describeExit(this.exitInfo);
  }
  get stderr(): string {
    return this.stderrText;
  }
  elapsed(from = this.startedAtMs): number {
    return Date.now() - from;
  }

  start(): void {
    let child: ChildProcess;
    let started: Promise<boolean>;
    let policy: ProcessPolicy = this.spec.scrubEnv ? { scrubEnv: this.spec.scrubEnv } : {};
    const scope = this.spec.scope;
    if (scope) {
      const prepared = scope.start();
      if ('error' in prepared) {
        this.settleExit({ code: null, signal: null, spawnError: prepared.error });
        return;
      }
      policy = { ...policy, ...prepared.policy };
      this.releaseScope = prepared.release;
    }
    try {
      ({ child, started } = launchProcess({
        argv: [this.spec.command, ...this.spec.args],
        cwd: this.spec.cwd,
        env: this.spec.env,
        detached: process.platform !== 'win32',
        stdio: ['pipe', 'pipe', 'pipe'],
        policy,
      }));
    } catch (error) {
      this.settleExit({ code: null, signal: null, spawnError: (error as Error).message });
      return;
    }
    this.child = child;
    const splitter = new LineSplitter({
      maxLineBytes: MAX_FRAME_BYTES,
      onLine: (text) => this.receive(text),
      onOversize: (bytes) =>
        this.receiveBad(`a line of ${bytes} bytes, over the 32 MiB frame limit`, bytes),
      onInvalidUtf8: (length, bytes) =>
        this.receiveBad(
          `a line of ${length} bytes that is not valid UTF-8`,
          undefined,
          Buffer.from(bytes).toString('utf8'),
        ),
    });
    child.stdout!.on('data', (chunk: Buffer) => splitter.push(chunk));
    const ended = () => {
      splitter.end();
      this.stdoutEnded = true;
      if (this.exitInfo) return this.settleGone();
      // A crash closes stdout a moment before its exit is seen; one still running after the
      // grace is alive but mute, and nothing it does can answer any more.
      setTimeout(() => {
        if (!this.exitInfo) this.failPending();
      }, MUTE_GRACE_MS).unref();
    };
    child.stdout!.on('end', ended);
    child.stdout!.on('error', ended);
    child.stderr!.on('data', (chunk: Buffer) => this.keepStderr(chunk.toString('utf8')));
    child.stderr!.on('error', () => undefined);
    child.stdin!.on('error', () => undefined);
    child.once('error', (error) =>
      this.settleExit({ code: null, signal: null, spawnError: error.message }),
    );
    child.once('exit', (code, signal) => {
      if (!scope) return this.settleExit({ code, signal });
      // The sandbox ended before the extension ran: say why, as zot would.
      void started.then((ran) =>
        this.settleExit(
          ran ? { code, signal } : { code, signal, spawnError: scope.failure(this.stderrText) },
        ),
      );
    });
  }

  private keepStderr(text: string): void {
    this.stderrText += text;
    if (this.stderrText.length > STDERR_LIMIT) {
      this.stderrText = this.stderrText.slice(-STDERR_LIMIT);
      this.stderrTruncated = true;
    }
  }

  /** The exit is settled once its last output is read, or after OUTPUT_END_GRACE_MS. */
  private settleExit(info: ExitInfo): void {
    if (this.exitInfo) return;
    this.exitInfo = info;
    this.releaseScope?.();
    this.releaseScope = undefined;
    if (this.stdoutEnded || !this.child) return this.settleGone();
    setTimeout(() => this.settleGone(), OUTPUT_END_GRACE_MS);
  }

  /** Every request waiting, and every later one, fails at once: the extension closed stdout. */
  private failPending(): void {
    this.mute = true;
    for (const [id, entry] of [...this.pending]) {
      this.pending.delete(id);
      entry.settle({ kind: 'exited', how: STDOUT_CLOSED, ms: this.elapsed(entry.sentAt) });
    }
    this.notify();
  }

  private settleGone(): void {
    if (this.gone || !this.exitInfo) return;
    this.gone = true;
    const info = this.exitInfo;
    for (const [id, entry] of [...this.pending]) {
      this.pending.delete(id);
      entry.settle({ kind: 'exited', how: describeExit(info), ms: this.elapsed(entry.sentAt) });
    }
    this.notify();
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
    this.onLine?.(line);
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
      } else this.stats.invalidLine(text, decoded.error);
      // A broken reply that still names its request fails that request at once (as the host).
      if (decoded.id !== undefined && isReplyType(decoded.type)) {
        const entry = this.pending.get(decoded.id);
        if (entry && entry.expects === decoded.type) {
          this.pending.delete(decoded.id);
          entry.settle({
            kind: 'malformed',
            line: text,
            error: decoded.error,
            ms: this.elapsed(entry.sentAt),
          });
        }
      }
    } else this.onFrame(line, decoded.frame);
    this.onLine?.(line);
    this.notify();
  }

  private onFrame(line: Line, frame: FrameFromExtension): void {
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
        return;
    }
  }

  private onReply(line: Line, frame: ReplyFrame): void {
    const entry = this.pending.get(frame.id);
    if (!entry) {
      this.stats.unsolicitedReply(line.text);
      return;
    }
    this.pending.delete(frame.id);
    const ms = this.elapsed(entry.sentAt);
    if (entry.expects !== frame.type) {
      const error = `answered with a ${frame.type}; the request expects a ${entry.expects}`;
      entry.settle({ kind: 'malformed', line: line.text, error, ms });
    } else entry.settle({ kind: 'reply', frame, line: line.text, ms });
  }

  /** Writes one frame (any object with a `type`); returns the line written. */
  send(frame: { type: string } & Record<string, unknown>): string {
    const line = JSON.stringify(frame);
    const stdin = this.child?.stdin;
    if (stdin && !stdin.destroyed && !this.exitInfo) {
      try {
        stdin.write(`${line}\n`);
      } catch {
        // a closed pipe: the exit tells the story
      }
    }
    return line;
  }

  /** Sends a request with a fresh id; resolves with the outcome. Contract: never rejects. */
  request(
    frame: { type: RequestType } & Record<string, unknown>,
    timeoutMs: number,
  ): { sent: string; outcome: Promise<Outcome> } {
    const id = `t${this.nextId++}`;
    const sent = this.send({ ...frame, id });
    const sentAt = Date.now();
    const outcome = new Promise<Outcome>((resolve) => {
      if (this.gone) return resolve({ kind: 'exited', how: this.exitText!, ms: 0 });
      if (this.mute) return resolve({ kind: 'exited', how: STDOUT_CLOSED, ms: 0 });
      let done = false;
      const settle = (result: Outcome) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        this.signal.removeEventListener('abort', onAbort);
        resolve(result);
      };
      const onAbort = () => (
        this.pending.delete(id),
        settle({ kind: 'aborted', ms: this.elapsed(sentAt) })
      );
      const timer = setTimeout(() => {
        this.pending.delete(id);
        settle({ kind: 'timeout', ms: this.elapsed(sentAt) });
      }, timeoutMs);
      this.signal.addEventListener('abort', onAbort, { once: true });
      this.pending.set(id, { expects: REPLY_TYPE[frame.type], sentAt, settle });
    });
    return { sent, outcome };
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
    const stdin = this.child?.stdin;
    if (stdin && !stdin.destroyed) stdin.end();
  }

  /** Whether a live member of its process group remains (the leader included). */
  groupAlive(): boolean {
    return this.pid !== undefined && processGroupAlive(this.pid);
  }

  /** SIGTERM to the group, SIGKILL after `graceMs`. Contract: never rejects. */
  async terminate(graceMs: number): Promise<KillResult> {
    const pid = this.pid;
    const result = pid === undefined ? 'gone' : await killProcessGroup(pid, { graceMs });
    await this.waitForExit(graceMs + OUTPUT_END_GRACE_MS);
    return result;
  }

  /** Last resort when zot itself is exiting: SIGKILL to the group, synchronously. */
  killNow(): void {
    if (this.pid !== undefined) signalProcessGroup(this.pid, 'SIGKILL');
  }

  /** Releases the pipes, so that nothing keeps zot's event loop alive. */
  release(): void {
    this.child?.stdout?.destroy();
    this.child?.stderr?.destroy();
    this.child?.stdin?.destroy();
    this.watchers.clear();
  }
}
