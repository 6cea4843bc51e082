// What a Session is made of, and what it publishes: the jobs it delegates to (built and
// connected here), its events and listeners, and the state snapshot. session.ts adds the
// operations front ends call.
import { basename } from 'node:path';
import type { Usage } from '../agent/events.js';
import type { SessionEvent } from '../contract/events.js';
import type { ExtensionUi } from '../contract/extension-ui.js';
import type { RuntimeState } from '../contract/state.js';
import type { ExtensionHost } from '../extensions/host.js';
import type { Message, ModelInfo } from '../providers/types.js';
import type { SandboxController } from '../security/sandbox/controller.js';
import { modelSummary } from './branch-summary.js';
import { SessionBranches } from './branches.js';
import { Checkpointer } from './checkpoints/checkpointer.js';
import { screenSummary } from './compact.js';
import type { ConfirmGate } from './confirm.js';
import type { CheckpointEntry } from './load.js';
import { ModelAccess } from './model-access.js';
import { OperationQueue } from './operation-queue.js';
import { PermissionGate } from './permission-gate.js';
import { PromptQueue } from './prompt-queue.js';
import { PromptRunner } from './prompt-runner.js';
import { SessionExtensions } from './session-extensions.js';
import { SessionListeners } from './session-listeners.js';
import { contextUsed, STATELESS_EVENTS, type SessionOptions } from './session-options.js';
import { SessionRecord } from './session-record.js';
import { extensionsOf, openPanelOf, StatePublisher } from './state.js';
import type { SessionEntry } from './store.js';
import type { ToolRegistry } from './tool-registry.js';
import { Transcript } from './transcript.js';

/** The parts of a Session, its events and its state; `Session` adds the operations. */
export class SessionCore {
  readonly cwd: string;
  protected readonly transcript: Transcript;
  protected readonly listeners: SessionListeners;
  protected readonly ops = new OperationQueue(
    () => this.statePublisher.publish(),
    (event) => this.emit(event),
  );
  protected readonly access: ModelAccess;
  protected readonly recorder: SessionRecord;
  protected readonly ext: SessionExtensions;
  protected readonly runner: PromptRunner;
  protected gate: ConfirmGate | undefined;
  protected readonly queued = new PromptQueue((queue) => this.emit({ type: 'queue', ...queue }));
  protected readonly statePublisher = new StatePublisher(
    () => this.state(),
    (event) => this.emit(event),
  );
  /** The permission rules and the audit of their decisions (`/permissions`). */
  readonly permissions: PermissionGate;
  /** This session's working-tree checkpoints; undefined when they are off. */
  protected checkpointer: Checkpointer | undefined;
  /** The checkpoints, once a deferred transcript's file (which records them) is read. */
  get checkpoints(): Checkpointer | undefined {
    this.transcript.read();
    return this.checkpointer;
  }
  /** The session tree: its branches, switching, fork, clone and merge (session/branches.ts). */
  readonly branches: SessionBranches;

  constructor(protected readonly options: SessionOptions) {
    this.listeners = new SessionListeners(options.warnings ?? []);
    this.permissions = new PermissionGate(
      options.rules,
      (event) => this.emit(event),
      options.cwd,
      options.ruleFiles,
    );
    this.cwd = options.cwd;
    const emit = (event: SessionEvent) => this.emit(event);
    this.access = new ModelAccess(options, options.model, emit);
    this.recorder = new SessionRecord(options.writer, options.usage, emit, options.sessionName);
    const transcript = (this.transcript = new Transcript(
      options.messages ?? [],
      {
        recorder: this.recorder,
        files: options.files,
        host: () => this.ext.host,
        busy: () => this.busy,
        publish: () => this.statePublisher.publish(),
        emit,
        warn: (message) => this.warn(message),
        cleared: () => this.checkpoints?.conversationChanged(),
        switched: (recorded) => {
          this.checkpointer = this.newCheckpointer(recorded);
        },
      },
      options.deferred,
    ));
    this.branches = new SessionBranches({
      recorder: this.recorder,
      files: options.files,
      // Read when used: a deferred transcript is read whole then, not now.
      get messages() {
        return transcript.messages;
      },
      busy: () => this.busy,
      publish: () => this.statePublisher.publish(),
      emit,
      resume: (path) => this.transcript.resume(path),
      conversationChanged: () => this.checkpoints?.conversationChanged(),
      summarise: (messages, signal) => {
        if (this.access.missingKey() !== undefined) return undefined;
        return modelSummary(messages, this.access.settings(), options.stream, signal).then(
          async (summary) => {
            if (summary === undefined) return undefined;
            const screened = await screenSummary(this.ext.hooks, summary);
            return 'summary' in screened ? screened.summary : undefined;
          },
        );
      },
    });
    this.ext = new SessionExtensions(options, {
      emit,
      refreshState: () => this.refreshState(),
      record: (entry) => this.record(entry),
      subscribe: (listener) => this.subscribe(listener),
      enqueue: (run) => this.ops.enqueue(run),
    });
    this.runner = new PromptRunner({
      options,
      cwd: this.cwd,
      get messages() {
        return transcript.messages;
      },
      queued: this.queued,
      ops: this.ops,
      access: this.access,
      recorder: this.recorder,
      ext: this.ext,
      permissions: this.permissions,
      gate: () => this.gate,
      checkpoints: () => this.checkpoints,
      emit,
    });
    this.checkpointer = this.newCheckpointer(options.checkpoints?.recorded);
    const sandbox = options.sandbox;
    if (sandbox) {
      sandbox.onChange(() => this.refreshState());
      sandbox.onWarning((message) => this.warn(message));
      // Probed now, so that the status line and the first warning come before any command.
      if (sandbox.mode !== 'off') void sandbox.check();
    }
  }

