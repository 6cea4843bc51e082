// The keys in force, as /help's "Keys:" block and /hotkeys' full list (every action, its keys,
// its id for the keybindings file, and where that file is).
import type { Keybinding, KeybindingsManager } from '@mariozechner/pi-tui';
import { twoColumns } from '../../util/columns.js';
import { APP_KEY_ACTIONS, type AppKeyAction } from './key-actions.js';
import { appKeybindings, KEY_ACTIONS } from './keybindings.js';

/** `ctrl+p / alt+m`, or `(unbound)` when the file took every key away. */
export function keysOf(action: Keybinding, keys: KeybindingsManager = appKeybindings()): string {
  const list = keys.getKeys(action);
  return list.length > 0 ? list.join(' / ') : '(unbound)';
}

/** /help's keys: how to type and send, then every app action. */
export function keysHelp(keys: KeybindingsManager = appKeybindings()): string {
  const rows: Array<[string, string]> = [
    [keysOf('tui.input.submit', keys), 'send what the editor shows (while a turn runs: queue it)'],
    [keysOf('tui.input.newLine', keys) + ', ctrl+j', 'new line'],
    ['up / down', 'prompt history'],
    ['/', 'commands: tab completes, or pick one with up / down and enter'],
    ['!cmd, !!cmd', 'run a shell command (!! keeps it out of the context)'],
  ];
  for (const action of Object.keys(APP_KEY_ACTIONS) as AppKeyAction[]) {
    rows.push([keysOf(action, keys), APP_KEY_ACTIONS[action].description]);
    if (action === 'app.interrupt') {
      rows.push([
        `${keysOf(action, keys)} twice`,
        'on an empty editor: rewind files or the conversation (/rewind)',
      ]);
    }
  }
  rows.push(['/hotkeys', 'every key with its id, and how to change them']);
  return ['Keys:', ...twoColumns(rows)].join('\n');
}

/** /hotkeys: every action with its keys and id; the file that changes them and its problems. */
export function hotkeysText(
  file: string | undefined,
  problems: readonly string[],
  keys: KeybindingsManager = appKeybindings(),
): string {
  const section = (title: string, prefix: string) => {
    const ids = Object.keys(KEY_ACTIONS).filter((id) => id.startsWith(prefix)) as Keybinding[];
    const rows = ids.map(
      (id) =>
        [keysOf(id, keys), `${keys.getDefinition(id).description ?? ''} · ${id}`] as [
          string,
          string,
        ],
    );
    return [title, ...twoColumns(rows)];
  };
  const lines = [
    ...section('zot:', 'app.'),
    '',
    ...section('Editor:', 'tui.editor.'),
    ...section('Input:', 'tui.input.'),
    '',
    ...section('Lists and dialogs:', 'tui.select.'),
  ];
  const where = file
    ? `Change them in ${file}: {"app.model.next": "alt+m", "app.exit": []} (a key, a list, or [] for none).`
    : 'No keybindings file in this run.';
  lines.push('', where);
  if (problems.length > 0)
    lines.push('', 'Problems in that file:', ...problems.map((p) => `  ${p}`));
  return lines.join('\n');
}
