// The keybindings file (keybindings.json in zot's home): a JSON object from action ids to a key
// or a list of keys (an empty list unbinds). Each entry is checked on its own: a bad one is
// named (file, action, problem) and skipped, the rest apply, and start-up always goes on.
// The result is installed as pi-tui's keybindings, so the editor's own actions follow it too.
import {
  KeybindingsManager,
  setKeybindings,
  TUI_KEYBINDINGS,
  type KeybindingsConfig,
  type KeyId,
} from '@mariozechner/pi-tui';
import { readRegularText } from '../../util/regular-file.js';
import { APP_KEY_ACTIONS } from './key-actions.js';

/** Every action the file may bind: zot's first, then pi-tui's editor and lists. */
export const KEY_ACTIONS = { ...APP_KEY_ACTIONS, ...TUI_KEYBINDINGS };

/** A list of keys is a few hundred bytes; anything near this is not one. */
export const MAX_KEYBINDINGS_BYTES = 64 * 1024;
const MAX_KEYS_PER_ACTION = 8;

const MODIFIERS = new Set(['ctrl', 'shift', 'alt', 'super']);
const NAMED_KEYS = new Set([
  'escape',
  'esc',
  'enter',
  'return',
  'tab',
  'space',
  'backspace',
  'delete',
  'insert',
  'clear',
  'home',
  'end',
  'pageup',
  'pagedown',
  'up',
  'down',
  'left',
  'right',
  ...Array.from({ length: 12 }, (_, i) => `f${i + 1}`),
]);
const SYMBOLS = new Set([..."`-=[]\\;',./!@#$%^&*()_|~{}:<>?"]);

/** Why `key` is not a key pi-tui can match, or undefined when it is one. */
export function keyProblem(key: string): string | undefined {
  if (key === '+') return undefined;
  const parts = key.toLowerCase().split('+');
  const base = parts.pop()!;
  const seen = new Set<string>();
  for (const modifier of parts) {
    if (!MODIFIERS.has(modifier))
      return `"${modifier}" is not a modifier (ctrl, shift, alt, super)`;
    if (seen.has(modifier)) return `"${modifier}" is given twice`;
    seen.add(modifier);
  }
  if (/^[a-z0-9]$/.test(base) || SYMBOLS.has(base) || NAMED_KEYS.has(base)) return undefined;
  return `"${base}" is not a key (a letter, digit, symbol, or a name such as enter, tab, up, f5)`;
}

export interface KeybindingsFile {
  /** The entries that passed, ready for the manager. */
  bindings: KeybindingsConfig;
  /** One line per problem, each naming the file (and the action when it is one entry's). */
  problems: string[];
}

const shown = (value: unknown) => JSON.stringify(value)?.slice(0, 40) ?? String(value);

/** Checks the file's text entry by entry. Contract: never throws. */
export function parseKeybindings(text: string, file: string): KeybindingsFile {
  const bindings: KeybindingsConfig = {};
  const problems: string[] = [];
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    const why = (error as Error).message;
    return { bindings, problems: [`${file}: not valid JSON (${why}); using the default keys`] };
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    return {
      bindings,
      problems: [`${file}: must be a JSON object of action ids to keys; using the default keys`],
    };
  }
  for (const [action, value] of Object.entries(raw as Record<string, unknown>)) {
    const where = `${file}: ${shown(action)}`;
    if (!Object.hasOwn(KEY_ACTIONS, action)) {
      problems.push(`${where} is not an action (/hotkeys lists them); skipped`);
      continue;
    }
    const keys = typeof value === 'string' ? [value] : value;
    if (!Array.isArray(keys) || keys.some((key) => typeof key !== 'string')) {
      problems.push(`${where}: ${shown(value)} is not a key or a list of keys; skipped`);
      continue;
    }
    if (keys.length > MAX_KEYS_PER_ACTION) {
      problems.push(`${where}: ${keys.length} keys, at most ${MAX_KEYS_PER_ACTION}; skipped`);
      continue;
    }
    const bad = (keys as string[])
      .map((key) => ({ key, problem: keyProblem(key) }))
      .find((entry) => entry.problem);
    if (bad) {
      problems.push(`${where}: ${shown(bad.key)}: ${bad.problem}; skipped`);
      continue;
    }
    bindings[action] = keys as KeyId[];
  }
  return { bindings, problems };
}

/**
 * Reads `file` (absent: no problems, the defaults). Contract: never throws; an unreadable or
 * oversized file is a problem naming it, and the defaults apply.
 */
export function readKeybindings(file: string | undefined): KeybindingsFile {
  if (!file) return { bindings: {}, problems: [] };
  const read = readRegularText(file, { limit: MAX_KEYBINDINGS_BYTES + 1, over: 'cut' });
  if (!read.ok) {
    if (read.missing) return { bindings: {}, problems: [] };
    return { bindings: {}, problems: [`${read.error}; using the default keys`] };
  }
  if (Buffer.byteLength(read.text) > MAX_KEYBINDINGS_BYTES) {
    return {
      bindings: {},
      problems: [`${file}: over ${MAX_KEYBINDINGS_BYTES / 1024} KiB; using the default keys`],
    };
  }
  return parseKeybindings(read.text, file);
}

let installed: KeybindingsManager | undefined;

/** The keybindings in force (the defaults until a file is installed). */
export function appKeybindings(): KeybindingsManager {
  if (!installed) {
    installed = new KeybindingsManager(KEY_ACTIONS);
    setKeybindings(installed);
  }
  return installed;
}

export interface InstalledKeybindings {
  manager: KeybindingsManager;
  /** The file's problems, then keys that two actions now claim. */
  problems: string[];
  file: string | undefined;
}

/**
 * Builds the keybindings from `file` and installs them for pi-tui's widgets; the app's keys
 * controller asks the same manager. Contract: never throws.
 */
export function installKeybindings(file: string | undefined): InstalledKeybindings {
  const read = readKeybindings(file);
  const manager = new KeybindingsManager(KEY_ACTIONS, read.bindings);
  setKeybindings(manager);
  installed = manager;
  const problems = [...read.problems, ...appClashes(manager, read.bindings, file)];
  return { manager, problems, file };
}

/**
 * A key the file gives to an app action that another app action also has: the first in
 * /hotkeys order wins, which may not be what was meant, so it is said.
 */
function appClashes(
  manager: KeybindingsManager,
  user: KeybindingsConfig,
  file: string | undefined,
): string[] {
  const owners = new Map<string, string[]>();
  for (const action of Object.keys(APP_KEY_ACTIONS) as Array<keyof typeof APP_KEY_ACTIONS>) {
    for (const key of manager.getKeys(action)) {
      const id = key.toLowerCase();
      owners.set(id, [...(owners.get(id) ?? []), action]);
    }
  }
  const problems: string[] = [];
  for (const [key, actions] of owners) {
    if (actions.length < 2 || !actions.some((action) => user[action] !== undefined)) continue;
    problems.push(
      `${file ?? 'keybindings'}: ${key} is bound to ${actions.join(' and ')}; ${actions[0]} takes it`,
    );
  }
  return problems;
}