  /** Checkpoints for the session file in use (a new one after /new, the resumed one's after /sessions). */
  protected newCheckpointer(recorded: CheckpointEntry[] | undefined): Checkpointer | undefined {
    const setup = this.options.checkpoints;
    if (!setup) return undefined;
    const path = this.recorder.path;
    return new Checkpointer({
      store: setup.store,
      // Without a session file (--no-session) the refs need a name of this run's own.
      sessionKey: path ? basename(path, '.jsonl') : `run-${process.pid}-${Date.now().toString(36)}`,
      record: (entry) => this.recorder.append(entry),
      warn: (message) => this.warn(message),
      ...(recorded ? { recorded } : {}),
      ...(setup.prune ? { prune: setup.prune } : {}),
    });
  }

  /** A warning for the front ends; held for the first subscriber when none is there yet. */
  protected warn(message: string): void {
    if (!this.listeners.hold(message)) this.emit({ type: 'warning', message });
  }

  get sandbox(): SandboxController | undefined {
    return this.options.sandbox;
  }

  /** Why the sandbox keeps `path` from being read by the user's `@file` (hidden paths), or undefined. */
  readDenial(path: string): string | undefined {
    return this.options.sandbox?.fileDenial('@file', path, 'read');
  }

  /** Where settings are saved (/sandbox --save); absent in sessions built without one. */
  get configPath(): string | undefined {
    return this.options.configPath;
  }

  /**
   * Contract: the first subscriber (a mode subscribes before anything runs) also receives the
   * warnings of loading the transcript, as `warning` events.
   */
  subscribe(listener: (event: SessionEvent) => void): () => void {
    return this.listeners.subscribe(listener);
  }

  /**
   * Connects the mode's extension-UI port: extension UI events go to it (and still to every
   * subscriber, which may skip them with `isExtensionUiEvent`). Returns a disconnect function.
   */
  connectUi(ui: ExtensionUi): () => void {
    return this.listeners.connectUi(ui);
  }

  protected emit(event: SessionEvent): void {
    this.listeners.send(event);
    if (!STATELESS_EVENTS.has(event.type)) this.statePublisher.publish();
  }
  /** Re-checks the snapshot after a change made outside the session (e.g. `/yolo`). */
  refreshState(): void {
    this.statePublisher.publish();
  }

  /** The runtime's snapshot (the fields of `get_state` and of the `state` event). */
  state(): RuntimeState {
    const host = this.ext.host;
    return {
      provider: this.access.model.provider,
      model: this.access.model.id,
      cwd: this.cwd,
      busy: this.busy,
      queue_length: Math.max(0, this.ops.pending - 1),
      // Not a reason to read a deferred transcript: until then it counts none.
      message_count: this.transcript.loadedCount,
      session_file: this.recorder.path ?? null,
      ...(this.recorder.name !== undefined ? { session_name: this.recorder.name } : {}),
      usage: this.usageTotals,
      context: {
        used: this.recorder.lastCall ? contextUsed(this.recorder.lastCall) : 0,
        window: this.access.model.contextWindow,
      },
      yolo: this.gate?.isYolo ?? true,
      sandbox: this.options.sandbox?.state() ?? { mode: 'off', status: 'off', network: false },
      extensions: extensionsOf(host),
      open_panel: openPanelOf(host),
      commands_revision: host?.commandsRevision ?? 0,
    };
  }

  get messages(): readonly Message[] {
    return this.transcript.messages;
  }

  /**
   * The newest messages of a resumed transcript that is still being read (the TUI draws them
   * in its first frame), or undefined when the transcript is whole. Reading `messages`, or any
   * operation that needs the transcript, reads the rest at once.
   */
  transcriptPreview(): readonly Message[] | undefined {
    return this.transcript.preview;
  }

  /**
   * Reads more of a deferred transcript until `until` (performance.now()); once it is whole,
   * returns how many messages the file held, else undefined.
   */
  loadTranscript(until: number): number | undefined {
    return this.transcript.loadStep(until);
  }
  get busy(): boolean {
    return this.ops.pending > 0;
  }
  get currentModel(): ModelInfo {
    return this.access.model;
  }
  get usageTotals(): Usage {
    return this.recorder.usageTotals;
  }
  get sessionFile(): string | undefined {
    return this.recorder.path;
  }
  get toolRegistry(): ToolRegistry {
    return this.options.tools;
  }
  get extensions(): ExtensionHost | undefined {
    return this.ext.host;
  }
  /** Adds an audit or other non-model record to the session file. */
  record(entry: SessionEntry): void {
    this.recorder.append(entry);
  }
}
