// Drives a real `zot acp` process with the ACP SDK's own client side, over its stdio.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Readable, Writable } from 'node:stream';
import {
  client,
  ndJsonStream,
  type ClientContext,
  type CreateElicitationRequest,
  type CreateElicitationResponse,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
  type SessionNotification,
  type SessionUpdate,
} from '@agentclientprotocol/sdk';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { hangGuard } from './timing.js';
import { startZot, type RunOptions } from './zot.js';

export type PermissionAnswer = (
  request: RequestPermissionRequest,
) => RequestPermissionResponse | Promise<RequestPermissionResponse>;

export interface AcpClient {
  agent: ClientContext;
  child: ChildProcessWithoutNullStreams;
  /** Every session/update, in arrival order. */
  notifications: SessionNotification[];
  /** Every permission request, in arrival order. */
  permissions: RequestPermissionRequest[];
  /** The editor's buffers (fs/read_text_file answers from here first, else the disk). */
  buffers: Map<string, string>;
  /** Every fs/read_text_file's path, in order. */
  reads: string[];
  /** Every fs/write_text_file, in order. */
  writes: Array<{ path: string; content: string }>;
  /** The terminal/* calls (offered when initialized with `terminal: true`): real subprocesses. */
  terminals: FakeTerminals;
  /** Every elicitation/create (offered when initialized with `elicitation: { form: {} }`). */
  elicitations: CreateElicitationRequest[];
  /** How the next elicitations are answered (default: cancel). */
  elicit: (request: CreateElicitationRequest) => CreateElicitationResponse;
  /** How the next permission requests are answered (default: cancelled). */
  answer: PermissionAnswer;
  stderr(): string;
  /** Resolves with the first update (of `sessionId`) matching, waiting for it if need be. */
  waitFor(match: (update: SessionUpdate) => boolean, sessionId?: string): Promise<SessionUpdate>;
  updates(sessionId: string): SessionUpdate[];
  /** Initializes with the given client capabilities. */
  initialize(capabilities?: Record<string, unknown>): Promise<unknown>;
  /** Closes stdin and waits for the exit. */
  close(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export function startAcp(args: string[], options: RunOptions): AcpClient {
  const child = startZot(['acp', ...args], options);
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal })),
  );
  const waiters = new Set<() => void>();
  const self: AcpClient = {
    agent: undefined as unknown as ClientContext,
    child,
    notifications: [],
    permissions: [],
    buffers: new Map(),
    reads: [],
    writes: [],
    elicitations: [],
    elicit: () => ({ action: 'cancel' }),
    terminals: new FakeTerminals(),
    answer: () => ({ outcome: { outcome: 'cancelled' } }),
    stderr: () => stderr,
    updates: (sessionId) =>
      self.notifications.filter((n) => n.sessionId === sessionId).map((n) => n.update),
    waitFor(match, sessionId) {
      const find = () =>
        self.notifications.find(
          (n) => (sessionId === undefined || n.sessionId === sessionId) && match(n.update),
        )?.update;
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no matching session/update in time; stderr: ${stderr}`));
        }, hangGuard(30_000));
        const check = () => {
          const found = find();
          if (!found) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve(found);
        };
        waiters.add(check);
        check();
      });
    },
    initialize: (capabilities = {}) =>
      self.agent.request('initialize', {
        protocolVersion: 1,
        clientCapabilities: capabilities,
        clientInfo: { name: 'zot-test', version: '0' },
      }),
    async close() {
      child.stdin.end();
      const ended = await exited;
      self.terminals.closeAll();
      return ended;
    },
  };
  const app = client({ name: 'zot-test' })
    .onNotification('session/update', ({ params }) => {
      self.notifications.push(params);
      for (const check of [...waiters]) check();
    })
    .onRequest('session/request_permission', ({ params }) => {
      self.permissions.push(params);
      return self.answer(params);
    })
    .onRequest('fs/read_text_file', ({ params }) => {
      self.reads.push(params.path);
      return { content: self.buffers.get(params.path) ?? readFileSync(params.path, 'utf8') };
    })
    .onRequest('fs/write_text_file', ({ params }) => {
      self.writes.push({ path: params.path, content: params.content });
      self.buffers.set(params.path, params.content);
      return {};
    })
    .onRequest('elicitation/create', ({ params }) => {
      self.elicitations.push(params);
      return self.elicit(params);
    })
    .onRequest('terminal/create', ({ params }) => self.terminals.create(params))
    .onRequest('terminal/output', ({ params }) => self.terminals.output(params.terminalId))
    .onRequest('terminal/wait_for_exit', ({ params }) => self.terminals.wait(params.terminalId))
    .onRequest('terminal/kill', ({ params }) => self.terminals.kill(params.terminalId))
    .onRequest('terminal/release', ({ params }) => self.terminals.release(params.terminalId));
  const stream = ndJsonStream(
    Writable.toWeb(child.stdin) as WritableStream<Uint8Array>,
    Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>,
  );
  self.agent = app.connect(stream).agent;
  return self;
}

/** The text of every agent_message_chunk, joined. */
export function agentText(updates: readonly SessionUpdate[]): string {
  return updates
    .map((u) =>
      u.sessionUpdate === 'agent_message_chunk' && u.content.type === 'text' ? u.content.text : '',
    )
    .join('');
}

export const choose =
  (optionId: string): PermissionAnswer =>
  () => ({
    outcome: { outcome: 'selected', optionId },
  });

interface Terminal {
  child: ChildProcess;
  output: string;
  truncated: boolean;
  exit: Promise<{ exitCode: number | null; signal: string | null }>;
  status?: { exitCode: number | null; signal: string | null };
  released: boolean;
}

/**
 * An editor's terminals as the test's client offers them: each command a real subprocess in its
 * own process group, stdout and stderr merged, the output's tail kept within outputByteLimit.
 */
export class FakeTerminals {
  /** Every call, in order: `create <command...>`, `wait t1`, `kill t1`, `output t1`, `release t1`. */
  readonly calls: string[] = [];
  private readonly terminals = new Map<string, Terminal>();
  private next = 0;

  create(params: {
    command: string;
    args?: string[];
    cwd?: string | null;
    outputByteLimit?: number | null;
  }): { terminalId: string } {
    const terminalId = `t${++this.next}`;
    this.calls.push(`create ${[params.command, ...(params.args ?? [])].join(' ')}`);
    const child = spawn(params.command, params.args ?? [], {
      cwd: params.cwd ?? undefined,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const limit = params.outputByteLimit ?? Infinity;
    const terminal: Terminal = {
      child,
      output: '',
      truncated: false,
      released: false,
      exit: new Promise((resolve) =>
        child.on('close', (exitCode, signal) => {
          terminal.status = { exitCode, signal };
          resolve(terminal.status);
        }),
      ),
    };
    const take = (chunk: Buffer) => {
      terminal.output += chunk.toString('utf8');
      if (Buffer.byteLength(terminal.output) > limit) {
        terminal.output = terminal.output.slice(-limit);
        terminal.truncated = true;
      }
    };
    child.stdout!.on('data', take);
    child.stderr!.on('data', take);
    this.terminals.set(terminalId, terminal);
    return { terminalId };
  }

  private get(id: string): Terminal {
    const terminal = this.terminals.get(id);
    if (!terminal || terminal.released) throw new Error(`no terminal ${id}`);
    return terminal;
  }

  async wait(id: string) {
    this.calls.push(`wait ${id}`);
    return this.get(id).exit;
  }

  output(id: string) {
    this.calls.push(`output ${id}`);
    const terminal = this.get(id);
    return {
      output: terminal.output,
      truncated: terminal.truncated,
      ...(terminal.status ? { exitStatus: terminal.status } : {}),
    };
  }

  kill(id: string) {
    this.calls.push(`kill ${id}`);
    this.signal(this.get(id));
    return {};
  }

  release(id: string) {
    this.calls.push(`release ${id}`);
    const terminal = this.get(id);
    this.signal(terminal);
    terminal.released = true;
    return {};
  }

  /** Kills whatever still runs (the test ends). */
  closeAll(): void {
    for (const terminal of this.terminals.values()) this.signal(terminal);
  }

  private signal(terminal: Terminal): void {
    if (terminal.status || terminal.child.pid === undefined) return;
    try {
      process.kill(-terminal.child.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}
