// The conversation a session holds and where it lives: clearing it, starting a new session file,
// resuming or renaming a recorded one, and listing this directory's sessions.
import type { SessionEvent } from '../contract/events.js';
import { ErrorWithKind } from '../contract/errors.js';
import type { ExtensionHost } from '../extensions/host.js';
import type { Message } from '../providers/types.js';
import type { CheckpointEntry } from './load.js';
import { sessionName, type SessionFiles, type SessionSummary } from './session-files.js';
import { recordedFiles, type SessionRecord } from './session-record.js';
import type { SessionWriter } from './store.js';

export interface TranscriptParts {
  recorder: SessionRecord;
  files: SessionFiles | undefined;
  host(): ExtensionHost | undefined;
  busy(): boolean;
  publish(): void;
  emit(event: SessionEvent): void;
  /** The transcript was emptied (/clear). */
  cleared(): void;
  /** Another session file is in use now (`recorded`: the checkpoints it holds). */
  switched(recorded: CheckpointEntry[] | undefined): void;
}

/** Contract: every change throws `busy` while an operation runs, and leaves `messages` alone. */
export class Transcript {
  /** The one array of messages: the prompt runner appends to it, these methods replace it. */
  readonly messages: Message[];

  constructor(
    messages: readonly Message[],
    private readonly parts: TranscriptParts,
  ) {
    this.messages = [...messages];
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
    this.messages.splice(0, this.messages.length, ...messages);
    this.parts.recorder.switchTo(writer, name);
    const host = this.parts.host();
    host?.notes.clearAll();
    host?.emitEvent('session_start');
    this.parts.switched(recorded);
  }
}
