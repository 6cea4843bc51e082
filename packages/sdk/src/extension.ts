// createExtension: the whole protocol behind a few calls. It says hello, waits for hello_ack,
// runs the onHello hooks, announces what was registered, says ready, then answers requests.
// Built on @zot/protocol: frames are decoded and checked by its validators. Requests (commands,
// tool calls, interceptions) are answered by requests.ts.
import { format } from 'node:util';
import {
  checkFrameFromExtension,
  decodeFromHost,
  isRequestType,
  PROTOCOL_VERSION,
  type EventFrame,
  type EventName,
  type FrameFromExtension,
  type FrameFromHost,
  type HelloAckFrame,
  type InterceptableEvent,
  type NotifyLevel,
  type PanelSpec,
  type Transport,
  type UiResponseFrame,
} from '@zot/protocol';
import type {
  AssistantMessage,
  CommandHandler,
  EventOf,
  ExtensionOptions,
  ExtensionUiApi,
  HostInfo,
  Interceptor,
  PanelKeyEvent,
  ToolCall,
  ToolHandler,
  ToolOptions,
  ToolResultSubject,
  TurnStart,
  UserPrompt,
} from './extension-types.js';
import { EMPTY_HOST, hostInfo } from './replies.js';
import { registerToolFrame, Requests, type CommandEntry, type ToolEntry } from './requests.js';
import type { ArgsOf, JsonSchema } from './schema-types.js';
import { listenWebSocket, type Listening, type ListenOptions } from './listen.js';
import { listenHttp } from './listen-http.js';
import { redirectConsole, StdioTransport } from './stdio.js';
import { UiQuestions } from './ui.js';

type Hook<A extends unknown[]> = (...args: A) => void | Promise<void>;

/**
 * One extension. Register with command/tool/on/intercept*, then `run()`.
 * Contract: handlers run concurrently and may be async; a handler that throws becomes an error
 * reply (and a stderr line), never a crash; frames are written in order; stdout carries
 * protocol only (console.log goes to stderr while running on stdio).
 */
export class Extension {
  readonly name: string;
  readonly version: string;
  private readonly options: ExtensionOptions;
  private readonly transport: Transport<FrameFromExtension>;
  private readonly exit: (code: number) => void;
  private readonly writeErr: (text: string) => void;
  private readonly commands = new Map<string, CommandEntry>();
  private readonly tools = new Map<string, ToolEntry>();
  private readonly events = new Map<EventName, Array<Hook<[EventFrame]>>>();
  private readonly interceptors = new Map<InterceptableEvent, Array<Interceptor<never>>>();
  private readonly helloHooks: Array<Hook<[HostInfo, AbortSignal]>> = [];
  /** Aborted when zot asks to shut down (or goes away) while the onHello hooks run. */
  private readonly helloAbort = new AbortController();
  private readonly shutdownHooks: Array<Hook<[]>> = [];
  private readonly panelKeyHooks: Array<Hook<[PanelKeyEvent]>> = [];
  private readonly panelCloseHooks: Array<Hook<[string]>> = [];
  /** Frames asked for before hello went out (nothing may precede hello). */
  private early: FrameFromExtension[] | undefined = [];
  /** Registrations are collected until hello_ack and the onHello hooks, then sent as made. */
  private announced = false;
  private started = false;
  private stopping: Promise<void> | undefined;
  private hostInfo: HostInfo = EMPTY_HOST;
  /** Frames that arrived before ready: handled once the registrations are out. */
  private held: FrameFromHost[] | undefined = [];
  private inputEnded = false;
  private ackRequested = false;
  private ackWaiter: ((ack: HelloAckFrame | undefined) => void) | undefined;
  private stoppedResolve!: () => void;
  private readonly stopped = new Promise<void>((resolve) => (this.stoppedResolve = resolve));
  private readonly requests: Requests;
  /** listen(): the live connections, each a session of its own; frames sent here go to all. */
  private sessions: Set<Extension> | undefined;
  private readonly questions = new UiQuestions((frame) => this.emit(frame));
  /** Asks the user and waits (protocol version 2); see ExtensionUiApi. */
  readonly ui: ExtensionUiApi = this.questions;

  constructor(options: ExtensionOptions) {
    this.options = options;
    this.name = options.name;
    this.version = options.version ?? '0.0.0';
    this.transport = options.transport ?? new StdioTransport<FrameFromExtension>();
    this.exit =
      options.exit ?? (options.transport ? () => undefined : (code) => process.exit(code));
    this.writeErr = options.stderr ?? ((text) => void process.stderr.write(text));
    if (!options.transport) redirectConsole(this.writeErr);
    this.requests = new Requests({
      name: this.name,
      transport: this.transport,
      emit: (frame) => this.emit(frame),
      log: (text) => this.log(text),
      host: () => this.hostInfo,
      blockOnFailure: options.interceptFailure === 'block',
      commands: this.commands,
      tools: this.tools,
      interceptors: this.interceptors,
    });
  }

