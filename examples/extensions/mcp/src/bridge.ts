// The bridge: servers from the configuration, their tools registered as zot tools (directly, or
// deferred behind mcp_search for servers with many tools), and every call routed to its server.
import type { Extension, ToolContext, ToolResult } from '@zot/sdk';
import { text, toolError } from '@zot/sdk';
import {
  projectConfigPath,
  readConfigFile,
  readEditorServers,
  userConfigPath,
  type ConfigFile,
  type ServerConfig,
} from './config.js';
import { cacheKey, readCachedTools, writeCachedTools } from './cache.js';
import { cancelSignal } from './cancel-signal.js';
import { approvalHash, projectPins, type ProjectPins } from './pins.js';
import { mapResult } from './results.js';
import { searchTools, SEARCH_SCHEMA } from './search.js';
import { redactUrlsIn } from './redact.js';
import { McpServer, type StartupLimit } from './server.js';
import { bridgeTools, clip, TOOL_LIMITS, type BridgedTool, type McpToolInfo } from './tools.js';
import { isApproved, trustStorePath } from './trust.js';

export const DEFAULT_DEFER_THRESHOLD = 20;
const STDERR_LINES = 8;
const MAX_PROBLEMS = 200;
/** How long a result waits for the tool list its call changed to be registered. */
const SETTLE_WAIT_MS = 2000;
/** How long a server may take to start and list its tools, unless configured otherwise. */
export const DEFAULT_STARTUP_TIMEOUT_MS = 30_000;

export interface BridgeOptions {
  readonly home: string;
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
}

interface Route {
  readonly server: McpServer;
  readonly tool: BridgedTool;
}

/** A server being started: whether its tools came from the cache, and the start itself. */
export interface Starting {
  readonly server: McpServer;
  readonly fromCache: boolean;
  readonly done: Promise<void>;
}

const envInt = (value: string | undefined): number | undefined => {
  const n = value === undefined ? NaN : Number(value);
  return Number.isInteger(n) && n >= 0 ? n : undefined;
};

export class Bridge {
  readonly servers = new Map<string, McpServer>();
  readonly routes = new Map<string, Route>();
  /** Configuration and tool problems, for /mcp (and a warning at start-up). */
  problems: string[] = [];
  /** Tools the bridge cannot run by design (task-only ones), for /mcp. */
  leftOut: string[] = [];
  user: ConfigFile | undefined;
  project: ConfigFile | undefined;
  /** The project file exists, has servers and is not approved. */
  projectRefused = false;
  /** The project files its servers run, read at start (pinned by the approval with the file). */
  projectPins: ProjectPins | undefined;
  private readonly taken = new Set<string>();
  private searchRegistered = false;
  readonly deferThreshold: number;
  readonly toolTimeoutMs: number;
  /** How long /mcp waits for servers still starting (inside zot's command timeout). */
  readonly commandWaitMs: number;
  /** ZOT_MCP_STARTUP_TIMEOUT_MS, when set. */
  private readonly startupTimeoutMs: number | undefined;
  /** The cache key of each server's configuration. */
  private readonly cacheKeys = new Map<McpServer, string>();

  constructor(
    private readonly ext: Extension,
    readonly options: BridgeOptions,
  ) {
    this.user = readConfigFile(userConfigPath(options.home), 'user', options.env);
    this.deferThreshold =
      envInt(options.env.ZOT_MCP_DEFER_THRESHOLD) ??
      this.user.deferThreshold ??
      DEFAULT_DEFER_THRESHOLD;
    // Answer before zot's own tool timeout fires, so the model gets our (better) message.
    const zotToolTimeout = envInt(options.env.ZOT_EXT_TOOL_TIMEOUT_MS) ?? 60_000;
    this.toolTimeoutMs = Math.max(100, zotToolTimeout - Math.min(1000, zotToolTimeout / 10));
    const zotCommandTimeout = envInt(options.env.ZOT_EXT_COMMAND_TIMEOUT_MS) ?? 30_000;
    this.commandWaitMs = Math.max(0, zotCommandTimeout - Math.min(1000, zotCommandTimeout / 4));
    const startup = envInt(options.env.ZOT_MCP_STARTUP_TIMEOUT_MS);
    this.startupTimeoutMs = startup !== undefined && startup > 0 ? startup : undefined;
  }

