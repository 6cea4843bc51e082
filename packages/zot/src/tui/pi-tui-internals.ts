// Every use zot makes of pi-tui's private methods, in one place. pi-tui's public API has no hook
// for what these do, so each use checks first that the methods still have the shape it was
// written against (pi-tui PI_TUI_VERIFIED); when they do not, nothing is patched, a note says
// so once, and zot runs on pi-tui's public behaviour (correct, only slower). The test of this
// module fails on an upgrade that changes them.
import { Editor, type AutocompleteItem, type TUI } from '@mariozechner/pi-tui';

/** The pi-tui version whose private methods this module was checked against. */
export const PI_TUI_VERIFIED = '0.73.1';

/** pi-tui's private per-frame steps: reset sequences appended to lines, Kitty image ids. */
export interface FrameSteps {
  applyLineResets(lines: string[]): string[];
  collectKittyImageIds(lines: string[]): Set<number>;
}

/** What the wrapper of the frame steps also reads: the frame on screen, as pi-tui keeps it. */
export interface FrameState {
  /** The lines of the last frame written (pi-tui's `previousLines`). */
  lastFrame(): readonly string[];
}

/** Why `tui`'s frame steps cannot be patched, or undefined when they can. */
export function frameStepsMismatch(tui: TUI): string | undefined {
  const internals = tui as unknown as Partial<FrameSteps> & {
    doRender?: unknown;
    previousLines?: unknown;
  };
  if (!Array.isArray(internals.previousLines)) return 'TUI.previousLines is gone';
  for (const name of ['applyLineResets', 'collectKittyImageIds'] as const) {
    const method = internals[name];
    if (typeof method !== 'function') return `TUI.${name} is gone`;
    if (method.length !== 1) return `TUI.${name} takes ${method.length} arguments, not 1`;
  }
  // Patched methods only help while doRender still calls them, once per frame, on the lines.
  const render = typeof internals.doRender === 'function' ? String(internals.doRender) : '';
  if (!/=\s*this\.applyLineResets\(\s*newLines\s*\)/.test(render))
    return 'TUI.doRender no longer passes the frame through applyLineResets';
  if (!/this\.collectKittyImageIds\(\s*newLines\s*\)/.test(render))
    return 'TUI.doRender no longer collects Kitty image ids from the frame';
  if (!/this\.previousLines\s*=\s*newLines/.test(render))
    return 'TUI.doRender no longer keeps the frame it wrote as previousLines';
  return undefined;
}

const warned = new Set<string>();

/** Says once per process that a patch was left out, and why. */
function warnOnce(what: string, reason: string, warn: (line: string) => void): void {
  if (warned.has(what)) return;
  warned.add(what);
  warn(
    `zot: pi-tui changed (${reason}; checked against ${PI_TUI_VERIFIED}): ${what}; ` +
      'report this so zot can follow the new pi-tui.\n',
  );
}

/**
 * Replaces `tui`'s frame steps with `wrap(original)` on that instance only. Returns false, with
 * `tui` unchanged and a note written once through `warn`, when pi-tui's shape has changed.
 */
export function wrapFrameSteps(
  tui: TUI,
  wrap: (original: FrameSteps, state: FrameState) => FrameSteps,
  warn: (line: string) => void = (line) => process.stderr.write(line),
): boolean {
  const mismatch = frameStepsMismatch(tui);
  if (mismatch !== undefined) {
    warnOnce('the frame memo is off (the UI works, only slower)', mismatch, warn);
    return false;
  }
  const target = tui as unknown as FrameSteps;
  const original: FrameSteps = {
    applyLineResets: target.applyLineResets.bind(tui),
    collectKittyImageIds: target.collectKittyImageIds.bind(tui),
  };
  const state: FrameState = {
    lastFrame: () => (tui as unknown as { previousLines: readonly string[] }).previousLines,
  };
  const wrapped = wrap(original, state);
  target.applyLineResets = wrapped.applyLineResets;
  target.collectKittyImageIds = wrapped.collectKittyImageIds;
  return true;
}

/** pi-tui Editor's private completion steps, which zot's / list (tui/command-autocomplete.ts) uses. */
export interface EditorCompletion {
  /** The list the editor shows now, if any. */
  list(): unknown;
  /** From now on the editor's lists are made by `make` (pi-tui makes a plain SelectList). */
  makeListsWith(make: (prefix: string, items: AutocompleteItem[]) => unknown): void;
  /** Closes the list. */
  cancel(): void;
  /** Asks the provider for the open list's suggestions again. */
  update(): void;
}

interface EditorInternals {
  autocompleteList?: unknown;
  createAutocompleteList?: (prefix: string, items: AutocompleteItem[]) => unknown;
  cancelAutocomplete?: () => void;
  updateAutocomplete?: () => void;
}

/** Why `editor`'s completion steps cannot be used, or undefined when they can. */
export function editorCompletionMismatch(editor: Editor): string | undefined {
  const internals = editor as unknown as EditorInternals;
  if (!('autocompleteList' in internals)) return 'Editor.autocompleteList is gone';
  const arities = { createAutocompleteList: 2, cancelAutocomplete: 0, updateAutocomplete: 0 };
  for (const [name, arity] of Object.entries(arities)) {
    const method = internals[name as keyof typeof arities];
    if (typeof method !== 'function') return `Editor.${name} is gone`;
    if (method.length !== arity) return `Editor.${name} takes ${method.length} arguments`;
  }
  // The list made must be the one the editor draws and takes the chosen item from.
  const source = String(Editor);
  if (!/this\.autocompleteList\s*=\s*this\.createAutocompleteList\(/.test(source))
    return 'Editor no longer keeps what createAutocompleteList makes as autocompleteList';
  if (!/this\.autocompleteList\.getSelectedItem\(\)/.test(source))
    return 'Editor no longer takes the chosen item from autocompleteList';
  return undefined;
}

/**
 * `editor`'s completion steps, or undefined (after a note written once through `warn`) when
 * pi-tui's shape has changed: pi-tui's own list then stays.
 */
export function editorCompletion(
  editor: Editor,
  warn: (line: string) => void = (line) => process.stderr.write(line),
): EditorCompletion | undefined {
  const mismatch = editor instanceof Editor ? editorCompletionMismatch(editor) : 'not an Editor';
  if (mismatch !== undefined) {
    warnOnce(
      "zot's / list is off (pi-tui's own list may complete a command on Enter)",
      mismatch,
      warn,
    );
    return undefined;
  }
  const internals = editor as unknown as Required<EditorInternals>;
  const { cancelAutocomplete, updateAutocomplete } = internals;
  return {
    list: () => internals.autocompleteList,
    makeListsWith: (make) => {
      internals.createAutocompleteList = make;
    },
    cancel: () => cancelAutocomplete.call(editor),
    update: () => updateAutocomplete.call(editor),
  };
}
