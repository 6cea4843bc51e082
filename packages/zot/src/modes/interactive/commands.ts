// Slash commands in the TUI: the runtime runs them; this shows their result, handles the ones
// only a terminal can (/exit, /quit, the dialogs, /copy, /hotkeys, /settings) and cancels a running turn
// before a command that changes the session.
import type { Theme } from '../../tui/theme.js';
import type { InteractiveSession, SlashResult } from '../../contract/front-end.js';
import { keysHelp } from './hotkeys.js';

/** What a command's result is shown with. */
export interface CommandSurface {
  /**
   * A block in the chat (not part of the transcript): `text` is plain (it is made safe for the
   * terminal), then styled; an extension's block is headed with its name.
   */
  display(text: string, style?: (text: string) => string, extension?: string): void;
  /** The command line as it was sent, shown in the chat above what it does. */
  echo(text: string): void;
  /** Puts text into the editor. */
  insert(text: string): void;
  /** A short-lived status line above the editor (it clears itself after a few seconds). */
  status?(text: string): void;
  /** Every extension was restarted (/reload-ext). */
  extensionsReloaded?(): void;
  /** Shows an extension's panel (a command answered with open_panel). */
  openPanel(
    extension: string,
    panel: { id: string; title?: string; lines?: string[]; footer?: string },
  ): void;
  /** Puts text on the clipboard; false when the terminal cannot be asked to. */
  copy?(text: string): boolean;
  /** Removes the transcript from the screen (after /clear and /new). */
  reset(): void;
  exit(): void;
}

export interface CommandsControllerOptions {
  session: InteractiveSession;
  theme: Theme;
  surface: CommandSurface;
  dialogs?: CommandDialogs;
  /** Commands the TUI runs itself (/copy, /hotkeys, /settings: own-commands.ts). */
  own?: Record<string, (args: string) => Promise<void>>;
}

/** The session tree's commands: dialogs, or their argument acted on (tree-dialog.ts). */
const BRANCH_COMMANDS = new Set(['tree', 'fork', 'clone', 'merge']);

/** Commands that change the session: a running turn is cancelled first. */
function changesSession(name: string, args: string): boolean {
  return (
    name === 'new' ||
    name === 'clear' ||
    name === 'sessions' ||
    BRANCH_COMMANDS.has(name) ||
    (name === 'model' && args !== '')
  );
}

/** The TUI's own dialogs (see dialogs.ts); each resolves when the dialog is done. */
export interface CommandDialogs {
  model(): Promise<void>;
  sessions(): Promise<void>;
  login(): Promise<void>;
  logout(): Promise<void>;
  skills(): Promise<void>;
  theme(): Promise<void>;
  trust(): Promise<void>;
  rewind(): Promise<void>;
  tree(args?: string): Promise<void>;
  fork(args?: string): Promise<void>;
  clone(): Promise<void>;
  merge(args?: string): Promise<void>;
}

/** Contract: `run` never rejects; every outcome is shown. */
export class CommandsController {
  constructor(private readonly options: CommandsControllerOptions) {}

  async run(text: string): Promise<void> {
    const { session, theme, surface } = this.options;
    const match = /^\/(\S+)(?:\s+([\s\S]*))?$/.exec(text.trim());
    const name = (match?.[1] ?? '').toLowerCase();
    const args = (match?.[2] ?? '').trim();
    if (name === 'exit' || name === 'quit') return surface.exit();
    surface.echo(text.trim());
    if (changesSession(name, args) && session.busy) {
      session.cancel();
      surface.display(`cancelled the running turn for /${name}`, theme.warning);
      await session.idle();
    }
    const own = this.options.own;
    if (own && Object.hasOwn(own, name)) {
      try {
        return await own[name]!(args);
      } catch (error) {
        return surface.display(`/${name} failed: ${(error as Error).message}`, theme.error);
      }
    }
    const dialogs = this.options.dialogs;
    const dialog =
      name === 'login' ||
      name === 'logout' ||
      name === 'sessions' ||
      name === 'skills' ||
      name === 'theme' ||
      name === 'trust' ||
      name === 'rewind' ||
      BRANCH_COMMANDS.has(name) ||
      (name === 'model' && args === '')
        ? dialogs?.[name as keyof CommandDialogs]
        : undefined;
    if (dialog) return (dialog as (args: string) => Promise<void>).call(dialogs, args);
    let result: SlashResult;
    try {
      result = await session.runCommand(text, 'tui', false);
    } catch (error) {
      result = { kind: 'error', message: (error as Error).message };
    }
    this.show(name, result);
  }

  private show(name: string, result: SlashResult): void {
    const { theme, surface } = this.options;
    switch (result.kind) {
      case 'display': {
        if (name === 'clear' || name === 'new') surface.reset();
        // /reload-ext reports in a status line that goes away by itself (its load errors stay
        // in the chat as red lines).
        if (name === 'reload-ext') surface.extensionsReloaded?.();
        if (name === 'reload-ext' && surface.status) return surface.status(result.text);
        if (name === 'help') surface.display(`${keysHelp()}\n\n${result.text}`);
        else surface.display(result.text, undefined, result.extension);
        // /session: the path also goes to the clipboard, through the terminal (OSC 52).
        if (name === 'session' && result.text.startsWith('/') && surface.copy?.(result.text)) {
          surface.display('(copied to the clipboard)', theme.muted);
        }
        return;
      }
      case 'insert':
        return surface.insert(result.text);
      case 'error':
        // One the session reported is in the chat already (its error event).
        if (result.reported) return;
        return surface.display(result.message, theme.error);
      case 'panel':
        return surface.openPanel(result.extension, result.panel);
      default:
        return;
    }
  }
}
