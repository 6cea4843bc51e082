// The child-process transport: start, send, close, plus line, close and error callbacks.
import { spawn, type ChildProcess } from 'node:child_process';
import { LineSplitter } from '@zot/protocol/jsonl';
import { killProcessGroup, signalProcessGroup } from '../util/process-group.js';
import { closeQuietly, type ExtensionLog } from './log.js';

export interface ProcessSpec {
  command: string;
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
}

/** Most characters of events queued for one extension before further events are dropped. */
export const MAX_QUEUED_BYTES = 16 * 1024 * 1024;

export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Set when the process could not be started at all. */
  spawnError?: string;
}

export interface TransportHandlers {
  onLine(line: string): void;
  onOversize(byteLength: number): void;
  /** A line that is not UTF-8 (not delivered to onLine); `bytes` is valid during the call. */
  onInvalidUtf8(byteLength: number, bytes: Uint8Array): void;
  /** The child's stdout ended or failed (it may still be running). At most once. */
  onOutputEnd(): void;
  onExit(info: ExitInfo): void;
}

export function describeExit(info: ExitInfo): string {
  if (info.spawnError) return `could not start: ${info.spawnError}`;
  if (info.signal) return `killed by ${info.signal}`;
  return `exited with status ${info.code}`;
}

/**
 * One extension subprocess in its own process group, stderr appended to its log.
 * Contract: callbacks never throw into the transport; writes stay in order and respect
 * back-pressure; reads can be paused (setReading); onExit fires exactly once.
 */
export class ProcessTransport {
  private child: ChildProcess | undefined;
  private readonly queue: string[] = [];
  private queuedBytes = 0;
  private writable = false;
  private reading = true;
  /** Events of a chunk read before a pause, delivered in order on resume (at most one chunk). */
  private readonly held: Array<() => void> = [];
  private draining = false;
  private exited: ExitInfo | undefined;
  private readonly exitWaiters: Array<(info: ExitInfo) => void> = [];

  constructor(
    private readonly spec: ProcessSpec,
    private readonly log: ExtensionLog,
  ) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }
  get exitInfo(): ExitInfo | undefined {
    return this.exited;
  }

  start(handlers: TransportHandlers): void {
    const stderrFd = this.log.openForChild();
    let child: ChildProcess;
    try {
      child = spawn(this.spec.command, this.spec.args, {
        cwd: this.spec.cwd,
        env: this.spec.env,
        detached: process.platform !== 'win32',
        stdio: ['pipe', 'pipe', stderrFd ?? 'ignore'],
        windowsHide: true,
      });
    } catch (error) {
      closeQuietly(stderrFd);
      this.finish({ code: null, signal: null, spawnError: (error as Error).message }, handlers);
      return;
    }
    closeQuietly(stderrFd);
    this.child = child;
    const splitter = new LineSplitter({
      onLine: (line) => this.deliver(() => handlers.onLine(line)),
      onOversize: (bytes) => this.deliver(() => handlers.onOversize(bytes)),
      onInvalidUtf8: (length, bytes) => {
        const copy = Buffer.from(bytes); // only valid during this call
        this.deliver(() => handlers.onInvalidUtf8(length, copy));
      },
    });
    let outputEnded = false;
    const outputEnd = () => {
      if (outputEnded) return;
      outputEnded = true;
      handlers.onOutputEnd();
    };
    child.stdout!.on('data', (chunk: Buffer) => splitter.push(chunk));
    child.stdout!.on('end', () => (splitter.end(), this.deliver(outputEnd)));
    child.stdout!.on('error', () => this.deliver(outputEnd));
    if (!this.reading) child.stdout!.pause();
    child.stdin!.on('error', () => undefined);
    child.stdin!.on('drain', () => this.flush());
    child.once('spawn', () => {
      this.writable = true;
      this.flush();
    });
    child.once('error', (error) =>
      this.finish({ code: null, signal: null, spawnError: error.message }, handlers),
    );
    child.once('exit', (code, signal) => this.finish({ code, signal }, handlers));
  }

  private finish(info: ExitInfo, handlers: TransportHandlers): void {
    if (this.exited) return;
    this.exited = info;
    this.writable = false;
    this.queue.length = 0;
    this.queuedBytes = 0;
    try {
      handlers.onExit(info);
    } finally {
      for (const waiter of this.exitWaiters.splice(0)) waiter(info);
    }
  }

  /**
   * Queues one line (with its LF); dropped once the process has exited. A `droppable` line
   * (a lifecycle event) is refused, returning false, while more than MAX_QUEUED_BYTES wait
   * for an extension that does not read its stdin: its backlog cannot grow zot's memory.
   */
  send(line: string, options: { droppable?: boolean } = {}): boolean {
    if (this.exited) return true;
    if (options.droppable && this.backlogBytes() > MAX_QUEUED_BYTES) return false;
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
    if (this.reading && this.held.length === 0) event();
    else this.held.push(event);
  }

  /**
   * Pauses or resumes reading the child's stdout. While paused its pipe fills and its own
   * writes block: back-pressure reaches the extension instead of piling up in zot. The rest
   * of a chunk already read waits too. Contract: a handler may call this re-entrantly.
   */
  setReading(on: boolean): void {
    if (this.reading === on) return;
    this.reading = on;
    if (!on) {
      this.child?.stdout?.pause();
      return;
    }
    if (this.draining) return; // the loop below carries on
    this.draining = true;
    try {
      while (this.reading && this.held.length > 0) this.held.shift()!();
    } finally {
      this.draining = false;
    }
    if (this.reading) this.child?.stdout?.resume();
  }

  /** Closes the child's stdin once queued lines are written. */
  closeInput(): void {
    const stdin = this.child?.stdin;
    if (!stdin || stdin.destroyed) return;
    if (this.queue.length === 0) stdin.end();
    else stdin.once('drain', () => this.closeInput());
  }

  /** Resolves when the process has exited, or after `timeoutMs` with undefined. */
  waitForExit(timeoutMs: number): Promise<ExitInfo | undefined> {
    if (this.exited || !this.child) return Promise.resolve(this.exited);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(undefined), timeoutMs);
      this.exitWaiters.push((info) => {
        clearTimeout(timer);
        resolve(info);
      });
    });
  }

  /** SIGTERM the whole group, SIGKILL after the grace; also reaps children left behind. */
  async killGroup(graceMs: number): Promise<void> {
    const pid = this.child?.pid;
    if (pid === undefined) return;
    await killProcessGroup(pid, { graceMs });
    this.child?.stdout?.destroy();
    this.child?.stdin?.destroy();
    this.held.length = 0; // nobody listens any more
  }

  /** Last resort on host exit: SIGKILL the group synchronously. Contract: never throws. */
  killGroupNow(): void {
    const pid = this.child?.pid;
    if (pid !== undefined) signalProcessGroup(pid, 'SIGKILL');
  }
}
