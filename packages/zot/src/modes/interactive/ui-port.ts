// The TUI's extension-UI port (ARCHITECTURE 17): notes above the editor, displays in the chat,
// inserts into the editor, submits as prompts, panels as overlays (panel-host.ts).
import type { Theme } from '../../tui/theme.js';
import { terminalSafe } from '../../util/terminal-text.js';
import type { Notes } from './notes.js';
import type { PanelHost } from './panel-host.js';
import type { ExtensionUi } from '../../contract/extension-ui.js';

export interface TuiUiTargets {
  theme: Theme;
  notes: Notes;
  /** `text` is plain (made safe for the terminal), shown under the `heading` (styled). */
  display(text: string, heading: string): void;
  insert(text: string): void;
  submit(text: string): void;
  panels: PanelHost;
}

const noteKey = (extension: string) => `ext:${extension}`;

/** `[name]` in the extension colour: what heads an extension's notes and blocks. */
export function extensionHeading(theme: Theme, extension: string): string {
  return theme.extensionName(`[${terminalSafe(extension)}]`);
}

/** Contract: never throws; extension text is made inert before it reaches the terminal. */
export function tuiUi(targets: TuiUiTargets): ExtensionUi {
  const { theme, notes } = targets;
  const name = (extension: string) => extensionHeading(theme, extension);
  const level = {
    info: theme.info,
    success: theme.success,
    warn: theme.warning,
    error: theme.error,
  };
  return {
    notify: (event) =>
      notes.set(
        noteKey(event.extension),
        `${name(event.extension)} ${(level[event.level as keyof typeof level] ?? theme.info)(terminalSafe(event.message))}`,
      ),
    clearNotes: (event) => notes.delete(noteKey(event.extension)),
    display: (event) => targets.display(event.text, name(event.extension)),
    insert: (event) => targets.insert(event.text),
    submit: (event) => targets.submit(event.text),
    openPanel: (event) => targets.panels.open(event.extension, event.panel),
    renderPanel: (event) => {
      const { extension, panel_id, title, lines, footer } = event;
      targets.panels.render(extension, panel_id, {
        ...(title !== undefined ? { title } : {}),
        ...(lines !== undefined ? { lines } : {}),
        ...(footer !== undefined ? { footer } : {}),
      });
    },
    closePanel: (event) => targets.panels.closed(event.extension, event.panel_id),
  };
}
