// The interactive mode: boots the terminal UI, lays it out (chat, queue, notes, editor, status)
// and wires the controllers to the session. It renders what the session publishes and calls
// the session's API; it knows nothing of agents, providers or extensions.
import { ProcessTerminal, TUI, type Terminal } from '@mariozechner/pi-tui';
import { isExtensionUiEvent } from '../../contract/extension-ui.js';
import { createTheme, DARK, noColor, type Theme, type ThemeSpec } from '../../tui/theme.js';
import { ChatView } from './chat/chat-view.js';
import { CommandsController } from './commands.js';
import { Dialogs } from './dialogs.js';
import { terminalSafe } from '../../util/terminal-text.js';
import { PanelHost } from './panel-host.js';
import { FittedFrame } from '../../tui/fitted-frame.js';
import { memoizeFrames } from '../../tui/frame-memo.js';
import { gitBranch } from '../../util/git-branch.js';
import { EditorController } from './editor.js';
import { CANCEL_NOTE_KEY, KeysController } from './keys.js';
import { Notes } from './notes.js';
import type { InteractiveSession, SessionEvent } from './ports.js';
import { restartedText } from '../io.js';
import { QueueArea } from './queue-area.js';
import { StatusLine } from './status-line.js';
import { extensionHeading, tuiUi } from './ui-port.js';
import { WatchedTerminal } from './watched-terminal.js';
import { detectBackground } from './background.js';

export interface InteractiveOptions {
  version: string;
  /** Sent as the first prompt once extensions are up (`zot "text"`). */
  firstPrompt?: string;
  /** This project's prompt history file. */
  historyFile?: string;
  /** --no-yolo: a dialog asks before each tool runs. */
  confirm?: boolean;
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
  /** Injected for tests; the process's terminal otherwise. */
  terminal?: Terminal;
  env?: NodeJS.ProcessEnv;
  now?: () => number;
}

/** The /reload-ext status line: how long it stays. */
const STATUS_NOTE_MS = 5000;
const STATUS_NOTE_KEY = 'status';
/** Extension failures stay in the chat until a clean reload or /clear. */
const EXTENSION_ERROR_TAG = 'extension-error';

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
  const specs = options.themes?.themes ?? [DARK];
  const color = !noColor(env);
  const chosen = specs.find((s) => s.name === options.themes?.chosen);
  // Without a saved choice the built-in theme follows the terminal's background.
  const background =
    !chosen && color && !options.terminal
      ? await detectBackground(env, process.stdin, process.stdout)
      : undefined;
  const spec = chosen ?? specs.find((s) => s.name === background) ?? specs[0] ?? DARK;
  // One theme object that every widget reads its styles from: /theme changes it in place.
  const theme = createTheme(spec, color);
  const applyTheme = (next: ThemeSpec) => {
    Object.assign(theme, createTheme(next, color));
    tui.invalidate();
    tui.requestRender(true);
  };
  const terminal = new WatchedTerminal(options.terminal ?? new ProcessTerminal());
  const tui = new TUI(terminal);
  memoizeFrames(tui);
  const render = () => tui.requestRender();
  const chat = new ChatView({
    tui,
    theme,
    preview: (name, args) => session.toolPreview(name, args),
    ...(options.now ? { now: options.now } : {}),
  });
  const queue = new QueueArea(theme);
  const notes = new Notes(render);
  const status = new StatusLine({
    theme,
    branch: gitBranch,
    ...(env.HOME ? { home: env.HOME } : {}),
  });

  let finish: (code: number) => void = () => undefined;
  const finished = new Promise<number>((resolve) => (finish = resolve));
  const exit = () => finish(0);

  let themeName = spec.name;
  const dialogs = new Dialogs({
    tui,
    theme,
    session,
    ...(options.themes
      ? {
          themes: {
            list: specs,
            current: () => themeName,
            apply: (next: ThemeSpec) => {
              themeName = next.name;
              applyTheme(next);
            },
            save: options.themes.save,
          },
        }
      : {}),
    surface: {
      display: (text, style) => chat.display(text, style),
      replay: () => {
        chat.clear();
        chat.replay(session.messages);
      },
    },
    ...(options.now ? { now: options.now } : {}),
  });
  const panels = new PanelHost({
    tui,
    theme,
    session,
    warn: (message) => chat.display(message, theme.warning),
  });
  let statusTimer: NodeJS.Timeout | undefined;
  const commands = new CommandsController({
    session,
    theme,
    dialogs,
    surface: {
      display: (text, style, extension) =>
        chat.display(text, style, extension ? extensionHeading(theme, extension) : undefined),
      echo: (text) => chat.echo(text),
      insert: (text) => editor.setText(text),
      openPanel: (extension, panel) => panels.open(extension, panel),
      // A reload that left nothing failing takes the earlier failures out of the chat.
      extensionsReloaded: () => {
        if (session.state().extensions.failed.length === 0) chat.removeTagged(EXTENSION_ERROR_TAG);
      },
      status: (text) => {
        notes.set(STATUS_NOTE_KEY, theme.success(terminalSafe(text)));
        // A newer status line gets its own five seconds.
        if (statusTimer) clearTimeout(statusTimer);
        const timer = (statusTimer = setTimeout(() => {
          notes.delete(STATUS_NOTE_KEY);
          tui.requestRender();
        }, STATUS_NOTE_MS));
        timer.unref?.();
        tui.requestRender();
      },
      // OSC 52: most terminals (and tmux with set-clipboard) put this on the system clipboard.
      copy: (text) => {
        terminal.write(`\x1b]52;c;${Buffer.from(text, 'utf8').toString('base64')}\x07`);
        return true;
      },
      reset: () => chat.clear(),
      exit,
    },
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
    toggleExpanded: () => chat.toggleExpanded(),
    exit,
    ...(options.now ? { now: options.now } : {}),
  });
  const steer = editor.editor.onKey;
  editor.editor.onKey = (data) => keys.handle(data) || (steer?.(data) ?? false);

  const frame = new FittedFrame();
  tui.addChild(frame);
  frame.addChild(chat.container);
  frame.addChild(queue);
  frame.addChild(notes);
  frame.addChild(editor.editor);
  frame.addChild(status);
  tui.setFocus(editor.editor);

  chat.display(`zot ${options.version} · /help for keys and commands`, theme.muted);
  if (session.messages.length > 0) chat.replay(session.messages);
  for (const warning of options.themes?.warnings ?? []) chat.display(warning, theme.warning);
  for (const warning of options.warnings ?? []) chat.display(`warning: ${warning}`, theme.warning);
  const provider = session.state().provider;
  if (session.providers().some((p) => p.provider === provider && !p.ready)) {
    chat.display(
      `no API key for ${provider} yet: /login stores one (or set it in the environment)`,
      theme.warning,
    );
  }
  // A key the provider refused can be replaced with /login; a missing key's error says so itself.
  const keyRefused = () => {
    const provider = session.state().provider;
    return session.providers().some((p) => p.provider === provider && p.ready);
  };
  let commandsRevision = session.state().commands_revision;
  const onEvent = (event: SessionEvent) => {
    // A command registered while the `/` list is open joins it at once.
    if (event.type === 'state' && event.commands_revision !== commandsRevision) {
      commandsRevision = event.commands_revision;
      editor.refreshSuggestions();
    }
    handle(event, { chat, queue, notes, status, theme, render, keyRefused });
  };
  const unsubscribe = session.subscribe(onEvent);
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
  status.update(session.state());
  // The dialog answers ask rules always, and every call no rule allows with --no-yolo.
  session.enableConfirmation(dialogs.confirmer(), { yolo: !options.confirm });
  const onStop = () => finish(1);
  options.stop?.addEventListener('abort', onStop, { once: true });
  if (options.stop?.aborted) onStop();

  tui.start();
  // After subscribing, so their errors show; the UI takes keys meanwhile.
  void session
    .startExtensions()
    .catch((error: unknown) =>
      chat.display(`extensions did not start: ${(error as Error).message}`, theme.error),
    )
    // Project extensions nobody trusted yet are asked about before the first prompt runs.
    .then(() => dialogs.trust(true))
    .then(() => {
      if (options.firstPrompt) editor.submit(options.firstPrompt, 'follow_up');
    });

  const code = await finished;
  options.stop?.removeEventListener('abort', onStop);
  unsubscribe();
  disconnectUi();
  await close(tui, frame, terminal, [queue, notes, editor.editor, status]);
  return code;
}