  /**
   * Records problems (or, with `into`, other notes) once each, up to a bound (a server can be
   * restarted many times).
   */
  private note(problems: readonly string[], into: string[] = this.problems): void {
    for (const problem of problems) {
      if (into.length >= MAX_PROBLEMS || into.includes(problem)) continue;
      into.push(problem);
      this.ext.log(problem);
    }
  }

  get trustStore(): string {
    return trustStorePath(this.options.home);
  }

  /** Reads the configuration and creates the servers (not started). */
  load(): void {
    const user = this.user!;
    this.note(user.problems);
    const project = readConfigFile(
      projectConfigPath(this.options.cwd),
      'project',
      this.options.env,
    );
    this.project = project;
    this.note(project.problems);
    this.projectPins = projectPins(project.servers, this.options.cwd);
    this.note(this.projectPins.problems);
    const approved = this.trustAll || this.currentlyApproved();
    this.projectRefused = project.servers.length > 0 && !approved;
    for (const config of user.servers) this.add(config);
    // The editor's servers (zot acp): the user's own choice, like mcp.json's; mcp.json's win a clash.
    const editor = readEditorServers(this.options.env);
    this.note(editor.problems);
    for (const config of editor.servers) {
      if (this.servers.has(config.name)) {
        this.note([
          `${editor.path}: server "${config.name}" is also in ${user.path}; that one is used`,
        ]);
        continue;
      }
      this.add(config);
    }
    for (const config of project.servers) {
      if (this.servers.has(config.name)) {
        this.note([
          `${project.path}: server "${config.name}" is also in ${user.path}; the user's wins`,
        ]);
        continue;
      }
      this.add(config, approved ? undefined : 'refused');
    }
  }

  /**
   * A server's start-up limit: its own `startup_timeout_ms`, else ZOT_MCP_STARTUP_TIMEOUT_MS,
   * else the default; with the words that tell the user where to change it.
   */
  private startupLimit(config: ServerConfig): StartupLimit {
    const file = config.source === 'user' ? this.user?.path : projectConfigPath(this.options.cwd);
    const entry = `"startup_timeout_ms" in its entry in ${file}`;
    if (config.startupTimeoutMs !== undefined)
      return { ms: config.startupTimeoutMs, knob: `set by ${entry}` };
    if (this.startupTimeoutMs !== undefined)
      return {
        ms: this.startupTimeoutMs,
        knob: `set by ZOT_MCP_STARTUP_TIMEOUT_MS; ${entry} sets this server's own`,
      };
    return {
      ms: DEFAULT_STARTUP_TIMEOUT_MS,
      knob: `the default; raise it with ${entry}, or with ZOT_MCP_STARTUP_TIMEOUT_MS for every server`,
    };
  }

  private add(config: ServerConfig, state?: 'refused'): void {
    const server = new McpServer(
      config,
      this.options.cwd,
      {
        onExit: (s) => this.exited(s),
        onToolsChanged: (s) => this.register(s),
      },
      this.startupLimit(config),
    );
    if (state) server.state = state;
    this.servers.set(config.name, server);
    this.cacheKeys.set(server, cacheKey(config, this.options.cwd));
  }

  /**
   * Starts every server allowed to run. A server listed in an earlier run has the tools of that
   * listing registered now, before it has started: a call waits for it (see call()).
   */
  startAll(): Starting[] {
    return [...this.servers.values()]
      .filter((s) => s.state === 'idle')
      .map((server) => {
        const cached = readCachedTools(this.options.home, this.cacheKeys.get(server)!);
        if (cached.problem) this.ext.log(`server "${server.name}": ${cached.problem}`);
        server.cached = cached.tools;
        if (cached.tools) this.registerTools(server, cached.tools);
        // With its tools known, a server's start need not delay `ready`.
        const start = cached.tools ? server.startSoon() : server.start();
        const done = start.then(() => this.register(server));
        return { server, fromCache: cached.tools !== undefined, done };
      });
  }

  private get trustAll(): boolean {
    return this.options.env.ZOT_TRUST_PROJECT_EXTENSIONS === '1';
  }

  /**
   * What approving the project now would pin: the file's bytes and the project files its servers
   * run (see pins.ts), hashed as they are on disk now; `sha256` is absent while a file cannot
   * be pinned. Undefined when the file is gone or changed since start.
   */
  approvalNow(): { sha256?: string; pins: ProjectPins } | undefined {
    const project = this.project;
    if (project?.sha256 === undefined) return undefined;
    // The file as it runs (with ${VAR} expanded): the words that may name project files.
    const now = readConfigFile(project.path, 'project', this.options.env);
    if (now.sha256 !== project.sha256) return undefined;
    const pins = projectPins(now.servers, this.options.cwd);
    if (pins.problems.length > 0) return { pins };
    return { sha256: approvalHash(now.sha256, pins), pins };
  }

