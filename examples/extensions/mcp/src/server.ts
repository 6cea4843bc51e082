// One MCP server: its connection through the official SDK client (stdio or Streamable HTTP),
// its state, the tail of its stderr and the restart rule (a dead server is restarted on its
// next call, at most once a minute).
import type { ChildProcess } from 'node:child_process';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { ServerConfig } from './config.js';
import { redactUrlsIn } from './redact.js';
import { SANDBOX_FAILED, serverCommand } from './sandbox.js';
import type { McpToolInfo } from './tools.js';

export type ServerState = 'idle' | 'starting' | 'ready' | 'failed' | 'exited' | 'refused';

export const RESTART_INTERVAL_MS = 60_000;
const STDERR_TAIL_CHARS = 4096;
const MAX_TOOL_PAGES = 20;
/** The longest message line accepted from a stdio server (zot's own frame bound). */
const MAX_LINE_BYTES = 32 * 1024 * 1024;

type McpSdk = typeof import('./mcp-sdk.js');
let loading: Promise<McpSdk> | undefined;
/** Set once loaded: a connected server's calls use it without waiting. */
let loaded: McpSdk | undefined;
/** The MCP SDK, evaluated on the first connection (see mcp-sdk.ts). */
const mcpSdk = () => (loading ??= import('./mcp-sdk.js').then((sdk) => (loaded = sdk)));

/** The last few KiB of a stream, as text. */
export class Tail {
  private text = '';
  push(chunk: string): void {
    this.text = (this.text + chunk).slice(-STDERR_TAIL_CHARS);
  }
  /** The last `lines` non-empty lines. */
  last(lines: number): string {
    return this.text
      .split('\n')
      .filter((l) => l.trim() !== '')
      .slice(-lines)
      .join('\n');
  }
  clear(): void {
    this.text = '';
  }
}

/** How long a server may take to start (connect and list its tools), and how that was set. */
export interface StartupLimit {
  readonly ms: number;
  /** Where the limit can be changed, for the error when it passes. */
  readonly knob: string;
}

export interface ServerEvents {
  /** The connection ended without our asking (the process exited, the stream closed). */
  onExit(server: McpServer): void;
  /** The server said its tool list changed, and here is the new one. */
  onToolsChanged(server: McpServer): void;
}

export class McpServer {
  state: ServerState = 'idle';
  tools: McpToolInfo[] = [];
  /** Why it failed or how it ended, for /mcp and error results. */
  error: string | undefined;
  readonly stderr = new Tail();
  pid: number | undefined;
  /** When it was last restarted without the user asking (the once-a-minute rule). */
  lastAutoRestart: number | undefined;
  /** Tools registered deferred (decided once, on the first tool list). */
  deferred: boolean | undefined;
  /** The tools its last listing in an earlier run gave (the cache), until it lists them now. */
  cached: McpToolInfo[] | undefined;
  /** It runs behind `zot sandbox exec` (set at each start). */
  sandboxed = false;
  /** `zot sandbox exec` said its sandbox could not start (this start). */
  private sandboxRefused = false;
  /** When the current start began (performance.now()), for the start-up limit. */
  private startedAt = 0;
  private client: Client | undefined;
  /** The connection being made: closed at once when the server is stopped meanwhile. */
  private connecting: { client: Client; transport: Transport } | undefined;
  /** The listing that follows a tools/list_changed, while it runs. */
  private relisting: Promise<void> | undefined;
  private starting: Promise<void> | undefined;
  private generation = 0;

  constructor(
    readonly config: ServerConfig,
    private readonly cwd: string,
    private readonly events: ServerEvents,
    readonly startupLimit: StartupLimit,
  ) {}

  get name(): string {
    return this.config.name;
  }

  /** Connects and lists tools. Contract: never rejects; failure is `state` and `error`. */
  start(): Promise<void> {
    this.starting ??= this.connect().finally(() => (this.starting = undefined));
    return this.starting;
  }

