// The extension host: one facade over the lifecycle (start, reload, shutdown), the registry
// (commands, tools, activation) and the UI router (notes, panels, submit). Every extension
// failure becomes an ext_error event; none escapes as a throw.
import type { EventFrame, EventName, InterceptableEvent } from '@zot/protocol';
import type { Tool } from '../agent/tool.js';
import type { Builtins } from './catalog.js';
import type { DiscoveredExtension, ReplaceCheck } from '../ext-setup/discovery.js';
import type { ExtensionContext, RunningExtension } from './extension.js';
import {
  consulted,
  runInterceptors,
  type InterceptResult,
  type InterceptValues,
} from './intercept.js';
import { ExtensionLifecycle, type RemoteOptions } from './lifecycle.js';
import type { ExtensionReport, RemoteLink, TransportFactory } from './load-plan.js';
import type { NotesModel } from './notes.js';
import type { PanelRequestResult, PanelSnapshot } from './panels.js';
import { ExtensionRegistry, type CommandOutcome } from './registry.js';
import type { SupervisorClock } from './restart-budget.js';
import { extensionTimeouts, type ExtensionTimeouts } from './timeouts.js';
import { UiRouter } from './ui-router.js';

export type { ExtensionReport, LoadStatus, RemoteLink } from './load-plan.js';

/** A start in progress: see ExtensionHost.begin(). */
export interface StartProgress {
  needed: Promise<void>;
  all: Promise<ExtensionReport[]>;
}
export type { CommandOutcome } from './registry.js';
export type { PanelRequestResult, PanelSnapshot } from './panels.js';

// The host's events are members of the one runtime event union (contract/events.ts).
export type { HostEvent } from '../contract/events.js';
import type { HostEvent } from '../contract/events.js';
import type { AnswerExtension } from '../contract/extension-questions.js';
import type { ProcessPolicy } from '../security/launcher.js';
import { ExtensionScopes } from './scopes.js';

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
  /** The extensions' environment (default: zot's, without its secrets; security/child-env.ts). */
  env?: NodeJS.ProcessEnv;
  timeouts?: ExtensionTimeouts;
  /** Decides whether a discovered entry may be spawned (the project trust gate). */
  allow?(entry: DiscoveredExtension): string | undefined;
  /** Whether a project extension may replace the global one of its name (default: never). */
  replaces?: ReplaceCheck;
  /** How an extension is connected (default: a child process); tests link in-memory pairs. */
  transport?: TransportFactory;
  /** What confines each extension's process (the launcher's policy); default none. */
  processPolicy?(entry: DiscoveredExtension): ProcessPolicy;
  /**
   * Scoped extensions' sandboxes and the sandbox settings' say on unscoped ones (default: the
   * settings' defaults; a scoped extension is sandboxed either way).
   */
  scopes?: ExtensionScopes;
  /** Time for restart backoff (default: the system clock); unit tests drive a fake one. */
  clock?: SupervisorClock;
  /** Remote extensions named on the command line, and how links may be made. */
  remote?: RemoteOptions;
}

/** Events a host started before anyone listens keeps for its first subscriber, at most. */
const EARLY_EVENTS = 1000;
const FIRST_REQUEST_OUT = 'the first model request is out';

export class ExtensionHost {
  readonly timeouts: ExtensionTimeouts;
  private readonly listeners = new Set<(event: HostEvent) => void>();
  /** Events emitted while nobody listened yet (a host started early), for the first subscriber. */
  private early: HostEvent[] | undefined = [];
  /** A start begun by startEarly() that the next begin() or start() joins. */
  private startedEarly: StartProgress | undefined;
  /** Extensions of the current start told of the session's start (each hears it once). */
  private sessionStartSent = new WeakSet<RunningExtension>();
  private sessionStarted = false;
  private readonly commandListeners = new Set<() => void>();
  private readonly lifecycle: ExtensionLifecycle;
  private readonly registry: ExtensionRegistry;
  private readonly ui: UiRouter;
  private outputBlocked = false;

  constructor(options: HostOptions) {
    this.timeouts = options.timeouts ?? extensionTimeouts(options.env);
    const emit = (event: HostEvent) => this.emit(event);
    this.ui = new UiRouter(emit);
    const { cwd, zotHome, logsDir, extPaths, noExt, allow, replaces, transport, processPolicy } =
      options;
    this.lifecycle = new ExtensionLifecycle({
      cwd,
      zotHome,
      logsDir,
      extPaths,
      noExt,
      ...(allow ? { allow } : {}),
      ...(replaces ? { replaces } : {}),
      transport,
      processPolicy,
      scopes:
        options.scopes ??
        new ExtensionScopes({
          settings: () => ({ mode: 'off', extensions: 'optional', denyRead: [] }),
          project: cwd,
          zotHome,
          env: options.env ?? process.env,
        }),
      env: options.env ?? process.env,
      context: this.context(options),
      emit,
      beforeReports: () => this.registry.refresh(), // conflicts land in the reports
      restarted: (extension, restarts) => this.restarted(extension, restarts),
      clock: options.clock,
      remote: options.remote,
    });
    this.registry = new ExtensionRegistry({
      extensions: () => this.lifecycle.running,
      builtins: options.builtins,
      timeouts: this.timeouts,
      onCommandResponse: (extension, response) => this.ui.onCommandResponse(extension, response),
      onCommandsChanged: () => {
        for (const listener of this.commandListeners) listener();
      },
    });
  }

