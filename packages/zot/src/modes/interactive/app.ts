// The interactive mode: boots the terminal UI, lays it out (chat, queue, notes, editor, status)
// and wires the controllers to the session. It renders what the session publishes and calls
// the session's API; it knows nothing of agents, providers or extensions.
import type { Terminal } from '@mariozechner/pi-tui';
import type { InteractiveSession } from '../../contract/front-end.js';
import type { ThemeSpec } from '../../tui/theme.js';
import { DialogLine } from './dialog-line.js';
import { routeEvents } from './event-router.js';
import { createInput, type Input } from './input.js';
import { installKeybindings } from './keybindings.js';
import { Lifetime } from './lifetime.js';
import { Screen } from './screen.js';
import { questionDialogs } from './question-dialogs.js';
import { pickTheme } from './theme-setup.js';
import { PROMPT_MARK, terminalMarksOn, WindowTitle } from './terminal-marks.js';
import type { UserPrograms } from './terminal-handoff.js';
import { tuiUi } from './ui-port.js';
import { welcome } from './welcome.js';

export interface InteractiveOptions {
  version: string;
  /** Sent as the first prompt once extensions are up (`zot "text"`). */
  firstPrompt?: string;
  /** This project's prompt history file. */
  historyFile?: string;
  /** --no-yolo: a dialog asks before each tool runs. */
  confirm?: boolean;
  /** -r/--resume: the session picker opens first. */
  pickSession?: boolean;
  /** Ends the mode (a signal); the session is aborted by the caller. */
  stop?: AbortSignal;
  /** Warnings from starting the run, shown in the chat. */
  warnings?: string[];
  /** The themes to choose from (/theme) and the saved choice. */
  themes?: {
    themes: ThemeSpec[];
    chosen?: string;
    warnings: string[];
    save(name: string): void;
  };
  /** keybindings.json in zot's home: the keys, changed (/hotkeys lists them). */
  keybindingsFile?: string;
  /** Runs the user's editor (ctrl+g) and clipboard program (/copy) through zot's launcher. */
  programs?: UserPrograms;
  /** Whether the model's thinking shows (ctrl+t, /settings), and where that choice is kept. */
  thinking?: { shown: boolean; save(shown: boolean): void };
  /** Injected for tests; the process's terminal otherwise. */
  terminal?: Terminal;
  /** The window title and prompt marks; by default on a real terminal (terminal-marks.ts). */
  terminalMarks?: boolean;
  env?: NodeJS.ProcessEnv;
  now?: () => number;
}

/**
 * Runs the TUI until the user exits (/exit, Ctrl+C twice) or `stop` aborts; returns the exit code.
 * Contract: on return the terminal is restored, the cursor is below the transcript and the
 * scrollback is untouched; the caller disposes the session.
 */
export async function runInteractiveMode(
  session: InteractiveSession,
  options: InteractiveOptions,
): Promise<number> {
  const env = options.env ?? process.env;
  const now = options.now ? { now: options.now } : {};
  const picked = await pickTheme(options.themes, env, options.terminal);
  const { theme } = picked;
  const marks = options.terminalMarks ?? terminalMarksOn(env, process.stdout.isTTY === true);
  const screen = new Screen({
    ...(marks ? { promptMark: PROMPT_MARK } : {}),
    theme,
    ...(options.terminal ? { terminal: options.terminal } : {}),
    ...(env.HOME ? { home: env.HOME } : {}),
    preview: (name, args) => session.toolPreview(name, args),
    reasoning: () => session.reasoningLevel(),
    ...now,
  });
  const keybindings = installKeybindings(options.keybindingsFile);
  const { tui, chat, notes } = screen;
  const lifetime = new Lifetime();
  const input = createInput({
    session,
    screen,
    picked,
    ...(options.themes ? { saveTheme: options.themes.save } : {}),
    ...(options.historyFile ? { historyFile: options.historyFile } : {}),
    exit: lifetime.exit,
    env,
    keybindings,
    ...(options.programs ? { programs: options.programs } : {}),
    ...(options.thinking ? { thinking: options.thinking } : {}),
    ...now,
  });
  const { dialogs, panels, editor } = input;
  screen.layOut(editor.editor);

  welcome(chat, theme, session, {
    version: options.version,
    ...(options.themes ? { themeWarnings: options.themes.warnings } : {}),
    warnings: [...(options.warnings ?? []), ...keybindings.problems],
  });
  const unsubscribe = routeEvents(
    session,
    { chat, queue: screen.queue, notes, status: screen.status, theme, render: screen.render },
    () => editor.refreshSuggestions(),
  );
  const disconnectUi = session.connectUi(
    tuiUi({
      theme,
      notes,
      display: (text, heading) => chat.display(text, undefined, heading),
      insert: (text) => editor.insert(text),
      submit: (text) => editor.submit(text, 'follow_up', false),
      panels,
    }),
  );
  screen.status.update(session.state());
  const title = new WindowTitle(screen.terminal, marks);
  title.update(session.state());
  const unsubscribeTitle = session.subscribe((event) => {
    if (event.type === 'state') title.update(event);
  });
  // The dialog answers ask rules always, and every call no rule allows with --no-yolo.
  // The tool confirmation and extensions' questions share one line: neither replaces the other.
  const line = new DialogLine();
  session.enableConfirmation(dialogs.confirmer(line), { yolo: !options.confirm });
  session.answerExtensionQuestions(questionDialogs(tui, theme, line));
  lifetime.watch(options.stop);

  tui.start();
  // After subscribing, so their errors show; the UI takes keys meanwhile.
  void startExtensions(
    session,
    { ...input, display: (text) => chat.display(text, theme.error) },
    options.firstPrompt,
    options.pickSession === true,
  );

  const code = await lifetime.finished;
  lifetime.unwatch();
  unsubscribe();
  unsubscribeTitle();
  disconnectUi();
  title.close();
  await screen.close();
  return code;
}

/**
 * Picks the session to resume (`zot -r`), starts the extensions (their failures are shown),
 * then asks about project extensions nobody trusted yet, then sends the first prompt: trust is
 * settled before anything runs.
 */
async function startExtensions(
  session: InteractiveSession,
  { dialogs, editor, display }: Input & { display(error: string): void },
  firstPrompt: string | undefined,
  pickSession: boolean,
): Promise<void> {
  if (pickSession) await dialogs.sessions(true);
  await session
    .startExtensions()
    .catch((error: unknown) => display(`extensions did not start: ${(error as Error).message}`));
  await dialogs.trust(true);
  if (firstPrompt) editor.submit(firstPrompt, 'follow_up');
}
