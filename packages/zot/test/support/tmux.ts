// Runs the built zot in a real pseudo-terminal: a detached tmux session of a fixed size on its
// own server socket, driven with send-keys and read with capture-pane, as a person would.
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { hangGuard } from './timing.js';
import { cleanEnv, stopBeforeSandboxCleanup, ZOT_BIN } from './zot.js';

/** Whether tmux is installed (.ci/run installs it). */
export const HAS_TMUX = spawnSync('tmux', ['-V']).status === 0;

/** What the pane shows after zot exits: the exit code, then a shell-like prompt below it. */
export const EXIT_MARK = '[zot exited';
export const SHELL_PROMPT = 'shell$';

export interface TmuxOptions {
  home: string;
  cwd: string;
  env?: Record<string, string | undefined>;
  columns?: number;
  rows?: number;
  /** tmux configuration lines, read before the session starts (e.g. `set -g window-style bg=white`). */
  config?: string[];
  /**
   * Record every byte zot writes to its terminal in this file (tmux pipe-pane), from the first
   * one on: zot starts only once the recording runs. Read it with `raw()`.
   */
  raw?: string;
  /** A program zot runs under (its argv before node's), e.g. a shell with job control. */
  wrap?: string[];
}

export interface WaitOptions {
  /** Also search the scrollback (capture-pane -S -). */
  scrollback?: boolean;
  /** Keep the escape sequences of colours and attributes (capture-pane -e). */
  escapes?: boolean;
  timeoutMs?: number;
}

/** How long after a matching look waitFor looks again (frames of one change come closer). */
const SETTLE_MS = 40;