interface Views {
  chat: ChatView;
  queue: QueueArea;
  notes: Notes;
  status: StatusLine;
  theme: Theme;
  render(): void;
  /** Whether an `auth` error means the provider refused a key (not that there is none). */
  keyRefused(): boolean;
}

/** Routes one session event to the views that show it. Contract: never throws. */
function handle(event: SessionEvent, views: Views): void {
  const { chat, queue, notes, status, theme } = views;
  // Extension UI goes through the port (tuiUi); the chat gets everything else.
  if (!isExtensionUiEvent(event)) chat.handle(event);
  switch (event.type) {
    case 'state':
      status.update(event);
      break;
    case 'text_delta':
    case 'thinking_delta':
      status.stream(event.delta.length);
      break;
    case 'queue':
      queue.update(event);
      break;
    case 'user_message':
      notes.delete(CANCEL_NOTE_KEY);
      break;
    case 'error':
      if (event.kind === 'auth' && views.keyRefused()) {
        chat.display('hint: /login stores an API key for this provider', theme.muted);
      }
      break;
    case 'warning':
      chat.display(`warning: ${event.message}`, theme.warning);
      break;
    case 'ext_warning':
      // The trust dialog asks about an untrusted project extension instead.
      if (!event.untrusted) chat.display(`warning: ${event.message}`, theme.warning);
      break;
    case 'ext_error':
      chat.display(
        `${event.message}${event.log_path ? ` (log: ${event.log_path})` : ''}`,
        theme.error,
        undefined,
        EXTENSION_ERROR_TAG,
      );
      break;
    case 'ext_restarted':
      // Red like the crash it follows: the extension lost its state, and calls may have failed.
      chat.display(restartedText(event), theme.error, undefined, EXTENSION_ERROR_TAG);
      break;
  }
  views.render();
}

/**
 * Leaves the transcript on screen and nothing else: the editor, notes and status line are
 * removed and drawn away before the TUI stops (which puts the cursor on the line below).
 */
async function close(
  tui: TUI,
  frame: FittedFrame,
  terminal: WatchedTerminal,
  transient: Parameters<TUI['removeChild']>[0][],
): Promise<void> {
  for (const component of transient) frame.removeChild(component);
  const drawn = terminal.nextWrite(500);
  tui.requestRender();
  await drawn;
  await terminal.drainInput(100, 20).catch(() => undefined);
  tui.stop();
}
