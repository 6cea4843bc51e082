// The child-process transport: one extension subprocess in its own process group, stdin and
// stdout as pipes, stderr appended to its log, started through the security launcher.
import type { ChildProcess } from 'node:child_process';
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import {
  encodeFrame,
  type FrameFromHost,
  type SendOptions,
  type TransportExit,
  type TransportHandlers,
} from '@zot/protocol';
import { LineSplitter } from '@zot/protocol/jsonl';
import { HeldEvents } from './held-events.js';
import { launchProcess, type ProcessPolicy } from '../security/launcher.js';
import { killProcessGroup, signalProcessGroup, type KillResult } from '../util/process-group.js';
import { closeQuietly, type ExtensionLog } from './log.js';
import type { ScopeStarter } from './scopes.js';
import { MAX_QUEUED_BYTES, type ExtensionTransport } from './transport.js';

export interface ProcessSpec {
  command: string;
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Between SIGTERM and SIGKILL of the group when it is terminated. */
  killGraceMs: number;
  /** Environment filter (and a sandbox); none: the user's rights. */
  policy?: ProcessPolicy;
  /** A scoped extension: its sandbox, built again at every start. */
  scope?: ScopeStarter;
}

/** Most of bwrap's own message read back from the log when the sandbox does not start. */
const SANDBOX_MESSAGE_BYTES = 8 * 1024;

/**
 * Contract: callbacks never throw into the transport; writes stay in order and respect
 * back-pressure; reads can be paused (setReading); onExit fires exactly once; every signal
 * sent to a live group is written to the extension's log.
 */
export class ProcessTransport implements ExtensionTransport {
  private child: ChildProcess | undefined;
  private readonly queue: string[] = [];
  private queuedBytes = 0;
  private writable = false;
  /** Events of a chunk read before a pause, delivered in order on resume (at most one chunk). */
  private readonly events = new HeldEvents();
  private exited: TransportExit | undefined;
  /** Undoes a scoped start (its network proxy). */
  private release: (() => void) | undefined;

  constructor(
    private readonly spec: ProcessSpec,
    private readonly log: ExtensionLog,
  ) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  start(handlers: TransportHandlers): void {
    let policy = this.spec.policy ?? {};
    const scope = this.spec.scope;
    if (scope) {
      const prepared = scope.start();
      if ('error' in prepared) {
        const spawnError = `its sandbox could not be prepared: ${prepared.error}`;
        this.finish({ code: null, signal: null, spawnError }, handlers);
        return;
      }
      policy = { ...policy, ...prepared.policy };
      this.release = prepared.release;
    }
    const stderrFd = this.log.openForChild();
    const logOffset = stderrFd === undefined ? undefined : sizeOf(stderrFd);
    let child: ChildProcess;
    let started: Promise<boolean>;
    try {
      ({ child, started } = launchProcess({
        argv: [this.spec.command, ...this.spec.args],
        cwd: this.spec.cwd,
        env: this.spec.env,
        detached: process.platform !== 'win32',
        stdio: ['pipe', 'pipe', stderrFd ?? 'ignore'],
        policy,
        // Asked only at its exit (below): no shell in front of a scoped extension to say it ran.
        startKnown: 'at-exit',
      }));
    } catch (error) {
      closeQuietly(stderrFd);
      this.finish({ code: null, signal: null, spawnError: (error as Error).message }, handlers);
      return;
    }
    closeQuietly(stderrFd);
    this.child = child;
    const splitter = new LineSplitter(this.events.sinkFor(handlers));
    let outputEnded = false;
    const outputEnd = () => {
      if (outputEnded) return;
      outputEnded = true;
      handlers.onOutputEnd?.();
    };
    child.stdout!.on('data', (chunk: Buffer) => splitter.push(chunk));
    child.stdout!.on('end', () => (splitter.end(), this.deliver(outputEnd)));
    child.stdout!.on('error', () => this.deliver(outputEnd));
    if (!this.events.reading) child.stdout!.pause();
    child.stdin!.on('error', () => undefined);
    child.stdin!.on('drain', () => this.flush());
    child.once('spawn', () => {
      this.writable = true;
      this.flush();
    });
    child.once('error', (error) =>
      this.finish({ code: null, signal: null, spawnError: error.message }, handlers),
    );
    child.once('exit', (code, signal) => {
      if (!scope) return this.finish({ code, signal }, handlers);
      // The sandbox ended before the extension ran: its own message is in the log.
      void started.then((ran) => {
        if (ran) return this.finish({ code, signal }, handlers);
        const said = logOffset === undefined ? '' : readFrom(this.log.path, logOffset);
        this.finish({ code, signal, spawnError: scope.failure(said) }, handlers);
      });
    });
  }

