// The controllers that act on what the user does: the editor (prompts, history, mentions), the
// keys it does not take (Esc, Ctrl+C, Ctrl+O), slash commands, dialogs and extension panels.
import type { InteractiveSession } from '../../contract/front-end.js';
import { shownMessage } from '../../contract/shown-message.js';
import { commandSurface } from './command-surface.js';
import { CommandsController } from './commands.js';
import { Dialogs } from './dialogs.js';
import { EditorController } from './editor.js';
import { stepModel, stepReasoning, type Outcome } from './cycling.js';
import type { InstalledKeybindings } from './keybindings.js';
import { KeysController } from './keys.js';
import { ownCommands } from './own-commands.js';
import { editExternally, suspend, type UserPrograms } from './terminal-handoff.js';
import { PanelHost } from './panel-host.js';
import type { Screen } from './screen.js';
import { StatusNote } from './status-note.js';
import { themeChoice, type PickedTheme } from './theme-setup.js';

export interface InputOptions {
  session: InteractiveSession;
  screen: Screen;
  picked: PickedTheme;
  /** Keeps a /theme choice; without it /theme is not offered. */
  saveTheme?: (name: string) => void;
  historyFile?: string;
  exit(): void;
  now?: () => number;
  env: NodeJS.ProcessEnv;
  keybindings: InstalledKeybindings;
  /** Runs the user's editor and clipboard program; without it ctrl+g and those are off. */
  programs?: UserPrograms;
  /** Whether thinking shows (ctrl+t), kept for the next run by `save`. */
  thinking?: { shown: boolean; save(shown: boolean): void };
}

export interface Input {
  dialogs: Dialogs;
  panels: PanelHost;
  editor: EditorController;
}

export function createInput(options: InputOptions): Input {
  const { session, screen, picked, exit } = options;
  const { theme } = picked;
  const { tui, chat, notes } = screen;
  const now = options.now ? { now: options.now } : {};
  const dialogs = new Dialogs({
    tui,
    theme,
    session,
    ...(options.saveTheme ? { themes: themeChoice(picked, tui, options.saveTheme) } : {}),
    surface: {
      display: (text, style) => chat.display(text, style),
      replay: () => {
        chat.clear();
        chat.replay(session.messages.map(shownMessage));
      },
    },
    ...now,
  });
  const panels = new PanelHost({
    tui,
    theme,
    session,
    warn: (message) => chat.display(message, theme.warning),
  });
  const statusNote = new StatusNote(notes, theme, screen.render);
  const thinking = {
    shown: () => chat.showsThinking,
    show: (shown: boolean) => {
      chat.setThinkingShown(shown);
      try {
        options.thinking?.save(shown);
      } catch (error) {
        chat.display(`could not save the choice: ${(error as Error).message}`, theme.warning);
      }
    },
  };
  if (options.thinking) chat.setThinkingShown(options.thinking.shown);
  const commands = new CommandsController({
    session,
    theme,
    dialogs,
    own: ownCommands({
      tui,
      theme,
      session,
      display: (text, style) => chat.display(text, style),
      clipboard: {
        write: (data) => screen.terminal.write(data),
        env: options.env,
        ...(options.programs ? { programs: options.programs } : {}),
      },
      keybindings: options.keybindings,
      thinking,
      dialogs,
    }),
    surface: commandSurface({
      session,
      theme,
      screen,
      panels,
      statusNote,
      insert: (text) => editor.setText(text),
      exit,
    }),
  });
  const editor = new EditorController({
    tui,
    theme,
    session,
    runCommand: (text) => void commands.run(text),
    cwd: session.state().cwd,
    ...(options.historyFile ? { historyFile: options.historyFile } : {}),
    warn: (message) => chat.display(`warning: ${message}`, theme.warning),
    kept: (problem) => {
      chat.display(`error: ${problem}`, theme.error);
      chat.display(
        'your prompt is still in the editor: store a key with /login, then press enter to send it',
        theme.muted,
      );
    },
  });
  const keys = new KeysController({
    session,
    theme,
    notes,
    editor: {
      get text() {
        return editor.text;
      },
      setText: (text) => editor.setText(text),
      isShowingAutocomplete: () => editor.editor.isShowingAutocomplete(),
    },
    queued: () => screen.queue.waiting,
    toggleExpanded: () => chat.toggleExpanded(),
    rewind: () => void dialogs.rewind(),
    exit,
    keybindings: options.keybindings.manager,
    handlers: {
      'app.thinking.toggle': () => {
        thinking.show(!thinking.shown());
        statusNote.show(`thinking ${thinking.shown() ? 'shown' : 'hidden'}`);
      },
      'app.thinking.cycle': () => tell(stepReasoning(session)),
      'app.model.previous': () => tell(stepModel(session, -1)),
      'app.model.next': () => tell(stepModel(session, 1)),
      'app.suspend': () => {
        const problem = suspend(tui);
        if (problem) tell({ text: problem, refused: true });
      },
      'app.editor.external': () =>
        void editExternally(
          tui,
          editor.editor.getExpandedText(),
          options.env,
          options.programs,
        ).then((outcome) =>
          outcome.ok ? editor.setText(outcome.text) : tell({ text: outcome.error, refused: true }),
        ),
    },
    ...now,
  });
  // What a key changed goes in the short-lived status line; what it could not do, in the chat.
  function tell(outcome: Outcome): void {
    if (outcome.refused) chat.display(outcome.text, theme.warning);
    else statusNote.show(outcome.text);
  }
  // Keys go to the keys controller first; what it leaves is the editor's.
  const steer = editor.editor.onKey;
  editor.editor.onKey = (data) => keys.handle(data) || (steer?.(data) ?? false);
  return { dialogs, panels, editor };
}
