// The TUI's own key actions and their default keys. The keybindings file (keybindings.ts) may
// rebind them, and pi-tui's editor and list actions (`tui.*`) beside them; /hotkeys lists what
// is in force. Ids follow pi's style (`app.…`), so a pi user's habits carry over.
import type { KeybindingDefinitions } from '@mariozechner/pi-tui';

export const APP_KEY_ACTIONS = {
  'app.interrupt': { defaultKeys: 'escape', description: 'cancel the running turn and the queue' },
  'app.clear': { defaultKeys: 'ctrl+c', description: 'clear the editor; twice to exit' },
  'app.exit': { defaultKeys: 'ctrl+d', description: 'exit (when the editor is empty)' },
  'app.suspend': { defaultKeys: 'ctrl+z', description: 'suspend zot (fg brings it back)' },
  'app.message.steer': {
    defaultKeys: 'alt+enter',
    description: 'steer: add to the running turn at its next step',
  },
  'app.queue.takeBack': {
    defaultKeys: 'alt+up',
    description: 'take the last queued message back to edit it',
  },
  'app.tools.expand': {
    defaultKeys: 'ctrl+o',
    description: 'expand or collapse tool results and thinking',
  },
  'app.thinking.toggle': { defaultKeys: 'ctrl+t', description: 'show or hide thinking blocks' },
  'app.thinking.cycle': {
    defaultKeys: 'shift+tab',
    description: 'thinking level: off, low, medium, high',
  },
  'app.model.next': { defaultKeys: 'ctrl+p', description: 'next model (of the ready providers)' },
  'app.model.previous': { defaultKeys: 'shift+ctrl+p', description: 'previous model' },
  'app.editor.external': {
    defaultKeys: 'ctrl+g',
    description: 'edit the prompt in $VISUAL or $EDITOR',
  },
} as const satisfies KeybindingDefinitions;

export type AppKeyAction = keyof typeof APP_KEY_ACTIONS;

declare module '@mariozechner/pi-tui' {
  // pi-tui's registry is open to declaration merging: zot's actions are checked like its own.
  interface Keybindings {
    'app.interrupt': true;
    'app.clear': true;
    'app.exit': true;
    'app.suspend': true;
    'app.message.steer': true;
    'app.queue.takeBack': true;
    'app.tools.expand': true;
    'app.thinking.toggle': true;
    'app.thinking.cycle': true;
    'app.model.next': true;
    'app.model.previous': true;
    'app.editor.external': true;
  }
}