  private finish(info: TransportExit, handlers: TransportHandlers): void {
    if (this.exited) return;
    this.exited = info;
    this.release?.();
    this.release = undefined;
    this.writable = false;
    this.queue.length = 0;
    this.queuedBytes = 0;
    handlers.onExit(info);
  }

  /**
   * Queues one frame; dropped once the process has exited. A `droppable` frame (a lifecycle
   * event) is refused, returning false, while more than MAX_QUEUED_BYTES wait for an
   * extension that does not read its stdin: its backlog cannot grow zot's memory.
   */
  send(frame: FrameFromHost, options: SendOptions = {}): boolean {
    if (this.exited) return true;
    if (options.droppable && this.backlogBytes() > MAX_QUEUED_BYTES) return false;
    const line = encodeFrame(frame);
    this.queue.push(line);
    this.queuedBytes += line.length;
    if (this.writable) this.flush();
    return true;
  }

  /** Characters waiting for the child: our queue plus what its pipe stream still holds. */
  private backlogBytes(): number {
    return this.queuedBytes + (this.child?.stdin?.writableLength ?? 0);
  }

  private flush(): void {
    const stdin = this.child?.stdin;
    if (!stdin || !this.writable || stdin.destroyed) return;
    while (this.queue.length > 0) {
      const line = this.queue.shift()!;
      this.queuedBytes -= line.length;
      if (!stdin.write(line)) return; // resume on 'drain'
    }
  }

  /** Runs a stdout event now, or after those held while reading is paused (order is kept). */
  private deliver(event: () => void): void {
    this.events.deliver(event);
  }

  /**
   * Pauses or resumes reading the child's stdout. While paused its pipe fills and its own
   * writes block: back-pressure reaches the extension instead of piling up in zot. The rest
   * of a chunk already read waits too. Contract: a handler may call this re-entrantly.
   */
  setReading(on: boolean): void {
    this.events.setReading(on, this.pauseStdout, this.resumeStdout);
  }

  // Made once: setReading runs twice a call (a request added, then settled).
  private readonly pauseStdout = (): void => void this.child?.stdout?.pause();
  private readonly resumeStdout = (): void => void this.child?.stdout?.resume();

  /** Closes the child's stdin once queued lines are written. */
  close(): void {
    const stdin = this.child?.stdin;
    if (!stdin || stdin.destroyed) return;
    if (this.queue.length === 0) stdin.end();
    else stdin.once('drain', () => this.close());
  }

  /**
   * SIGTERM to the whole group, SIGKILL after the grace; also reaps children the process left
   * behind. Contract: never rejects; what was signalled is written to the log.
   */
  async terminate(): Promise<void> {
    await this.terminateGroup();
  }

  /** terminate(), saying what it took: `gone`, `terminated` (SIGTERM) or `killed` (SIGKILL). */
  async terminateGroup(): Promise<KillResult> {
    const pid = this.child?.pid;
    if (pid === undefined) return 'gone';
    const graceMs = this.spec.killGraceMs;
    const result = await killProcessGroup(pid, { graceMs });
    if (result === 'terminated') this.log.write(`sent SIGTERM to process group ${pid}`);
    else if (result === 'killed')
      this.log.write(
        `sent SIGTERM to process group ${pid}, then SIGKILL: still alive after ${graceMs} ms`,
      );
    this.child?.stdout?.destroy();
    this.child?.stdin?.destroy();
    this.events.clear(); // nobody listens any more
    return result;
  }

  terminateNow(): void {
    const pid = this.child?.pid;
    if (pid !== undefined && signalProcessGroup(pid, 'SIGKILL'))
      this.log.write(`sent SIGKILL to process group ${pid}`);
  }
}

function sizeOf(fd: number): number | undefined {
  try {
    return fstatSync(fd).size;
  } catch {
    return undefined;
  }
}

/** Up to SANDBOX_MESSAGE_BYTES of `path` from `offset`. Contract: never throws. */
function readFrom(path: string, offset: number): string {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const buffer = Buffer.alloc(SANDBOX_MESSAGE_BYTES);
    const read = readSync(fd, buffer, 0, buffer.length, offset);
    return buffer.subarray(0, read).toString('utf8');
  } catch {
    return '';
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
