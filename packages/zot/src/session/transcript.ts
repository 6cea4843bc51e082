// The conversation a session holds and where it lives: clearing it, starting a new session file,
// resuming or renaming a recorded one, and listing this directory's sessions.
import type { SessionEvent } from '../contract/events.js';
import { ErrorWithKind } from '../contract/errors.js';
import type { ExtensionHost } from '../extensions/host.js';
import type { Message } from '../providers/types.js';
import type { CheckpointEntry } from './load.js';
import { sessionName, type SessionFiles, type SessionSummary } from './session-files.js';
import { recordedFiles, type SessionRecord } from './session-record.js';
import { recordTailRepair, type DeferredTranscript, type SessionWriter } from './store.js';

export interface TranscriptParts {
  recorder: SessionRecord;
  files: SessionFiles | undefined;
  host(): ExtensionHost | undefined;
  busy(): boolean;
  publish(): void;
  emit(event: SessionEvent): void;
  /** A warning, held for the first subscriber when none is there yet. */
  warn(message: string): void;
  /** The transcript was emptied (/clear). */
  cleared(): void;
  /** Another session file is in use now (`recorded`: the checkpoints it holds). */
  switched(recorded: CheckpointEntry[] | undefined): void;
}

/**
 * Contract: every change throws `busy` while an operation runs, and leaves `messages` alone.
 * A deferred transcript (a resumed one read after the first frame) is whole before `messages`
 * returns: reading it reads the rest of the file at once.
 */
export class Transcript {
  /** The one array of messages: the prompt runner appends to it, these methods replace it. */
  private readonly all: Message[];
  private deferred: DeferredTranscript | undefined;
  /** How many messages it held when it was read whole or replaced. */
  private heldWhenRead: number;

  constructor(
    messages: readonly Message[],
    private readonly parts: TranscriptParts,
    deferred?: DeferredTranscript,
  ) {
    this.all = [...messages];
    this.heldWhenRead = messages.length;
    this.deferred = deferred;
  }

  get messages(): Message[] {
    this.read();
    return this.all;
  }

  /** Reads the rest of a deferred transcript now (nothing when it is whole). */
  read(): void {
    if (this.deferred) this.finishLoading();
  }

  /** How many messages it holds now (a deferred transcript: none until it is read). */
  get loadedCount(): number {
    return this.all.length;
  }

  /** The newest messages of a transcript still being read (see DeferredTranscript), if any. */
  get preview(): readonly Message[] | undefined {
    return this.deferred?.preview;
  }

  /**
   * Reads more of a deferred transcript until `until` (performance.now()). Once it is whole:
   * how many messages the file held (what was there before any message added since), else
   * undefined.
   */
  loadStep(until: number): number | undefined {
    const deferred = this.deferred;
    if (deferred && deferred.loading.step(until)) this.finishLoading();
    return this.deferred === undefined ? this.heldWhenRead : undefined;
  }

  private finishLoading(): void {
    const deferred = this.deferred!;
    this.deferred = undefined;
    const loaded = deferred.loading.finish();
    // One by one: a spread of a very long transcript would overflow the call stack.
    for (const message of loaded.messages) this.all.push(message);
    this.heldWhenRead = loaded.messages.length;
    const { recorder } = this.parts;
    recorder.restoreUsage(loaded.usage);
    // A name given meanwhile (`/name`) is newer than the file's.
    recorder.name ??= loaded.name;
    this.parts.switched(loaded.checkpoints);
    const warnings = [...loaded.warnings];
    const writer = recorder.writerNow;
    if (writer) warnings.push(...recordTailRepair(writer, loaded));
    for (const message of warnings) this.parts.warn(message);
    this.parts.publish();
  }

  private assertIdle(): void {
    if (this.parts.busy()) throw new ErrorWithKind('busy', 'agent is busy');
  }

  clear(): void {
    this.assertIdle();
    const { recorder } = this.parts;
    this.messages.length = 0;
    this.parts.cleared();
    this.parts.host()?.notes.clearAll();
    if (recorder.exists) recorder.append({ type: 'clear', time: new Date().toISOString() });
    this.parts.publish();
  }

  startNew(): void {
    this.assertIdle();
    this.replace([], this.parts.files?.create(), undefined);
    this.parts.recorder.resetUsage();
    this.parts.publish();
  }

  list(): SessionSummary[] {
    return this.parts.files?.list() ?? [];
  }

  resume(path: string): void {
    this.assertIdle();
    const opened = recordedFiles(this.parts.files).open(path);
    this.replace(opened.messages, opened.writer, opened.checkpoints, opened.name);
    this.parts.recorder.restoreUsage(opened.usage);
    for (const message of opened.warnings) this.parts.emit({ type: 'warning', message });
    this.parts.publish();
  }

  /** Names a recorded session; the open one's new name is in the next state snapshot. */
  rename(path: string, name: string): void {
    const { recorder } = this.parts;
    // The session in use before its first prompt has no file yet: its name waits for it.
    const given =
      path === recorder.path && !recorder.exists
        ? (recorder.nameOnFirstWrite = sessionName(name))
        : recordedFiles(this.parts.files).rename(path, name);
    if (path === this.parts.recorder.path) {
      this.parts.recorder.name = given;
      this.parts.publish();
    }
  }

  /** Deletes a recorded session of this directory; never the one in use. */
  delete(path: string): void {
    if (path === this.parts.recorder.path)
      throw new Error('this is the session in use: /new or resume another one first');
    recordedFiles(this.parts.files).delete(path);
  }

  private replace(
    messages: Message[],
    writer: SessionWriter | undefined,
    recorded: CheckpointEntry[] | undefined,
    name?: string,
  ): void {
    // A transcript still being read is given up: it is replaced.
    this.deferred = undefined;
    this.all.length = 0;
    for (const message of messages) this.all.push(message);
    this.heldWhenRead = messages.length;
    this.parts.recorder.switchTo(writer, name);
    const host = this.parts.host();
    host?.notes.clearAll();
    host?.emitEvent('session_start');
    this.parts.switched(recorded);
  }
}