  /** What hello_ack said (empty fields before it arrived). */
  get host(): HostInfo {
    return this.hostInfo;
  }

  /** Registers the slash command `/name`. */
  command(name: string, description: string, handler: CommandHandler): this {
    const fresh = !this.commands.has(name.toLowerCase());
    this.commands.set(name.toLowerCase(), { name, description, handler });
    if (fresh && this.announced) this.emit({ type: 'register_command', name, description });
    return this;
  }

  /** Registers a tool the model can call; `args` is typed from a literal `schema`. */
  tool<const S extends JsonSchema>(
    name: string,
    description: string,
    schema: S,
    handler: ToolHandler<ArgsOf<S>>,
    options: ToolOptions = {},
  ): this {
    if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
      throw new TypeError(`@zot/sdk: tool ${name}: the schema must be a JSON Schema object`);
    }
    const before = this.tools.get(name);
    const entry: ToolEntry = {
      description,
      schema,
      deferred: options.deferred === true,
      handler: handler as ToolHandler<never>,
    };
    this.tools.set(name, entry);
    // Registered again with another description, schema or deferral: zot gets the new one.
    const changed =
      before === undefined ||
      JSON.stringify(registerToolFrame(name, before)) !==
        JSON.stringify(registerToolFrame(name, entry));
    if (changed && this.announced) this.emit(registerToolFrame(name, entry));
    return this;
  }

  /**
   * Makes registered deferred tools available to the model. Called while a tool handler runs
   * (before its first await) the names ride on that call's result; anywhere else, on the next
   * tool result this extension sends. After an await, use the handler context's activateTools.
   */
  activateTools(names: readonly string[]): this {
    this.requests.activate(names);
    return this;
  }

  /**
   * Runs `hook` after hello_ack, before registrations go out (so it may register more). `signal`
   * aborts when zot asks to shut down before `ready` (it exits while the hook still waits).
   */
  onHello(hook: (host: HostInfo, signal: AbortSignal) => void | Promise<void>): this {
    this.helloHooks.push(hook);
    return this;
  }

  /** Observes a lifecycle event (subscribes to it). */
  on<E extends EventName>(event: E, handler: (event: EventOf<E>) => void | Promise<void>): this {
    const list = this.events.get(event) ?? [];
    list.push(handler as Hook<[EventFrame]>);
    this.events.set(event, list);
    this.resubscribe();
    return this;
  }

  /** Blocks or rewrites tool calls before they run (and before any confirmation). */
  interceptToolCall(fn: Interceptor<ToolCall>): this {
    return this.intercept('tool_call', fn);
  }

  /** Blocks a turn before the model is called, or adds context for it (addContext). */
  interceptTurnStart(fn: Interceptor<TurnStart>): this {
    return this.intercept('turn_start', fn);
  }

  /**
   * Sees every tool's result (built-in, extensions', MCP) before the model does: allow, replace
   * its content (replaceContent) or block it (the model gets an error with the reason).
   */
  interceptToolResult(fn: Interceptor<ToolResultSubject>): this {
    return this.intercept('tool_result', fn);
  }

  /** Sees each prompt before it runs: allow, rewrite (modifyText), or block (the user is told). */
  interceptUserPrompt(fn: Interceptor<UserPrompt>): this {
    return this.intercept('user_prompt', fn);
  }

  /** Suppresses or rewrites the assistant's user-visible text. */
  interceptAssistantMessage(fn: Interceptor<AssistantMessage>): this {
    return this.intercept('assistant_message', fn);
  }

  /**
   * Removes a registered tool (protocol version 2): the model is no longer offered it. Removing
   * a tool never registered does nothing.
   */
  unregisterTool(name: string): this {
    if (!this.tools.delete(name)) return this;
    if (this.announced) this.emit({ type: 'unregister_tool', name });
    return this;
  }

  /** Opens a panel on the extension's own initiative (the top-level open_panel frame). */
  openPanel(panel: PanelSpec): this {
    this.emit({ type: 'open_panel', panel });
    return this;
  }

  /** Redraws an open panel. */
  renderPanel(panel: PanelSpec): this {
    const { id, ...rest } = panel;
    this.emit({ type: 'panel_render', panel_id: id, ...rest });
    return this;
  }

  /** Closes a panel. */
  closePanel(id: string): this {
    this.emit({ type: 'panel_close', panel_id: id });
    return this;
  }

  /** A key pressed in one of the extension's panels. */
  onPanelKey(hook: (event: PanelKeyEvent) => void | Promise<void>): this {
    this.panelKeyHooks.push(hook);
    return this;
  }

  /** The user closed one of the extension's panels (Esc, Ctrl+C). */
  onPanelClose(hook: (panelId: string) => void | Promise<void>): this {
    this.panelCloseHooks.push(hook);
    return this;
  }

  /** Posts a note (`[name] message`), cleared with the user's next prompt. */
  notify(level: NotifyLevel, message: string): this {
    this.emit({ type: 'notify', level, message });
    return this;
  }

  /** Removes every note this extension posted. */
  clearNotes(): this {
    this.emit({ type: 'clear_notes' });
    return this;
  }

  /** Submits `text` as a user prompt (the TUI runs or queues it). */
  submit(text: string): this {
    this.emit({ type: 'submit', text });
    return this;
  }

  /** Writes a line to stderr (zot's log of this extension). Never to stdout. */
  log(...args: unknown[]): void {
    this.writeErr(format(...args) + '\n');
  }

  /** Runs `hook` on shutdown (or when the host goes away), before the process exits. */
  onShutdown(hook: () => void | Promise<void>): this {
    this.shutdownHooks.push(hook);
    return this;
  }

  /**
   * Speaks the protocol until shutdown. Resolves when the extension has stopped (after which,
   * on stdio, the process exits). Contract: call once.
   */
  async run(): Promise<void> {
    if (this.started) throw new Error('@zot/sdk: run() was already called');
    this.started = true;
    const ack = new Promise<HelloAckFrame | undefined>((resolve) => (this.ackWaiter = resolve));
    this.transport.start({
      onLine: (line) => this.receive(line),
      onOversize: (bytes) =>
        this.log(`@zot/sdk: dropped a ${bytes}-byte line over the frame limit`),
      onInvalidUtf8: (bytes) =>
        this.log(`@zot/sdk: dropped a ${bytes}-byte line that is not valid UTF-8`),
      // End of input: what was received is still answered, then the extension stops.
      onOutputEnd: () => {
        this.inputEnded = true;
        this.helloAbort.abort();
        if (this.ackWaiter) this.ackWaiter(undefined);
        else if (!this.held) void this.stop();
      },
      // The link is gone (stdout broken): nothing more can be written.
      onExit: () => {
        this.helloAbort.abort();
        this.ackWaiter?.(undefined);
        void this.stop();
      },
    });
    this.transport.send({
      type: 'hello',
      name: this.name,
      version: this.version,
      protocol_version: PROTOCOL_VERSION,
      capabilities: [...(this.options.capabilities ?? this.capabilities())],
    });
    const early = this.early ?? [];
    this.early = undefined;
    for (const frame of early) this.transport.send(frame);
    const helloAck = await ack;
    if (helloAck !== undefined && this.stopping === undefined) {
      this.hostInfo = hostInfo(helloAck);
      for (const hook of this.helloHooks)
        await this.requests.guard('onHello', () => hook(this.hostInfo, this.helloAbort.signal));
      this.announce();
    }
    const held = this.held ?? [];
    this.held = undefined;
    for (const frame of held) this.dispatch(frame);
    if (this.inputEnded) void this.stop();
    await this.stopped;
  }

  /**
   * Serves the extension over WebSocket (or, with `transport: 'http'`, HTTP) instead of stdio:
   * zot connects to the URL this resolves with (`zot --ext-url URL`, or a manifest's
   * `transport`). Each connection is a session of its own with these handlers; notify/submit/
   * panels sent on `ext` go to every ready connection. WebSocket needs the `ws` package.
   * Contract: call instead of run(), after registering everything.
   */
  async listen(options: ListenOptions = {}): Promise<Listening> {
    if (this.started) throw new Error('@zot/sdk: run() or listen() was already called');
    this.started = true;
    const sessions = new Set<Extension>();
    this.sessions = sessions;
    const serve = (connection: Transport<FrameFromExtension>) => {
      const session = this.sessionOver(connection);
      sessions.add(session);
      void session.run().finally(() => sessions.delete(session));
    };
    return options.transport === 'http'
      ? listenHttp(options, serve)
      : listenWebSocket(options, serve);
  }

  /** A session of this extension over one connection: the same handlers, its own state. */
  private sessionOver(transport: Transport<FrameFromExtension>): Extension {
    const session = new Extension({ ...this.options, transport, exit: () => undefined });
    for (const [key, value] of this.commands) session.commands.set(key, value);
    for (const [key, value] of this.tools) session.tools.set(key, value);
    for (const [key, value] of this.events) session.events.set(key, value);
    for (const [key, value] of this.interceptors) session.interceptors.set(key, value);
    session.helloHooks.push(...this.helloHooks);
    session.shutdownHooks.push(...this.shutdownHooks);
    session.panelKeyHooks.push(...this.panelKeyHooks);
    session.panelCloseHooks.push(...this.panelCloseHooks);
    return session;
  }

  private intercept<T>(event: InterceptableEvent, fn: Interceptor<T>): this {
    const list = this.interceptors.get(event) ?? [];
    list.push(fn as Interceptor<never>);
    this.interceptors.set(event, list);
    this.resubscribe();
    return this;
  }

  private capabilities(): string[] {
    const caps: string[] = [];
    if (this.commands.size > 0) caps.push('commands');
    if (this.tools.size > 0) caps.push('tools');
    if (this.events.size > 0 || this.interceptors.size > 0) caps.push('events');
    if (this.panelKeyHooks.length > 0 || this.panelCloseHooks.length > 0) caps.push('panels');
    return caps;
  }

  private subscribeFrame(): FrameFromExtension {
    return {
      type: 'subscribe',
      events: [...this.events.keys()],
      intercept: [...this.interceptors.keys()],
    };
  }

  private resubscribe(): void {
    if (this.announced) this.emit(this.subscribeFrame());
  }

  private announce(): void {
    for (const { name, description } of this.commands.values()) {
      this.emit({ type: 'register_command', name, description });
    }
    for (const [name, entry] of this.tools) this.emit(registerToolFrame(name, entry));
    if (this.events.size > 0 || this.interceptors.size > 0) this.emit(this.subscribeFrame());
    this.announced = true;
    this.emit({ type: 'ready' });
  }

  /** Checks a frame as the host will, then writes it (or holds it until hello is out). */
  private emit(frame: FrameFromExtension): void {
    const checked = checkFrameFromExtension(frame);
    if (!checked.ok) throw new TypeError(`@zot/sdk: ${frame.type}: ${checked.error}`);
    if (this.sessions) {
      for (const session of this.sessions) if (session.announced) session.emit(frame);
      return;
    }
    if (this.early) this.early.push(frame);
    else this.transport.send(frame);
  }

  private receive(line: string): void {
    const decoded = decodeFromHost(line);
    if (!decoded.ok) {
      this.log(`@zot/sdk: ignored a frame from zot: ${decoded.error}`);
      if (decoded.id !== undefined && isRequestType(decoded.type)) {
        this.requests.refuse({ type: decoded.type, id: decoded.id }, decoded.error);
      }
      return;
    }
    if (this.held && decoded.frame.type !== 'hello_ack') {
      // zot exits while an onHello hook still waits for something: the hook is told to stop.
      if (decoded.frame.type === 'shutdown') this.helloAbort.abort();
      this.held.push(decoded.frame);
    } else this.dispatch(decoded.frame);
  }

  private dispatch(frame: FrameFromHost): void {
    switch (frame.type) {
      case 'hello_ack':
        if (this.ackWaiter) {
          this.ackWaiter(frame);
          this.ackWaiter = undefined;
        } else this.hostInfo = hostInfo(frame);
        return;
      case 'command_invoked':
        return this.requests.command(frame);
      case 'tool_call':
        return this.requests.tool(frame);
      case 'event':
        for (const hook of this.events.get(frame.event) ?? []) {
          void this.requests.guard(`on ${frame.event}`, () => hook(frame));
        }
        return;
      case 'event_intercept':
        return this.requests.intercept(frame);
      case 'panel_key': {
        const event = { panelId: frame.panel_id, key: frame.key, text: frame.text };
        for (const hook of this.panelKeyHooks)
          void this.requests.guard('onPanelKey', () => hook(event));
        return;
      }
      case 'panel_close':
        for (const hook of this.panelCloseHooks) {
          void this.requests.guard('onPanelClose', () => hook(frame.panel_id));
        }
        return;
      case 'shutdown':
        this.ackRequested = true;
        this.questions.close();
        return void this.stop();
      case 'cancel':
        return this.requests.cancel(frame.id);
      case 'ui_response':
        return this.questions.answer(frame as UiResponseFrame);
    }
  }

  /** Shutdown (acknowledged when the host asked) or the end of the link: hooks, ack, exit. */
  private stop(): Promise<void> {
    this.stopping ??= (async () => {
      const budget = this.options.shutdownTimeoutMs ?? 1000;
      await this.requests.drain(budget, () =>
        Promise.all(this.shutdownHooks.map((hook) => this.requests.guard('onShutdown', hook))),
      );
      if (this.ackRequested) this.transport.send({ type: 'shutdown_ack' });
      if (this.transport instanceof StdioTransport) await this.transport.flushed();
      this.transport.close();
      this.stoppedResolve();
      this.exit(0);
    })();
    return this.stopping;
  }
}

/** Creates an extension; register what it offers, then call `run()`. */
export function createExtension(options: ExtensionOptions): Extension {
  return new Extension(options);
}