  private context(options: HostOptions): ExtensionContext {
    return {
      timeouts: this.timeouts,
      hostInfo: () => {
        const { provider, model } = options.model();
        return { zot_version: options.version, provider, model, cwd: options.cwd };
      },
      onRegistrationChange: () => this.registry.invalidate(),
      onFrame: (extension, frame) => this.ui.onFrame(extension, frame),
      onReady: (extension) => {
        this.registry.invalidate();
        this.lifecycle.save(extension);
        // Left to start in the background: it hears of the session once it is ready. (A
        // restarted process is not among them yet: restarted() tells it.)
        if (this.sessionStarted && this.lifecycle.running.includes(extension))
          this.sendSessionStart(extension);
      },
      onCrash: (extension, message) => {
        this.registry.invalidate();
        this.lifecycle.crashed(extension, message); // ext_error, then a restart (or not)
        this.ui.panels.closeOwnedBy(extension);
        this.ui.questions.withdrawFrom(extension);
      },
    };
  }

  /**
   * A crashed extension is back (design D25). Its hello_ack carried the current model; the
   * activated deferred tools stay active (the registry keeps them by name); its notes are
   * cleared; it hears session_start again, as a fresh process that subscribed to it.
   */
  private restarted(extension: RunningExtension, restarts: number): void {
    this.registry.invalidate();
    const { name } = extension;
    if (this.ui.notes.notes.some((note) => note.extension === name)) {
      this.ui.notes.clearFrom(name);
      this.emit({ type: 'ext_clear_notes', extension: name });
    }
    this.emit({ type: 'ext_restarted', extension: name, restarts });
    this.sendSessionStart(extension); // unless its ready already did
  }

  /** Contract: the first subscriber also receives what was emitted before it (see startEarly). */
  subscribe(listener: (event: HostEvent) => void): () => void {
    this.listeners.add(listener);
    const early = this.early ?? [];
    this.early = undefined;
    for (const event of early) {
      try {
        listener(event);
      } catch {
        // as in emit()
      }
    }
    return () => this.listeners.delete(listener);
  }