  /** Whether what the project would run now is exactly what was approved. */
  private currentlyApproved(): boolean {
    const sha256 = this.approvalNow()?.sha256;
    return sha256 !== undefined && isApproved(this.trustStore, this.project!.path, sha256);
  }

  /**
   * Before a project server starts again (a restart, on a call or by /mcp restart): a program
   * edited since the approval is refused until it is reviewed again. Returns whether it may run.
   */
  mayRestart(server: McpServer): boolean {
    if (server.config.source !== 'project' || this.trustAll || this.currentlyApproved())
      return true;
    this.projectRefused = true;
    for (const other of this.servers.values())
      if (other.config.source === 'project' && other.state !== 'ready') other.state = 'refused';
    server.state = 'refused';
    return false;
  }

  /** The project file was approved just now: its servers may start. */
  admitProject(): Starting[] {
    this.projectRefused = false;
    for (const server of this.servers.values()) {
      if (server.state === 'refused') server.state = 'idle';
    }
    return this.startAll();
  }

  /**
   * Registers (or re-registers) a connected server's tools with zot, and remembers them for the
   * next start. Tools it no longer lists are unregistered (a call racing that says that the
   * server no longer offers it).
   */
  register(server: McpServer): void {
    if (server.state !== 'ready') {
      if (server.state === 'failed') {
        this.ext.notify('warn', this.downMessage(server, 'could not start'));
      }
      return;
    }
    this.registerTools(server, server.tools);
    const problem = writeCachedTools(
      this.options.home,
      this.cacheKeys.get(server)!,
      server.name,
      server.tools,
      server.cached,
    );
    if (problem) this.ext.log(problem);
    server.cached = undefined;
  }

  /** Registers `list` as the server's tools (from a listing now, or from the cache). */
  private registerTools(server: McpServer, list: readonly McpToolInfo[]): void {
    // Names this server held before are its own to reuse.
    for (const [name, route] of this.routes) if (route.server === server) this.taken.delete(name);
    const room =
      TOOL_LIMITS.toolsTotal - [...this.routes.values()].filter((r) => r.server !== server).length;
    const { tools, skipped, leftOut } = bridgeTools(server.name, list, this.taken, room);
    this.note(skipped);
    this.note(leftOut, this.leftOut);
    server.deferred ??= tools.length > this.deferThreshold;
    if (server.deferred && !this.searchRegistered) {
      this.searchRegistered = true;
      this.ext.tool(
        'mcp_search',
        'Finds tools of the connected MCP servers by words in their names and descriptions, and makes the best matches callable from the next step on. Use it when no offered tool fits.',
        SEARCH_SCHEMA,
        (args) => this.search(args.query, args.limit),
      );
    }
    const kept = new Set(tools.map((tool) => tool.zotName));
    for (const [name, route] of [...this.routes]) {
      if (route.server !== server || kept.has(name)) continue;
      this.routes.delete(name);
      this.ext.unregisterTool(name);
      this.ext.log(
        `MCP server "${server.name}" no longer lists "${route.tool.mcpName}"; unregistered ${name}`,
      );
    }
    for (const tool of tools) {
      this.routes.set(tool.zotName, { server, tool });
      this.ext.tool(
        tool.zotName,
        tool.description,
        tool.schema,
        (args, call) => this.call(tool.zotName, args as Record<string, unknown>, call),
        { deferred: server.deferred },
      );
    }
  }

  private search(query: string, limit: number | undefined): ToolResult {
    const candidates = [...this.routes.values()].filter(
      (r) => r.server.deferred && r.server.knownTools.some((t) => t.name === r.tool.mcpName),
    );
    const found = searchTools(
      query,
      candidates.map((r) => r.tool),
      limit ?? 5,
    );
    if (found.length === 0) {
      const servers = [...new Set(candidates.map((r) => r.server.name))].join(', ') || 'none';
      return text(
        `No MCP tool matches ${JSON.stringify(query)}. Servers with searchable tools: ${servers}.`,
      );
    }
    const lines = found.map((t) => `- ${t.zotName}: ${clip(t.description, 300)}`);
    return text(
      `Activated ${found.length} tool(s); call them from the next step on:\n${lines.join('\n')}`,
      {
        activateTools: found.map((t) => t.zotName),
      },
    );
  }

