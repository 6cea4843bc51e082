// Drives a real `zot acp` process with the ACP SDK's own client side, over its stdio.
import { readFileSync } from 'node:fs';
import { Readable, Writable } from 'node:stream';
import {
  client,
  ndJsonStream,
  type ClientContext,
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
  /** Every fs/write_text_file, in order. */
  writes: Array<{ path: string; content: string }>;
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
    writes: [],
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
      return exited;
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
    .onRequest('fs/read_text_file', ({ params }) => ({
      content: self.buffers.get(params.path) ?? readFileSync(params.path, 'utf8'),
    }))
    .onRequest('fs/write_text_file', ({ params }) => {
      self.writes.push({ path: params.path, content: params.content });
      self.buffers.set(params.path, params.content);
      return {};
    });
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
