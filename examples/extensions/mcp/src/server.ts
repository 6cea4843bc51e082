// One MCP server: its connection through the official SDK client (stdio or Streamable HTTP),
// its state, the tail of its stderr and the restart rule (a dead server is restarted on its
// next call, at most once a minute).
import type { ChildProcess } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  ResultSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { ServerConfig } from './config.js';
import { redactUrlsIn } from './redact.js';
import type { McpToolInfo } from './tools.js';

export type ServerState = 'idle' | 'starting' | 'ready' | 'failed' | 'exited' | 'refused';

export const RESTART_INTERVAL_MS = 60_000;
const STDERR_TAIL_CHARS = 4096;
const MAX_TOOL_PAGES = 20;
/** The longest message line accepted from a stdio server (zot's own frame bound). */
const MAX_LINE_BYTES = 32 * 1024 * 1024;

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
  private client: Client | undefined;
  /** The listing that follows a tools/list_changed, while it runs. */
  private relisting: Promise<void> | undefined;
  private starting: Promise<void> | undefined;
  private generation = 0;

  constructor(
    readonly config: ServerConfig,
    private readonly cwd: string,
    private readonly events: ServerEvents,
    private readonly connectTimeoutMs: number,
  ) {}

  get name(): string {
    return this.config.name;
  }

  /** Connects and lists tools. Contract: never rejects; failure is `state` and `error`. */
  start(): Promise<void> {
    this.starting ??= this.connect().finally(() => (this.starting = undefined));
    return this.starting;
  }

  private transport(generation: number): Transport {
    const config = this.config;
    if (config.kind === 'http') {
      return new StreamableHTTPClientTransport(new URL(config.url), {
        requestInit: { headers: { ...config.headers } },
      });
    }
    const env: Record<string, string> = {};
    for (const [key, value] of Object.entries(process.env))
      if (value !== undefined) env[key] = value;
    const transport = new StdioClientTransport({
      command: config.command,
      args: [...config.args],
      env: { ...env, ...config.env },
      cwd: this.cwd,
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (chunk: Buffer) => {
      if (generation === this.generation) this.stderr.push(chunk.toString('utf8'));
    });
    return transport;
  }

  private async connect(): Promise<void> {
    const generation = ++this.generation;
    await this.closeClient();
    this.state = 'starting';
    this.error = undefined;
    this.stderr.clear();
    const client = new Client({ name: 'zot-mcp', version: '1.0.0' }, { capabilities: {} });
    const transport = this.transport(generation);
    let exitNote: string | undefined;
    client.onclose = () => {
      if (generation !== this.generation || this.state === 'idle') return;
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
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      if (generation !== this.generation) return;
      changed = true;
      return relist();
    });
    try {
      await client.connect(transport, { timeout: this.connectTimeoutMs });
      if (transport instanceof StdioClientTransport) {
        this.pid = transport.pid ?? undefined;
        // The SDK keeps the child process to itself; we want its exit status for the report,
        // and a bound on its output lines (the SDK's reader would buffer a line without end).
        const child = (transport as unknown as { _process?: ChildProcess })._process;
        child?.once('exit', (code, signal) => {
          exitNote = signal
            ? `the process was killed by ${signal}`
            : `the process exited with status ${code}`;
        });
        let pending = 0;
        child?.stdout?.on('data', (chunk: Buffer) => {
          const newline = chunk.lastIndexOf(10);
          pending = newline < 0 ? pending + chunk.length : chunk.length - newline - 1;
          if (pending > MAX_LINE_BYTES) {
            exitNote = `it sent a line over ${MAX_LINE_BYTES} bytes; stopped`;
            child.kill('SIGKILL');
          }
        });
      }
      this.tools = await this.listTools(client);
      if (generation !== this.generation) return;
      this.client = client;
      this.state = 'ready';
      if (changed) void relist();
    } catch (error) {
      if (generation !== this.generation) return;
      this.state = 'failed';
      // The SDK's messages can quote the server URL, token and all.
      this.error = redactUrlsIn((error as Error).message || String(error));
      await client.close().catch(() => {});
    }
  }

  private async listTools(client: Client): Promise<McpToolInfo[]> {
    const tools: McpToolInfo[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_TOOL_PAGES; page++) {
      const result = await client.listTools(cursor === undefined ? {} : { cursor }, {
        timeout: this.connectTimeoutMs,
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
  async call(tool: string, args: Record<string, unknown>, timeoutMs: number): Promise<unknown> {
    const client = this.client;
    if (!client || this.state !== 'ready')
      throw new Error(`server "${this.name}" is not connected`);
    return client.request(
      { method: 'tools/call', params: { name: tool, arguments: args } },
      ResultSchema,
      { timeout: timeoutMs },
    );
  }

  private async closeClient(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    this.pid = undefined;
    await client?.close().catch(() => {});
  }

  async stop(): Promise<void> {
    this.generation++;
    this.state = 'idle';
    await this.closeClient();
  }
}