const quote = (word: string) => `'${word.replace(/'/g, `'\\''`)}'`;

// A test that fails half-way leaves its server running: end them all with the file.
const servers = new Set<string>();
after(() => {
  for (const socket of servers) spawnSync('tmux', ['-L', socket, 'kill-server']);
});

export class TmuxZot {
  /** The control-mode client waitFor captures through (see ControlClient). */
  private control: ControlClient | undefined;

  private constructor(
    readonly socket: string,
    private readonly env: NodeJS.ProcessEnv,
    private readonly rawFile?: string,
  ) {}

  /** Starts `zot <args>` in a new tmux server; the pane stays after zot exits. */
  static start(args: string[], options: TmuxOptions): TmuxZot {
    const socket = `zot-test-${process.pid}-${randomBytes(4).toString('hex')}`;
    const env = cleanEnv(options.home, options.env);
    delete env.TMUX;
    delete env.TMUX_PANE;
    const zot = [...(options.wrap ?? []), process.execPath, ZOT_BIN, ...args].map(quote).join(' ');
    // The pane's program: zot, then its exit code and a prompt, like a shell after it returns.
    let script = `${zot}; printf '\\n${EXIT_MARK} %s]\\n${SHELL_PROMPT} ' "$?"; exec sleep 3600`;
    // With a recording, the pane waits for one line (sent once pipe-pane runs) before zot starts.
    if (options.raw) script = `IFS= read -r _; ${script}`;
    const session = new TmuxZot(socket, env, options.raw);
    servers.add(socket);
    stopBeforeSandboxCleanup(options.home, () => session.kill());
    let config = '/dev/null';
    if (options.config) {
      config = join(options.home, '..', `tmux-${socket}.conf`);
      writeFileSync(config, options.config.join('\n') + '\n');
    }
    session.tmux(
      '-f',
      config,
      'new-session',
      '-d',
      '-s',
      'zot',
      '-x',
      String(options.columns ?? 100),
      '-y',
      String(options.rows ?? 30),
      '-c',
      options.cwd,
      `sh -c ${quote(script)}`,
    );
    if (options.raw) {
      writeFileSync(options.raw, '');
      session.tmux('pipe-pane', '-t', 'zot', '-o', `cat >> ${quote(options.raw)}`);
      session.tmux('send-keys', '-t', 'zot', 'Enter');
    }
    session.control = ControlClient.attach(socket, env);
    return session;
  }

  /**
   * What zot wrote to its terminal so far (decoded as UTF-8), once the recording holds `until`
   * (tmux copies the output to the recording a little after the screen shows it).
   */
  async raw(until: string | ((raw: string) => boolean), timeoutMs?: number): Promise<string> {
    if (!this.rawFile) throw new Error('start TmuxZot with `raw` to record its output');
    const test = typeof until === 'string' ? (raw: string) => raw.includes(until) : until;
    const limit = Date.now() + (timeoutMs ?? hangGuard(15_000));
    for (;;) {
      const raw = readFileSync(this.rawFile, 'utf8');
      if (test(raw)) return raw;
      if (Date.now() > limit) throw new Error(`the recording never held ${String(until)}`);
      await sleep(50);
    }
  }

  private tmux(...args: string[]): string {
    return execFileSync('tmux', ['-L', this.socket, ...args], {
      env: this.env,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  }

  /** Types `text` literally (no key names). */
  type(text: string): void {
    this.tmux('send-keys', '-t', 'zot', '-l', '--', text);
  }

  /** Presses named keys: Enter, Escape, C-c, M-Enter, Up ... */
  press(...keys: string[]): void {
    this.tmux('send-keys', '-t', 'zot', ...keys);
  }

  /**
   * Types `text` and Enter in one send-keys call, so that they reach zot in one read: what a
   * paste without bracketed paste, or a fast typist over a slow link, looks like.
   */
  submitAtOnce(text: string): void {
    this.type(`${text}\r`);
  }

  /** Types `text` and presses Enter. */
  submit(text: string): void {
    this.type(text);
    this.press('Enter');
  }

  /** The visible screen, or with `scrollback` everything the pane holds. */
  capture(options: { scrollback?: boolean; escapes?: boolean } = {}): string {
    return this.tmux(...captureArgs(options));
  }

  /** The same text as capture(), through the control client when it runs (no process started). */
  private async captureQuickly(options: { scrollback?: boolean; escapes?: boolean }) {
    const text = await this.control?.run(captureArgs(options));
    return text ?? this.capture(options);
  }

  /**
   * Waits until the pane shows `what` (a string, a pattern or a predicate of the text).
   * Contract: resolves with the text that matched; rejects with the screen at the deadline.
   */
  async waitFor(
    what: string | RegExp | ((text: string) => boolean),
    options: WaitOptions = {},
  ): Promise<string> {
    const test =
      typeof what === 'string'
        ? (text: string) => text.includes(what)
        : what instanceof RegExp
          ? (text: string) => what.test(text)
          : what;
    const limit = Date.now() + (options.timeoutMs ?? hangGuard(15_000));
    let text = '';
    // The first look the usual way: a test that pressed a key just now and waits for what it
    // brings sees the screen no sooner than it always did (the later looks come 50 ms apart).
    for (let first = true; ; first = false) {
      text = first ? this.capture(options) : await this.captureQuickly(options);
      if (test(text)) return this.lookAgain(text, test, options);
      if (Date.now() > limit) break;
      await sleep(50);
    }
    throw new Error(`the pane never showed ${String(what)}; it shows:\n${text}`);
  }

  /**
   * One change can take more than one frame (a note drawn, then the editor below it), and a look
   * can land between them: what was waited for shows, the rest of the change not yet. A second
   * look a moment later is returned when it still shows what was waited for (a state that is
   * already gone again, like a passing spinner frame, returns the first look).
   */
  private async lookAgain(
    text: string,
    test: (text: string) => boolean,
    options: WaitOptions,
  ): Promise<string> {
    await sleep(SETTLE_MS);
    const again = await this.captureQuickly(options);
    return test(again) ? again : text;
  }

  /** Waits for zot to exit; returns its exit code. */
  async waitForExit(timeoutMs?: number): Promise<number> {
    const text = await this.waitFor(
      (t) => new RegExp(`\\${EXIT_MARK} (\\d+)\\]`).test(t),
      timeoutMs === undefined ? { scrollback: true } : { scrollback: true, timeoutMs },
    );
    return Number(new RegExp(`\\${EXIT_MARK} (\\d+)\\]`).exec(text)![1]);
  }

  /**
   * Ends the tmux server and waits (bounded) until zot itself has exited: a zot ended while it
   * worked still writes as it goes (the cancelled turn's transcript, the history), and the test
   * removes its directories next.
   */
  kill(): void {
    if (!servers.has(this.socket)) return; // ended already
    const zot = this.zotPids();
    this.control?.close();
    spawnSync('tmux', ['-L', this.socket, 'kill-server'], { env: this.env });
    servers.delete(this.socket);
    const limit = Date.now() + hangGuard(10_000);
    while (zot.some(running) && Date.now() < limit) pause(20);
    for (const pid of zot.filter(running)) signal(pid, 'SIGKILL');
  }

  /** The pane's children: zot while it runs (nothing once the pane only waits). */
  private zotPids(): number[] {
    const pane = spawnSync(
      'tmux',
      ['-L', this.socket, 'display', '-p', '-t', 'zot', '#{pane_pid}'],
      {
        env: this.env,
        encoding: 'utf8',
      },
    );
    const shell = Number(pane.stdout?.trim());
    if (!Number.isInteger(shell) || shell <= 0) return [];
    const children = spawnSync('ps', ['-o', 'pid=', '--ppid', String(shell)], { encoding: 'utf8' });
    return (children.stdout ?? '')
      .split('\n')
      .map((line) => Number(line.trim()))
      .filter((pid) => Number.isInteger(pid) && pid > 0);
  }
}

function captureArgs(options: { scrollback?: boolean; escapes?: boolean }): string[] {
  const args = ['capture-pane', '-p', '-t', 'zot'];
  if (options.scrollback) args.push('-S', '-');
  if (options.escapes) args.push('-e');
  return args;
}

/**
 * One tmux control-mode client (`tmux -C`) per session, for the captures waitFor repeats every
 * 50 ms: a capture through it is a line on a pipe, where `tmux capture-pane` starts two
 * processes (about 30 ms of CPU together on this machine, and the synchronous spawn stalls the
 * test's event loop, the fake model's server included). It asks for no pane output (`no-output`) and
 * has no size of its own, so the pane and what zot sees stay as they were. Any failure makes
 * run() answer undefined, and the caller captures the usual way.
 */
class ControlClient {
  private buffer = '';
  private readonly waiting: Array<(text: string | undefined) => void> = [];
  /** The output lines of the command being answered; `ours`: a command this client sent. */
  private block: { lines: string[]; ours: boolean } | undefined;
  private failed = false;

  private constructor(private readonly child: ChildProcess) {
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (chunk: string) => this.read(chunk));
    child.on('error', () => this.fail());
    child.on('exit', () => this.fail());
    child.stdin!.on('error', () => this.fail());
    // Never what keeps a test file's process alive.
    child.unref();
    (child.stdout as unknown as { unref(): void }).unref();
    (child.stdin as unknown as { unref(): void }).unref();
  }

  static attach(socket: string, env: NodeJS.ProcessEnv): ControlClient | undefined {
    try {
      const child = spawn('tmux', ['-L', socket, '-C', 'attach-session', '-t', 'zot'], {
        env,
        stdio: ['pipe', 'pipe', 'ignore'],
      });
      const client = new ControlClient(child);
      // Its answer comes first, before any capture's (commands are answered in order).
      client.waiting.push(() => undefined);
      child.stdin!.write('refresh-client -f no-output\n');
      return client;
    } catch {
      return undefined;
    }
  }

  /** The output of one tmux command, or undefined when it failed or the client is gone. */
  run(args: string[]): Promise<string | undefined> {
    if (this.failed) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      // Also what keeps the test's process alive meanwhile (the client's pipes do not).
      const timer = setTimeout(() => this.fail(), hangGuard(10_000));
      this.waiting.push((text) => {
        clearTimeout(timer);
        resolve(text);
      });
      this.child.stdin!.write(args.map(commandWord).join(' ') + '\n');
    });
  }

  close(): void {
    this.fail();
    this.child.kill();
  }

  /** Lines between `%begin` and `%end` (or `%error`) are one command's output, in order. */
  private read(chunk: string): void {
    this.buffer += chunk;
    let newline: number;
    while ((newline = this.buffer.indexOf('\n')) >= 0) {
      const line = this.buffer.slice(0, newline);
      this.buffer = this.buffer.slice(newline + 1);
      if (this.block === undefined) {
        // Flags 1: a command read from this client; 0: the attach-session it was started with.
        const begin = /^%begin \d+ \d+ (\d+)$/.exec(line);
        if (begin) this.block = { lines: [], ours: (Number(begin[1]) & 1) === 1 };
        continue;
      }
      const end = /^%(end|error) \d+ \d+ \d+$/.exec(line);
      if (!end) {
        this.block.lines.push(line);
        continue;
      }
      const { lines, ours } = this.block;
      this.block = undefined;
      const text = lines.map((l) => `${l}\n`).join('');
      if (ours) this.waiting.shift()?.(end[1] === 'end' ? text : undefined);
    }
  }

  private fail(): void {
    this.failed = true;
    for (const resolve of this.waiting.splice(0)) resolve(undefined);
  }
}

/** A word of a tmux command line, quoted for tmux's parser. */
function commandWord(word: string): string {
  return /^[\w.:\/=-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** Whether `pid` still runs (a zombie waiting to be reaped does not; Linux tells them apart). */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return signal(pid, 0);
  }
}

/** Sends `name` to `pid`; false when there is no such process. */
function signal(pid: number, name: NodeJS.Signals | 0): boolean {
  try {
    process.kill(pid, name);
    return true;
  } catch {
    return false;
  }
}

/** Blocks for `ms` (kill() is synchronous: tests call it from after-hooks that do not wait). */
function pause(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
