// Where what extensions show goes: notes (notify, display, clear_notes), submitted prompts,
// panels and questions to the user, bounded while zot's own output is backed up.
import type { CommandResponseFrame } from '@zot/protocol';
import { NOTE_BACKLOG_LIMIT, NoteBacklog } from './backlog.js';
import type { RunningExtension, SurfacedFrame } from './extension.js';
import type { HostEvent } from './host.js';
import { NotesModel } from './notes.js';
import { PanelModel } from './panels.js';
import { ExtensionQuestions } from './ui-questions.js';

/**
 * Contract: every surfaced frame becomes a model change and/or one HostEvent; never throws;
 * at most NOTE_BACKLOG_LIMIT notes per extension are surfaced while output is blocked.
 */
export class UiRouter {
  readonly notes: NotesModel;
  readonly panels: PanelModel;
  readonly questions = new ExtensionQuestions();
  private outputBlocked = false;
  /** Notes per extension during the current output backlog (see setOutputBlocked). */
  private readonly backlogs = new Map<RunningExtension, NoteBacklog>();

  constructor(private readonly emit: (event: HostEvent) => void) {
    this.notes = new NotesModel((extension) => emit({ type: 'ext_clear_notes', extension }));
    this.panels = new PanelModel(emit);
  }

  onFrame(extension: RunningExtension, frame: SurfacedFrame): void {
    const name = extension.name;
    switch (frame.type) {
      case 'notify': {
        const level = frame.level ?? 'info';
        const message = frame.message ?? '';
        if (!this.admitNote(extension, message)) return;
        this.notes.add({ extension: name, kind: 'notify', level, text: message });
        return this.emit({ type: 'ext_notify', extension: name, level, message });
      }
      case 'display': {
        const text = frame.text ?? '';
        if (!this.admitNote(extension, text)) return;
        this.notes.add({ extension: name, kind: 'display', level: 'info', text });
        return this.emit({ type: 'ext_display', extension: name, text });
      }
      case 'clear_notes':
        this.notes.clearFrom(name);
        return this.emit({ type: 'ext_clear_notes', extension: name });
      case 'submit': {
        const text = (frame.text ?? '').trim();
        if (!text) return;
        // zot never runs it itself (design D21): front ends decide (the TUI queues it).
        extension.log.write(`submit: ${text.length} characters, passed to the front end`);
        return this.emit({ type: 'ext_submit', extension: name, text });
      }
      case 'panel_render':
        return this.panels.render(extension, frame);
      case 'panel_close':
        return this.panels.closeFrom(extension, frame.panel_id);
      case 'open_panel':
        // Our addition: the extension opens a panel itself (e.g. to ask during a tool call).
        this.panels.open(extension, frame.panel);
        return this.emit({ type: 'ext_panel_open', extension: name, panel: frame.panel });
      case 'ui_request':
        return this.questions.ask(extension, frame);
    }
  }

  /** A command's answer: an `open_panel` without an error opens that panel. */
  onCommandResponse(extension: RunningExtension, response: CommandResponseFrame): void {
    if (response.action === 'open_panel' && response.open_panel && !response.error)
      this.panels.open(extension, response.open_panel);
  }

  /** `true` while zot's output is backed up; on `false` the dropped notes are reported. */
  setOutputBlocked(blocked: boolean): void {
    this.outputBlocked = blocked;
    if (!blocked) this.reportDrops();
  }

  /** Writes each extension's count of dropped notes to its log and as a warning, once. */
  reportDrops(): void {
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
}