  /**
   * start(), from the next turn of the event loop on: what runs now (writing `ready`) is not
   * delayed by loading the MCP SDK and spawning. It counts as starting at once (a call waits).
   */
  startSoon(): Promise<void> {
    if (this.starting) return this.starting;
    const generation = this.generation;
    this.state = 'starting';
    this.startedAt = performance.now();
    this.starting = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => (generation === this.generation ? this.connect() : undefined))
      .finally(() => (this.starting = undefined));
    return this.starting;
  }

  /**
   * Waits while it is starting, at most `ms`; resolves with whether it is ready. A start that
   * passes its own limit ends as `failed` (with the limit in `error`) before that.
   */
  async started(ms: number): Promise<boolean> {
    const starting = this.starting;
    if (starting && ms > 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([starting, new Promise<void>((r) => (timer = setTimeout(r, ms)))]);
      clearTimeout(timer);
    }
    return this.state === 'ready';
  }

  /** Its tools as known now: listed, or (while it starts) from the cache. */
  get knownTools(): readonly McpToolInfo[] {
    return this.state === 'ready' ? this.tools : (this.cached ?? this.tools);
  }

  /**
   * Whether a start is still settling: a start that failed stays in flight while its client is
   * closed, and start() then returns that start instead of a new one.
   */
  get settling(): boolean {
    return this.starting !== undefined;
  }

  /** Milliseconds since the current start began. */
  get startingForMs(): number {
    return Math.round(performance.now() - this.startedAt);
  }

  /** What a call gets when the start-up limit passed. */
  private limitMessage(): string {
    const { ms, knob } = this.startupLimit;
    return `it did not start within ${ms} ms (its start-up limit, ${knob})`;
  }

  private transport(sdk: McpSdk, generation: number): Transport {
    const config = this.config;
    if (config.kind === 'http') {
      return new sdk.StreamableHTTPClientTransport(new URL(config.url), {
        requestInit: { headers: { ...config.headers } },
      });
    }
    const env: Record<string, string> = {};
    for (const [key, value] of Object.entries(process.env))
      if (value !== undefined) env[key] = value;
    const launch = serverCommand(config, this.cwd, process.env);
    if ('error' in launch) throw new Error(launch.error);
    this.sandboxed = launch.sandboxed;
    this.sandboxRefused = false;
    const transport = new sdk.StdioClientTransport({
      command: launch.command,
      args: launch.args,
      env: { ...env, ...config.env },
      cwd: this.cwd,
      stderr: 'pipe',
    });
    if (launch.sandboxed) {
      // The SDK keeps the child to itself and forgets it once closed: its status is kept here.
      const start = transport.start.bind(transport);
      transport.start = async () => {
        await start();
        childOf(transport)?.once('exit', (code) => {
          if (code === SANDBOX_FAILED && generation === this.generation) this.sandboxRefused = true;
        });
      };
    }
    transport.stderr?.on('data', (chunk: Buffer) => {
      if (generation === this.generation) this.stderr.push(chunk.toString('utf8'));
    });
    return transport;
  }

  /**
   * Starts the server and lists its tools, within its start-up limit (counted from here: loading
   * the MCP SDK, spawning or connecting, initialize, tools/list); past the limit it is ended.
   */
  private async connect(): Promise<void> {
    const generation = ++this.generation;
    // Set before the first await: a call made right after start() waits for this start.
    this.state = 'starting';
    this.startedAt = performance.now();
    this.error = undefined;
    this.stderr.clear();
    let timer: NodeJS.Timeout | undefined;
    const limit = new Promise<'limit'>(
      (resolve) => (timer = setTimeout(resolve, this.startupLimit.ms, 'limit')),
    );
    let opened: Opened | undefined;
    try {
      await this.closeClient();
      const sdk = await Promise.race([mcpSdk(), limit]);
      if (generation !== this.generation) return;
      if (sdk === 'limit') throw new StartupLimitPassed(this.limitMessage());
      opened = this.open(sdk, generation);
      const outcome = await Promise.race([opened.listed, limit]);
      if (generation !== this.generation) return;
      if (outcome === 'limit') throw new StartupLimitPassed(this.limitMessage());
      this.tools = outcome;
      this.connecting = undefined;
      this.client = opened.client;
      this.state = 'ready';
      opened.onReady();
    } catch (error) {
      if (generation !== this.generation) return;
      this.connecting = undefined;
      this.state = 'failed';
      // The SDK's messages can quote the server URL, token and all.
      this.error = redactUrlsIn((error as Error).message || String(error));
      if (this.sandboxRefused) this.error = SANDBOX_NOTE;
      // A server past its limit may be stuck anywhere: it is not asked to end, it is ended.
      if (error instanceof StartupLimitPassed && opened) childOf(opened.transport)?.kill('SIGKILL');
      await opened?.client.close().catch(() => {});
    } finally {
      clearTimeout(timer);
    }
  }

  /** A client and transport for this start, with their handlers; `listed` is the first listing. */
  private open(sdk: McpSdk, generation: number): Opened {
    const client = new sdk.Client({ name: 'zot-mcp', version: '1.0.0' }, { capabilities: {} });
    const transport = this.transport(sdk, generation);
    this.connecting = { client, transport };
    let exitNote: string | undefined;
    client.onclose = () => {
      // A start that already failed (its limit passed) keeps its reason.
      if (generation !== this.generation) return;
      if (this.state !== 'starting' && this.state !== 'ready') return;
      const wasReady = this.state === 'ready';
      this.state = this.state === 'starting' ? 'failed' : 'exited';
      this.error =
        exitNote ?? (this.config.kind === 'http' ? 'the connection closed' : 'the process exited');
      this.client = undefined;
      this.pid = undefined;
      if (wasReady) this.events.onExit(this);
    };
    // Changes are coalesced: one listing at a time, and one more if more changes came meanwhile.
    // A change announced while connecting is listed once the server is ready.
    let listing = false;
    let changed = false;
    const relist = (): Promise<void> | undefined => {
      if (listing || this.state !== 'ready') {
        changed = true;
        return this.relisting;
      }
      listing = true;
      this.relisting = (async () => {
        try {
          while (changed && generation === this.generation && this.state === 'ready') {
            changed = false;
            this.tools = await this.listTools(client);
            this.events.onToolsChanged(this);
          }
        } catch {
          // the next change or restart lists them again
        } finally {
          listing = false;
          // calls stop waiting on a listing once it is done
          if (generation === this.generation) this.relisting = undefined;
        }
      })();
      return this.relisting;
    };
    client.setNotificationHandler(sdk.ToolListChangedNotificationSchema, () => {
      if (generation !== this.generation) return;
      changed = true;
      return relist();
    });
    const listed = (async () => {
      await client.connect(transport, { timeout: this.startupLimit.ms });
      const child = childOf(transport);
      if (child) {
        this.pid = child.pid;
        // The SDK keeps the child process to itself; we want its exit status for the report,
        // and a bound on its output lines (the SDK's reader would buffer a line without end).
        child.once('exit', (code, signal) => {
          exitNote = signal
            ? `the process was killed by ${signal}`
            : `the process exited with status ${code}`;
        });
        let pending = 0;
        child.stdout?.on('data', (chunk: Buffer) => {
          const newline = chunk.lastIndexOf(10);
          pending = newline < 0 ? pending + chunk.length : chunk.length - newline - 1;
          if (pending > MAX_LINE_BYTES) {
            exitNote = `it sent a line over ${MAX_LINE_BYTES} bytes; stopped`;
            child.kill('SIGKILL');
          }
        });
      }
      return this.listTools(client);
    })();
    return { client, transport, listed, onReady: () => void (changed && relist()) };
  }

  private async listTools(client: Client): Promise<McpToolInfo[]> {
    const tools: McpToolInfo[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_TOOL_PAGES; page++) {
      const result = await client.listTools(cursor === undefined ? {} : { cursor }, {
        timeout: this.startupLimit.ms,
      });
      tools.push(...result.tools);
      cursor = result.nextCursor;
      if (cursor === undefined) break;
    }
    return tools;
  }

  /** Whether a call may restart it now (once a minute at most, unless the user asks). */
  mayAutoRestart(now = Date.now()): boolean {
    return this.lastAutoRestart === undefined || now - this.lastAutoRestart >= RESTART_INTERVAL_MS;
  }

  nextRestartAt(): number {
    return (this.lastAutoRestart ?? 0) + RESTART_INTERVAL_MS;
  }

  /** Resolves with whether it is connected afterwards. */
  async restart(auto: boolean): Promise<boolean> {
    if (auto) this.lastAutoRestart = Date.now();
    await this.start();
    return this.state === 'ready';
  }

  /** Whether a listing announced by tools/list_changed is running. */
  get relistingTools(): boolean {
    return this.relisting !== undefined;
  }

  /**
   * Resolves once the tool-list changes announced so far are listed and registered (at most
   * `waitMs`): a call that changed the server's tools lets the model see them on its next step.
   */
  async toolsSettled(waitMs: number): Promise<void> {
    if (!this.relisting) return;
    let timer: NodeJS.Timeout | undefined;
    const limit = new Promise<void>((resolve) => (timer = setTimeout(resolve, waitMs)));
    await Promise.race([this.relisting, limit]);
    clearTimeout(timer);
  }

  /**
   * Calls a tool; throws on protocol errors (the caller makes them error results). The result
   * is checked only for being an object: mapResult treats every field as untrusted anyway, and
   * `callTool`'s own checks cost 35-50 µs a call on the bench machine (bench suite mcp). So
   * structured content is not checked against a tool's output schema (the model is shown the
   * text), and tools that run only as tasks are never registered (see tools.ts).
   */
  call(
    tool: string,
    args: Record<string, unknown>,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<unknown> {
    const client = this.client;
    if (!client || this.state !== 'ready')
      return Promise.reject(new Error(`server "${this.name}" is not connected`));
    return client.request(
      { method: 'tools/call', params: { name: tool, arguments: args } },
      loaded!.ResultSchema,
      // zot's cancel aborts `signal`; the MCP client then sends notifications/cancelled.
      { timeout: timeoutMs, ...(signal ? { signal } : {}) },
    );
  }

  private async closeClient(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    this.pid = undefined;
    await client?.close().catch(() => {});
  }

  /**
   * Closes the connection. A server still starting is ended at once (zot is exiting or the
   * server is being restarted: nothing it could still say is awaited).
   */
  async stop(): Promise<void> {
    this.generation++;
    this.state = 'idle';
    const connecting = this.connecting;
    this.connecting = undefined;
    if (connecting) {
      childOf(connecting.transport)?.kill('SIGTERM');
      void connecting.client.close().catch(() => {});
    }
    await this.closeClient();
  }
}

class StartupLimitPassed extends Error {}

const SANDBOX_NOTE =
  'its sandbox could not start, so it was not run (it never runs without it); why, and the fix:';

/** A start's connection: the client, its transport, the first listing. */
interface Opened {
  readonly client: Client;
  readonly transport: Transport;
  readonly listed: Promise<McpToolInfo[]>;
  /** Lists again when a change was announced while connecting. */
  readonly onReady: () => void;
}

/** The SDK keeps a stdio server's child process to itself (undefined for HTTP). */
function childOf(transport: Transport): ChildProcess | undefined {
  return (transport as unknown as { _process?: ChildProcess })._process;
}
