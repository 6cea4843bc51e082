// The extension host: discovery, parallel start, the command and tool catalog, notes, reload
// and shutdown. Every extension failure becomes an ext_error event; none escapes as a throw.
import type {
  CommandResponseFrame,
  EventFrame,
  EventName,
  InterceptableEvent,
  NotifyLevel,
  PanelKeyFrame,
  PanelSpec,
} from '@zot/protocol';
import type { Tool } from '../agent/tool.js';
import { NOTE_BACKLOG_LIMIT, NoteBacklog } from './backlog.js';
import { buildCatalog, type Builtins, type Catalog } from './catalog.js';
import { discoverExtensions, type DiscoveredExtension } from './discovery.js';
import type { ExtensionContext, RunningExtension, SurfacedFrame } from './extension.js';
import { planExtension, type ExtensionReport } from './load-plan.js';
import { NotesModel } from './notes.js';
import { runInterceptors, type InterceptResult, type InterceptValues } from './intercept.js';
import { RequestError } from './peer.js';
import { extensionTimeouts, type ExtensionTimeouts } from './timeouts.js';
import { extensionTool } from './tool-adapter.js';

export type { ExtensionReport, LoadStatus } from './load-plan.js';

export type HostEvent =
  | { type: 'ext_error'; extension: string; message: string; log_path: string }
  | { type: 'ext_warning'; extension: string; message: string }
  | { type: 'ext_notify'; extension: string; level: NotifyLevel; message: string }
  | { type: 'ext_display'; extension: string; text: string }
  | { type: 'ext_clear_notes'; extension: string }
  | { type: 'ext_panel_open'; extension: string; panel: PanelSpec }
  | {
      type: 'ext_panel_render';
      extension: string;
      panel_id: string;
      title?: string;
      lines?: string[];
      footer?: string;
    }
  | { type: 'ext_panel_close'; extension: string; panel_id: string };

export interface HostOptions {
  cwd: string;
  zotHome: string;
  logsDir: string;
  extPaths: string[];
  noExt: boolean;
  version: string;
  /** The current provider and model, read for every hello_ack. */
  model(): { provider: string; model: string };
  builtins: Builtins;
  env?: NodeJS.ProcessEnv;
  timeouts?: ExtensionTimeouts;
  /** Decides whether a discovered entry may be spawned (the project trust gate). */
  allow?(entry: DiscoveredExtension): string | undefined;
  /** `submit` frames; when absent they are logged and ignored (non-interactive modes). */
  onSubmit?(extension: string, text: string): void;
}

export type CommandOutcome =
  | { kind: 'response'; extension: string; response: CommandResponseFrame }
  | { kind: 'error'; extension: string; message: string };

export class ExtensionHost {
  readonly notes = new NotesModel();
  readonly timeouts: ExtensionTimeouts;
  private extensions: RunningExtension[] = [];
  private reports: ExtensionReport[] = [];
  private catalog: Catalog | undefined;
  private readonly conflictsLogged = new Set<string>();
  private readonly activated = new Set<string>();
  private readonly listeners = new Set<(event: HostEvent) => void>();
  private readonly toolCache = new WeakMap<object, Tool>();
  private readonly panels = new Map<string, RunningExtension>();
  private exitHook: (() => void) | undefined;
  private outputBlocked = false;
  /** Notes per extension during the current output backlog (see setOutputBlocked). */
  private readonly backlogs = new Map<RunningExtension, NoteBacklog>();

  constructor(private readonly options: HostOptions) {
    this.timeouts = options.timeouts ?? extensionTimeouts(options.env);
  }