  private emit(event: HostEvent): void {
    if (this.early) {
      if (this.early.length < EARLY_EVENTS) this.early.push(event);
      return;
    }
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch {
        // A failing listener must not break the host.
      }
    }
  }

  /** The notes on show; `clearAll()` emits ext_clear_notes per extension it cleared. */
  get notes(): NotesModel {
    return this.ui.notes;
  }
  /** Extensions that were spawned, in load order. */
  get running(): readonly RunningExtension[] {
    return this.lifecycle.running;
  }
  get lastReports(): readonly ExtensionReport[] {
    return this.lifecycle.lastReports;
  }
  /** Each remote extension's connection now (URL without credentials, state, retry, reason). */
  remoteLinks(): RemoteLink[] {
    return this.lifecycle.remoteLinks();
  }
  /** The open panel, for a front end's state snapshot. */
  openPanel(): PanelSnapshot | undefined {
    return this.ui.panels.snapshot();
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
    // The router first: output an extension held back may be read at once on resume.
    this.ui.setOutputBlocked(blocked);
    this.lifecycle.setOutputBlocked(blocked);
  }

  /**
   * start() now, before anyone subscribed: the extension processes boot while the rest of zot
   * does (print and JSON modes). Their events wait for the first subscriber; the next start()
   * returns this start.
   */
  startEarly(): void {
    this.startedEarly ??= this.launch(true);
  }

  /**
   * Spawns the extensions a start begun by startEarly() held back: those zot remembers as
   * intercepting and observing nothing, whose processes would only compete with zot's own start
   * for the CPU. Called once the first model request is out (the answer is at least a network
   * round trip away), or when something needs every extension; a call of a held extension's
   * tool or command starts it by itself. Contract: never throws; idempotent.
   */
  startHeld(why: string): void {
    this.lifecycle.startHeld(why);
  }

  /**
   * startHeld() once the first model request has been out for the `heldStartMs` timeout: an
   * answer that is complete sooner (a quick local model, a short reply) ends the run without
   * spawning processes it never needed, and their start does not compete with reading it.
   * Contract: never throws; idempotent.
   */
  startHeldAfterRequest(): void {
    const ms = this.timeouts.heldStartMs;
    const why = ms > 0 ? `the first model request has been out for ${ms} ms` : FIRST_REQUEST_OUT;
    this.lifecycle.startHeldAfter(why, ms);
  }

  /**
   * Discovers and starts every extension in parallel (or joins the start begun by startEarly()).
   * `all` resolves when every one is ready or failed; `needed` once those a first model request
   * must wait for are (see ExtensionLifecycle.begin). The session starts for the extensions
   * ready by `needed`; one that starts in the background hears `session_start` when ready.
   * Contract: never rejects.
   */
  begin(): StartProgress {
    const early = this.startedEarly;
    this.startedEarly = undefined;
    return early ?? this.launch();
  }

  /** Discovers and starts every extension in parallel; resolves when all are ready or failed. */
  start(): Promise<ExtensionReport[]> {
    return this.begin().all;
  }

  private launch(holdBack = false): StartProgress {
    this.sessionStarted = false;
    this.sessionStartSent = new WeakSet();
    const progress = this.lifecycle.begin({ holdBack });
    const announce = () => {
      this.sessionStarted = true;
      for (const extension of this.lifecycle.running)
        if (extension.state === 'ready') this.sendSessionStart(extension);
    };
    const needed = progress.needed.then(announce);
    const all = progress.all.then((reports) => {
      announce();
      return reports;
    });
    return { needed, all };
  }

  private sendSessionStart(extension: RunningExtension): void {
    if (this.sessionStartSent.has(extension) || !extension.events.has('session_start')) return;
    this.sessionStartSent.add(extension);
    extension.sendEvent({ type: 'event', event: 'session_start' } as EventFrame);
  }

  /** Shuts every extension down (design D18), in parallel. Contract: never rejects. */
  async shutdown(): Promise<void> {
    this.ui.reportDrops(); // a backlog still open: its count must not be lost with the extension
    for (const extension of this.lifecycle.running) this.ui.panels.closeOwnedBy(extension);
    this.ui.questions.withdrawAll();
    await this.lifecycle.shutdown();
    this.registry.invalidate();
  }

  /** Shuts down, re-reads manifests, respawns; deferred activations are kept, notes cleared. */
  async reload(): Promise<ExtensionReport[]> {
    await this.shutdown();
    this.lifecycle.clear();
    this.registry.reset();
    this.ui.notes.clearAll();
    return this.start();
  }

  /** Registered extension commands that won their name, in load order. */
  commands(): Array<{ name: string; description: string; extension: string }> {
    return this.registry.commands();
  }

  /** Bumped each time `commands()` changes (a registration, a crash, a reload). */
  get commandsRevision(): number {
    return this.registry.commandsRevision;
  }

  /** Calls `listener` after each change of `commands()`; returns the unsubscribe function. */
  onCommandsChanged(listener: () => void): () => void {
    this.commandListeners.add(listener);
    return () => this.commandListeners.delete(listener);
  }

  hasCommand(name: string): boolean {
    return this.registry.hasCommand(name);
  }

  /** Runs a slash command. Contract: never rejects; failures come back as `kind: 'error'`. */
  runCommand(name: string, args: string): Promise<CommandOutcome> {
    return this.registry.runCommand(name, args);
  }

  /**
   * A key for the open panel (design D23's names; esc and ctrl+c close it, design D17).
   * Contract: an unknown key name or panel is an error result, meant for the front end.
   */
  panelKey(panelId: string, key: string, text?: string): PanelRequestResult {
    return this.ui.panels.key(panelId, key, text);
  }

  /** The user closed a panel (design D17); false when no such panel is open. */
  closePanel(panelId: string): boolean {
    return this.ui.panels.closeByUser(panelId).ok;
  }

  /**
   * Who answers extensions' questions (ui_request) from now on; until a front end says, every
   * question is answered `unavailable` at once (print and JSON runs).
   */
  answerQuestionsWith(answer: AnswerExtension): void {
    this.ui.questions.answerWith(answer);
  }

  /** The tool source the session's registry reads before every model request. */
  get toolSource(): { active(): Tool[]; find(name: string): Tool | undefined } {
    return this.registry.toolSource;
  }

  /**
   * Sends a lifecycle event to every running extension subscribed to it. Frames go through each
   * extension's own ordered queue, so a slow reader never delays another extension.
   */
  emitEvent(event: EventName, fields: Record<string, unknown> = {}): void {
    for (const extension of this.lifecycle.running) {
      if (extension.running && extension.events.has(event))
        extension.sendEvent({ type: 'event', event, ...fields } as EventFrame);
    }
  }

  /**
   * Whether any extension would be consulted on `event` (e.g. to hold back streaming): a running
   * interceptor, or a dead one whose failures block.
   */
  intercepting(event: InterceptableEvent): boolean {
    return this.lifecycle.running.some((extension) => consulted(extension, event));
  }

  /** Runs the interception chain in load order. Contract: never rejects. */
  intercept<E extends InterceptableEvent>(
    event: E,
    value: InterceptValues[E],
  ): Promise<InterceptResult<E>> {
    return runInterceptors(this.lifecycle.running, event, value, this.timeouts.interceptMs);
  }

  /** Synchronous SIGKILL of every extension group (process exit hook). */
  killAllNow(): void {
    this.lifecycle.killAllNow();
  }
}