  private async call(
    zotName: string,
    args: Record<string, unknown>,
    context: Pick<ToolContext, 'onCancel'>,
  ): Promise<ToolResult> {
    const route = this.routes.get(zotName);
    if (!route) return toolError(`${zotName}: no such MCP tool`);
    const { server, tool } = route;
    // The whole call, a wait for the server to start included, answers before zot's timeout.
    const deadline = performance.now() + this.toolTimeoutMs;
    // A start that just failed is still closing its client: its failure is this call's answer
    // (restarting now would only get that same start back).
    if (server.state === 'failed' && server.settling) {
      await server.started(deadline - performance.now());
      if (server.state === 'failed') return toolError(this.downMessage(server, 'could not start'));
    }
    if (server.state === 'exited' || server.state === 'failed') {
      if (!server.mayAutoRestart()) return toolError(this.downMessage(server, 'is down'));
      if (!this.mayRestart(server)) return toolError(changedMessage(server));
      server.lastAutoRestart = Date.now();
      void server.start().then(() => this.register(server));
    }
    if (server.state === 'starting') {
      const ready = await server.started(deadline - performance.now());
      if (server.state === 'starting') return toolError(this.stillStarting(server));
      if (!ready && server.state !== 'refused')
        return toolError(this.downMessage(server, 'could not start'));
    }
    if (server.state === 'refused') {
      return toolError(
        `MCP server "${server.name}" comes from the project's .mcp.json, which is not approved ` +
          `(or a program it runs changed since): review it with /mcp trust`,
      );
    }
    if (!server.tools.some((t) => t.name === tool.mcpName)) {
      return toolError(`MCP server "${server.name}" no longer offers the tool "${tool.mcpName}"`);
    }
    try {
      const left = Math.max(1, Math.floor(deadline - performance.now()));
      const result = mapResult(
        await server.call(tool.mcpName, args, left, cancelSignal(context.onCancel)),
      );
      if (server.relistingTools) await server.toolsSettled(SETTLE_WAIT_MS);
      return result.isError
        ? { content: result.content, isError: true }
        : { content: result.content };
    } catch (error) {
      const message = redactUrlsIn((error as Error).message || String(error));
      if (server.state !== 'ready')
        return toolError(`${this.downMessage(server, 'ended during the call')}`);
      return toolError(
        `MCP server "${server.name}", tool "${tool.mcpName}": ${clip(message, 4000)}`,
      );
    }
  }

  /** A call that waited for a server's start until zot's tool timeout was near. */
  private stillStarting(server: McpServer): string {
    return (
      `MCP server "${server.name}" is still starting after ${server.startingForMs} ms ` +
      `(its start-up limit is ${server.startupLimit.ms} ms, ${server.startupLimit.knob}); ` +
      `the call stopped waiting to answer before zot's tool timeout (ZOT_EXT_TOOL_TIMEOUT_MS).`
    );
  }

  /** A dead server: its name, what happened, when it comes back, and its last stderr lines. */
  downMessage(server: McpServer, what: string): string {
    const parts = [
      `MCP server "${server.name}" ${what}${server.error ? ` (${clip(server.error, 500)})` : ''}.`,
    ];
    if (server.state === 'exited' || server.state === 'failed') {
      const at = server.nextRestartAt();
      parts.push(
        at <= Date.now()
          ? 'It is restarted on its next call.'
          : `It is restarted on a call after ${new Date(at).toISOString().slice(11, 19)} UTC (at most once a minute), or now with /mcp restart ${server.name}.`,
      );
    }
    const tail = server.stderr.last(STDERR_LINES);
    if (tail) parts.push(`Its stderr ended with:\n${clip(tail, 2000)}`);
    return parts.join(' ');
  }

  private exited(server: McpServer): void {
    this.ext.log(
      `server "${server.name}" ended: ${server.error}\n${server.stderr.last(STDERR_LINES)}`,
    );
    this.ext.notify('warn', this.downMessage(server, 'exited'));
  }

  async stopAll(): Promise<void> {
    await Promise.all([...this.servers.values()].map((s) => s.stop()));
  }
}

/** A project server whose program changed since the approval. */
export function changedMessage(server: McpServer): string {
  return (
    `MCP server "${server.name}" was not restarted: the project's .mcp.json or a program it ` +
    `runs changed since you approved it; review it again with /mcp trust`
  );
}