  subscribe(listener: (event: HostEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private emit(event: HostEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch {
        // A failing listener must not break the host.
      }
    }
  }

  /** Extensions that were spawned, in load order. */
  get running(): readonly RunningExtension[] {
    return this.extensions;
  }
  get lastReports(): readonly ExtensionReport[] {
    return this.reports;
  }

  private context(): ExtensionContext {
    return {
      timeouts: this.timeouts,
      hostInfo: () => {
        const { provider, model } = this.options.model();
        return { zot_version: this.options.version, provider, model, cwd: this.options.cwd };
      },
      onRegistrationChange: () => (this.catalog = undefined),
      onFrame: (extension, frame) => this.onFrame(extension, frame),
      onCrash: (extension, message) => {
        this.catalog = undefined;
        this.emit({
          type: 'ext_error',
          extension: extension.name,
          message,
          log_path: extension.logPath,
        });
      },
    };
  }

  /**
   * The port from the mode that owns zot's output: `true` once a write was left queued (the
   * reader lags), `false` on 'drain'. Meanwhile extensions are not read (their writes block),
   * except while a reply is awaited from one; and at most NOTE_BACKLOG_LIMIT notes per
   * extension are surfaced, the rest dropped and reported once the output drains.
   * Contract: never throws; one writer reports per host.
   */
  setOutputBlocked(blocked: boolean): void {
    if (blocked === this.outputBlocked) return;
    this.outputBlocked = blocked;
    for (const extension of this.extensions) extension.setOutputBlocked(blocked);
    if (!blocked) this.reportDrops();
  }

  /** Writes each extension's count of dropped notes to its log and as a warning, once. */
  private reportDrops(): void {
    const backlogs = [...this.backlogs];
    this.backlogs.clear();
    const { notes, bytes } = NOTE_BACKLOG_LIMIT;
    for (const [extension, backlog] of backlogs) {
      if (backlog.dropped === 0) continue;
      const what = `dropped ${backlog.dropped} notes (notify/display) while zot's output was backed up (at most ${notes} notes or ${bytes / 1024 / 1024} MiB of text wait per backlog)`;
      extension.log.write(what);
      this.emit({
        type: 'ext_warning',
        extension: extension.name,
        message: `extension ${extension.name} ${what}; see ${extension.logPath}`,
      });
    }
  }

  /** False when the note must be dropped: output is backed up and its backlog is full. */
  private admitNote(extension: RunningExtension, text: string): boolean {
    if (!this.outputBlocked) return true;
    let backlog = this.backlogs.get(extension);
    if (!backlog) this.backlogs.set(extension, (backlog = new NoteBacklog()));
    return backlog.admit(text);
  }

  /** Discovers and starts every extension in parallel; resolves when all are ready or failed. */
  async start(): Promise<ExtensionReport[]> {
    const { entries } = discoverExtensions({
      cwd: this.options.cwd,
      zotHome: this.options.zotHome,
      extPaths: this.options.extPaths,
      noExt: this.options.noExt,
    });
    const env = this.options.env ?? process.env;
    const planned = entries.map((entry) =>
      planExtension(entry, {
        env,
        logsDir: this.options.logsDir,
        ...(this.options.allow ? { allow: this.options.allow } : {}),
        context: this.context(),
      }),
    );
    this.extensions = planned.flatMap((item) => ('extension' in item ? [item.extension] : []));
    if (this.outputBlocked)
      this.extensions.forEach((extension) => extension.setOutputBlocked(true));
    if (this.extensions.length > 0) this.installExitHook();
    await Promise.all(this.extensions.map((extension) => extension.start()));
    this.catalog = undefined;
    this.currentCatalog(); // conflicts land in the extensions' warnings before the reports
    this.reports = planned.map((item) => item.report());
    this.emitEvent('session_start');
    for (const report of this.reports) {
      if (report.status === 'failed' || report.status === 'manifest-error') {
        this.emit({
          type: 'ext_error',
          extension: report.name,
          message: `extension ${report.name} failed to load: ${report.error}`,
          log_path: report.logPath ?? '',
        });
      } else if (report.status === 'untrusted') {
        this.emit({
          type: 'ext_warning',
          extension: report.name,
          message: report.error ?? 'not trusted',
        });
      }
    }
    return this.reports;
  }

  private installExitHook(): void {
    if (this.exitHook) return;
    this.exitHook = () => this.killAllNow();
    process.on('exit', this.exitHook);
  }

  private currentCatalog(): Catalog {
    if (!this.catalog) {
      const live = this.extensions.filter(
        (e) => e.state === 'ready' || e.state === 'exited' || e.state === 'handshaking',
      );
      this.catalog = buildCatalog(live, this.options.builtins, this.conflictsLogged);
    }
    return this.catalog;
  }

  private onFrame(extension: RunningExtension, frame: SurfacedFrame): void {
    const name = extension.name;
    switch (frame.type) {
      case 'notify': {
        const level = frame.level ?? 'info';
        const message = frame.message ?? '';
        if (!this.admitNote(extension, message)) return;
        this.notes.add({ extension: name, kind: 'notify', level, text: message });
        return this.emit({ type: 'ext_notify', extension: name, level, message });
      }
      case 'display':
        if (!this.admitNote(extension, frame.text ?? '')) return;
        this.notes.add({ extension: name, kind: 'display', level: 'info', text: frame.text ?? '' });
        return this.emit({ type: 'ext_display', extension: name, text: frame.text ?? '' });
      case 'clear_notes':
        this.notes.clearFrom(name);
        return this.emit({ type: 'ext_clear_notes', extension: name });
      case 'submit': {
        const text = (frame.text ?? '').trim();
        if (!text) return;
        if (this.options.onSubmit) this.options.onSubmit(name, text);
        else extension.log.write('ignored submit: this mode has no interactive prompt queue');
        return;
      }
      case 'panel_render':
        return this.emit({
          type: 'ext_panel_render',
          extension: name,
          panel_id: frame.panel_id,
          ...(frame.title !== undefined ? { title: frame.title } : {}),
          ...(frame.lines !== undefined ? { lines: frame.lines } : {}),
          ...(frame.footer !== undefined ? { footer: frame.footer } : {}),
        });
      case 'panel_close':
        this.panels.delete(frame.panel_id);
        return this.emit({ type: 'ext_panel_close', extension: name, panel_id: frame.panel_id });
    }
  }

  /** Registered extension commands that won their name, in load order. */
  commands(): Array<{ name: string; description: string; extension: string }> {
    return [...this.currentCatalog().commands.values()].map(({ extension, command }) => ({
      name: command.name,
      description: command.description,
      extension: extension.name,
    }));
  }

  hasCommand(name: string): boolean {
    return this.currentCatalog().commands.has(name.toLowerCase());
  }

  /** Runs a slash command. Contract: never rejects; failures come back as `kind: 'error'`. */
  async runCommand(name: string, args: string): Promise<CommandOutcome> {
    const entry = this.currentCatalog().commands.get(name.toLowerCase());
    if (!entry) return { kind: 'error', extension: '', message: `unknown command /${name}` };
    const { extension, command } = entry;
    if (!extension.running) {
      return {
        kind: 'error',
        extension: extension.name,
        message: `/${command.name}: extension ${extension.name} is not running (${extension.whyNotRunning}); see ${extension.logPath}`,
      };
    }
    try {
      const response = await extension.peer.request(
        { type: 'command_invoked', name: command.name, args: args.trim() },
        `/${command.name}`,
        this.timeouts.commandMs,
      );
      if (response.action === 'open_panel' && response.open_panel && !response.error) {
        this.panels.set(response.open_panel.id, extension);
      }
      return { kind: 'response', extension: extension.name, response };
    } catch (error) {
      const message =
        error instanceof RequestError && error.reason === 'timeout'
          ? `/${command.name}: extension ${extension.name} did not answer within ${this.timeouts.commandMs} ms; see ${extension.logPath}`
          : `/${command.name}: ${(error as Error).message}`;
      extension.log.write(message);
      return { kind: 'error', extension: extension.name, message };
    }
  }

  /** Forwards a key to the extension that owns `panelId`; false when no such panel is open. */
  panelKey(panelId: string, key: string, text?: string): boolean {
    const owner = this.panels.get(panelId);
    if (!owner?.running) return false;
    owner.send({
      type: 'panel_key',
      panel_id: panelId,
      key: key as PanelKeyFrame['key'], // the closed set is checked in a later change
      ...(text !== undefined ? { text } : {}),
    });
    return true;
  }

  /** The user closed a panel (DECISIONS 17). */
  closePanel(panelId: string): boolean {
    const owner = this.panels.get(panelId);
    if (!owner) return false;
    this.panels.delete(panelId);
    if (owner.running) owner.send({ type: 'panel_close', panel_id: panelId });
    return true;
  }

  /** The tool source the session's registry reads before every model request. */
  readonly toolSource = {
    active: (): Tool[] => {
      const tools: Tool[] = [];
      for (const [name, entry] of this.currentCatalog().tools) {
        if (entry.tool.deferred && !this.activated.has(name)) continue;
        tools.push(this.toolFor(entry.extension, entry.tool));
      }
      return tools;
    },
    find: (name: string): Tool | undefined => {
      const entry = this.currentCatalog().tools.get(name);
      return entry ? this.toolFor(entry.extension, entry.tool) : undefined;
    },
  };

  private toolFor(
    extension: RunningExtension,
    registration: object & Parameters<typeof extensionTool>[1],
  ): Tool {
    let tool = this.toolCache.get(registration);
    if (!tool) {
      tool = extensionTool(extension, registration, {
        toolTimeoutMs: this.timeouts.toolMs,
        activate: (from, names) => this.activate(from, names),
      });
      this.toolCache.set(registration, tool);
    }
    return tool;
  }

  /** activate_tools: deferred tools become visible from the next model request on. */
  private activate(from: RunningExtension, names: string[]): void {
    const tools = this.currentCatalog().tools;
    for (const name of names) {
      const entry = tools.get(name);
      if (!entry) from.log.write(`activate_tools: unknown tool "${name}" ignored`);
      else if (!entry.tool.deferred)
        from.log.write(`activate_tools: "${name}" is not deferred; it is always offered`);
      else this.activated.add(name);
    }
  }

  /** Shuts every extension down (DECISIONS 18), in parallel. Contract: never rejects. */
  async shutdown(): Promise<void> {
    const extensions = this.extensions;
    this.reportDrops(); // a backlog still open: its count must not be lost with the extension
    await Promise.all(extensions.map((extension) => extension.shutdown()));
    this.catalog = undefined;
    this.panels.clear();
  }

  /** Shuts down, re-reads manifests, respawns; deferred activations are kept. */
  async reload(): Promise<ExtensionReport[]> {
    await this.shutdown();
    this.extensions = [];
    this.conflictsLogged.clear();
    this.notes.clearAll();
    return this.start();
  }

  /**
   * Sends a lifecycle event to every running extension subscribed to it. Frames go through each
   * extension's own ordered queue, so a slow reader never delays another extension.
   */
  emitEvent(event: EventName, fields: Record<string, unknown> = {}): void {
    for (const extension of this.extensions) {
      if (extension.running && extension.events.has(event))
        extension.sendEvent({ type: 'event', event, ...fields } as EventFrame);
    }
  }

  /** Whether any running extension intercepts `event` (e.g. to hold back streaming). */
  intercepting(event: InterceptableEvent): boolean {
    return this.extensions.some(
      (extension) => extension.running && extension.intercepts.has(event),
    );
  }

  /** Runs the interception chain in load order. Contract: never rejects. */
  intercept<E extends InterceptableEvent>(
    event: E,
    value: InterceptValues[E],
  ): Promise<InterceptResult<E>> {
    return runInterceptors(this.extensions, event, value, this.timeouts.interceptMs);
  }

  /** Synchronous SIGKILL of every extension group (process exit hook). */
  killAllNow(): void {
    for (const extension of this.extensions) extension.killNow();
  }
}
