// Where a slash command's results go on the TUI: blocks in the chat, text into the editor,
// panels, the status line, the clipboard, and the end of the run.
import type { InteractiveSession } from '../../contract/front-end.js';
import type { Theme } from '../../tui/theme.js';
import type { CommandSurface } from './commands.js';
import { EXTENSION_ERROR_TAG } from './event-router.js';
import type { PanelHost } from './panel-host.js';
import type { Screen } from './screen.js';
import type { StatusNote } from './status-note.js';
import { extensionHeading } from './ui-port.js';

export interface CommandSurfaceTargets {
  session: InteractiveSession;
  theme: Theme;
  screen: Screen;
  panels: PanelHost;
  statusNote: StatusNote;
  /** Puts text into the editor (which is built after the commands that write to it). */
  insert(text: string): void;
  exit(): void;
}

export function commandSurface(targets: CommandSurfaceTargets): CommandSurface {
  const { session, theme, screen, panels, statusNote } = targets;
  const { chat } = screen;
  return {
    display: (text, style, extension) =>
      chat.display(text, style, extension ? extensionHeading(theme, extension) : undefined),
    echo: (text) => chat.echo(text),
    insert: (text) => targets.insert(text),
    openPanel: (extension, panel) => panels.open(extension, panel),
    // A reload that left nothing failing takes the earlier failures out of the chat.
    extensionsReloaded: () => {
      if (session.state().extensions.failed.length === 0) chat.removeTagged(EXTENSION_ERROR_TAG);
    },
    status: (text) => statusNote.show(text),
    // OSC 52: most terminals (and tmux with set-clipboard) put this on the system clipboard.
    copy: (text) => {
      screen.terminal.write(`\x1b]52;c;${Buffer.from(text, 'utf8').toString('base64')}\x07`);
      return true;
    },
    reset: () => chat.clear(),
    exit: targets.exit,
  };
}
