// The terminal and what is on it: the TUI, the chat, the queue, the notes, the status line and
// the editor, stacked in one frame; and leaving the screen with only the transcript on it.
import { ProcessTerminal, TUI, type Component, type Terminal } from '@mariozechner/pi-tui';
import { FittedFrame } from '../../tui/fitted-frame.js';
import { memoizeFrames } from '../../tui/frame-memo.js';
import type { Theme } from '../../tui/theme.js';
import { gitBranch } from '../../util/git-branch.js';
import { ChatView } from './chat/chat-view.js';
import { Notes } from './notes.js';
import { QueueArea } from './queue-area.js';
import { StatusLine } from './status-line.js';
import { WatchedTerminal } from './watched-terminal.js';

export interface ScreenOptions {
  theme: Theme;
  /** The process's terminal when absent. */
  terminal?: Terminal;
  home?: string;
  /** A replayed tool call's one-line preview. */
  preview(name: string, args: Record<string, unknown>): string;
  /** Put before each prompt in the transcript (an OSC 133 mark); none when absent. */
  promptMark?: string;
  now?: () => number;
  /** The thinking level, for the status line. */
  reasoning?: () => string;
}

export class Screen {
  readonly terminal: WatchedTerminal;
  readonly tui: TUI;
  readonly chat: ChatView;
  readonly queue: QueueArea;
  readonly notes: Notes;
  readonly status: StatusLine;
  private readonly frame = new FittedFrame();
  private editor: Component | undefined;

  constructor(options: ScreenOptions) {
    const { theme } = options;
    this.terminal = new WatchedTerminal(options.terminal ?? new ProcessTerminal());
    this.tui = new TUI(this.terminal);
    memoizeFrames(this.tui);
    this.chat = new ChatView({
      tui: this.tui,
      theme,
      preview: options.preview,
      ...(options.promptMark ? { promptMark: options.promptMark } : {}),
      ...(options.now ? { now: options.now } : {}),
    });
    this.queue = new QueueArea(theme);
    this.notes = new Notes(this.render);
    this.status = new StatusLine({
      theme,
      branch: gitBranch,
      ...(options.home ? { home: options.home } : {}),
      ...(options.reasoning ? { reasoning: options.reasoning } : {}),
    });
  }

  readonly render = (): void => this.tui.requestRender();

  /** Stacks the views with `editor` between the notes and the status line, and focuses it. */
  layOut(editor: Component): void {
    this.editor = editor;
    this.frame.mount(this.tui);
    this.frame.addChild(this.chat.container);
    this.frame.addChild(this.queue);
    this.frame.addChild(this.notes);
    this.frame.addChild(editor);
    this.frame.addChild(this.status);
    this.tui.setFocus(editor);
  }

  /**
   * Leaves the transcript on screen and nothing else: the editor, notes and status line are
   * removed and drawn away before the TUI stops (which puts the cursor on the line below).
   */
  async close(): Promise<void> {
    const transient: Component[] = [this.queue, this.notes, this.status];
    if (this.editor) transient.splice(2, 0, this.editor);
    for (const component of transient) this.frame.removeChild(component);
    const drawn = this.terminal.nextWrite(500);
    this.tui.requestRender();
    await drawn;
    await this.terminal.drainInput(100, 20).catch(() => undefined);
    this.tui.stop();
  }
}
