// Autocomplete for the prompt editor: slash commands on `/` at the start (built-ins first, then
// extension commands under a divider), `@file` mentions of files under the cwd, and path
// completion on Tab. The provider is pi-tui's AutocompleteProvider; pi-tui's Editor draws the
// list with its own SelectList, which has no divider, legend or groups, so `useSuggestionList`
// makes an editor draw `SuggestionList` instead, and holds it to one rule: the list completes
// only when asked (Tab, or Enter on an item the user moved to with the arrow keys). Enter alone
// sends what the editor shows, even when the end of the line and Enter arrive together, before
// the list has caught up with them (pi-tui would complete from the stale list).
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import {
  CombinedAutocompleteProvider,
  fuzzyFilter,
  fuzzyMatch,
  getKeybindings,
  matchesKey,
  truncateToWidth,
  visibleWidth,
  type AutocompleteItem,
  type AutocompleteProvider,
  type AutocompleteSuggestions,
  type Component,
  type Editor,
} from '@mariozechner/pi-tui';
import { cut, footerLine, legend, oneLine, pad } from './dialog-frame.js';
import { editorCompletion } from './pi-tui-internals.js';
import type { Theme } from './theme.js';

/** A command as the registry describes it; `source` is `builtin` or the extension's name. */
export interface CommandInfo {
  name: string;
  description?: string;
  argumentHint?: string;
  source: 'builtin' | string;
}

/** An item of the list; the extra fields are for `SuggestionList`, pi-tui ignores them. */
export interface Suggestion extends AutocompleteItem {
  kind: 'command' | 'file' | 'path';
  /** Commands: which group it is listed in. */
  group?: 'builtin' | 'extension';
  /** Commands: the extension that registered it. */
  source?: string;
  argumentHint?: string;
  /** The description without the argument hint. */
  summary?: string;
  /** Match quality for the typed text: lower is better (pi-tui's fuzzy score). */
  score?: number;
}

export interface CommandAutocompleteOptions {
  /** The commands now; called on every keystroke, so commands registered later show up. */
  commands: () => readonly CommandInfo[];
  /** Where `@` mentions and relative paths are looked up. */
  cwd: string;
  /** Entries walked under the cwd for `@` mentions (default 20,000). */
  maxFiles?: number;
  /** `@` suggestions shown (default 50). */
  maxMentions?: number;
}

/** Directories never walked for `@` mentions. */
const SKIPPED_DIRECTORIES = new Set(['.git', 'node_modules']);

/**
 * Contract: `getSuggestions` never throws (an unreadable directory gives no suggestions) and
 * returns null when there is nothing to suggest; an aborted request stops walking at once.
 */
export class CommandAutocompleteProvider implements AutocompleteProvider {
  // pi-tui's provider does path completion (readdir, no external tools) and applies every kind
  // of completion; it is given no commands (those are ours) and no fd (mentions are ours too).
  private readonly paths: CombinedAutocompleteProvider;
  private files: { at: number; entries: Promise<FileEntry[]> } | undefined;

  constructor(private readonly options: CommandAutocompleteOptions) {
    this.paths = new CombinedAutocompleteProvider([], options.cwd, null);
  }

  async getSuggestions(
    lines: string[],
    cursorLine: number,
    cursorCol: number,
    options: { signal: AbortSignal; force?: boolean },
  ): Promise<AutocompleteSuggestions | null> {
    const before = (lines[cursorLine] ?? '').slice(0, cursorCol);
    const mention = mentionPrefix(before);
    if (mention !== undefined) return this.mentions(mention, options.signal);
    if (!options.force && cursorLine === 0 && before.trimStart().startsWith('/')) {
      const typed = before.trimStart();
      if (typed.includes(' ')) return null;
      const items = commandSuggestions(this.options.commands(), typed.slice(1));
      return items.length > 0 ? { items, prefix: before } : null;
    }
    try {
      const found = await this.paths.getSuggestions(lines, cursorLine, cursorCol, options);
      if (!found) return null;
      return { ...found, items: found.items.map((item) => ({ ...item, kind: 'path' as const })) };
    } catch {
      return null;
    }
  }

  applyCompletion(
    lines: string[],
    cursorLine: number,
    cursorCol: number,
    item: AutocompleteItem,
    prefix: string,
  ): { lines: string[]; cursorLine: number; cursorCol: number } {
    return this.paths.applyCompletion(lines, cursorLine, cursorCol, item, prefix);
  }

  shouldTriggerFileCompletion(lines: string[], cursorLine: number, cursorCol: number): boolean {
    return this.paths.shouldTriggerFileCompletion(lines, cursorLine, cursorCol);
  }

  private async mentions(
    prefix: string,
    signal: AbortSignal,
  ): Promise<AutocompleteSuggestions | null> {
    const quoted = prefix.startsWith('@"');
    const query = prefix.slice(quoted ? 2 : 1);
    // One walk serves the keystrokes of one mention; a new walk after a few seconds sees new files.
    const now = performance.now();
    if (!this.files || now - this.files.at > 5000) {
      this.files = { at: now, entries: walk(this.options.cwd, this.options.maxFiles ?? 20_000) };
    }
    const entries = await this.files.entries;
    if (signal.aborted) return null;
    const matched = fuzzyFilter(entries, query, (entry) => entry.path).slice(
      0,
      this.options.maxMentions ?? 50,
    );
    if (matched.length === 0) return null;
    const items: Suggestion[] = matched.map((entry) => {
      const path = entry.directory ? `${entry.path}/` : entry.path;
      const value = quoted || path.includes(' ') ? `@"${path}"` : `@${path}`;
      return { value, label: path, kind: 'file' };
    });
    return { items, prefix };
  }
}

/**
 * The command items for `query` (the text after `/`): built-ins, then extension commands, each
 * group sorted by name when nothing is typed and by match quality (then name) otherwise.
 */
export function commandSuggestions(commands: readonly CommandInfo[], query: string): Suggestion[] {
  const scored: Suggestion[] = [];
  for (const command of commands) {
    const name = command.name.replace(/^\//, '');
    const match = fuzzyMatch(query, name);
    if (!match.matches) continue;
    const hint = command.argumentHint ? oneLine(command.argumentHint) : undefined;
    const summary = command.description ? oneLine(command.description) : undefined;
    const builtin = command.source === 'builtin';
    scored.push({
      value: name,
      label: `/${name}`,
      description: hint && summary ? `${hint} — ${summary}` : (hint ?? summary),
      kind: 'command',
      group: builtin ? 'builtin' : 'extension',
      ...(builtin ? {} : { source: command.source }),
      ...(hint ? { argumentHint: hint } : {}),
      ...(summary ? { summary } : {}),
      score: query === '' ? 0 : match.score,
    });
  }
  const rank = (item: Suggestion) => (item.group === 'builtin' ? 0 : 1);
  return scored.sort(
    (a, b) => rank(a) - rank(b) || a.score! - b.score! || a.value.localeCompare(b.value),
  );
}

/** The `@…` token the cursor is in (`@src/ma`, `@"my fi`), if any. */
function mentionPrefix(before: string): string | undefined {
  const quoted = /(?:^|[\s=])(@"[^"]*)$/.exec(before);
  if (quoted) return quoted[1];
  const plain = /(?:^|[\s=])(@[^\s"]*)$/.exec(before);
  return plain?.[1];
}

interface FileEntry {
  /** Relative to the cwd, with `/` separators. */
  path: string;
  directory: boolean;
}

/** Files and directories under `root`, breadth first (shallow ones first), at most `max`. */
async function walk(root: string, max: number): Promise<FileEntry[]> {
  const out: FileEntry[] = [];
  let level = [''];
  while (level.length > 0 && out.length < max) {
    const next: string[] = [];
    for (const dir of level) {
      let names;
      try {
        names = await readdir(join(root, dir), { withFileTypes: true });
      } catch {
        continue;
      }
      names.sort((a, b) => a.name.localeCompare(b.name));
      for (const entry of names) {
        if (out.length >= max) break;
        const path = dir === '' ? entry.name : `${dir}/${entry.name}`;
        const directory = entry.isDirectory();
        if (directory && SKIPPED_DIRECTORIES.has(entry.name)) continue;
        out.push({ path, directory });
        if (directory) next.push(path);
      }
    }
    level = next;
  }
  return out;
}

/**
 * The suggestion list drawn under the editor: commands as `/name <hint>  description`, extension
 * commands under a divider with their extension's name, files and paths as their path; a key
 * legend, and a position counter such as `3/41` when the list scrolls. Highlights the best match.
 * `chosen` says whether the user moved the highlight (the arrow keys): only then does Enter take
 * the highlighted item. Contract: no line exceeds the width; the selected row is marked with `›`
 * with or without colour.
 */
export class SuggestionList implements Component {
  private selected = 0;
  private top = 0;
  private moved = false;

  constructor(
    private readonly items: readonly Suggestion[],
    private readonly maxVisible: number,
    private readonly theme: Theme,
    /** Where the editor was (text and cursor) when the list was made for it. */
    readonly builtFor?: string,
  ) {
    let best = 0;
    items.forEach((item, i) => {
      if ((item.score ?? 0) < (items[best]!.score ?? 0)) best = i;
    });
    this.select(best);
  }

  /** The user moved the highlight to the item it is on. */
  get chosen(): boolean {
    return this.moved;
  }

  /** The item Tab (or Enter, once chosen) would insert. */
  getSelectedItem(): Suggestion | null {
    return this.items[this.selected] ?? null;
  }

  /** Highlights `index` (pi-tui's best match for the typed text): not a choice of the user's. */
  setSelectedIndex(index: number): void {
    this.moved = false;
    this.select(index);
  }

  /** Highlights the item with `value` as the user's choice (kept across a refresh); false if none. */
  choose(value: string): boolean {
    const index = this.items.findIndex((item) => item.value === value);
    if (index === -1) return false;
    this.select(index);
    this.moved = true;
    return true;
  }

  private select(index: number): void {
    this.selected = Math.max(0, Math.min(index, this.items.length - 1));
    const rows = Math.max(1, this.maxVisible);
    if (this.selected < this.top) this.top = this.selected;
    if (this.selected >= this.top + rows) this.top = this.selected - rows + 1;
  }

  handleInput(data: string): void {
    const last = this.items.length - 1;
    let to: number | undefined;
    if (matchesKey(data, 'up')) to = this.selected <= 0 ? last : this.selected - 1;
    else if (matchesKey(data, 'down')) to = this.selected >= last ? 0 : this.selected + 1;
    else if (matchesKey(data, 'pageUp')) to = this.selected - this.maxVisible;
    else if (matchesKey(data, 'pageDown')) to = this.selected + this.maxVisible;
    if (to === undefined) return;
    this.select(to);
    this.moved = true;
  }

  invalidate(): void {}

  render(width: number): string[] {
    const { theme } = this;
    if (width <= 0 || this.items.length === 0) return [];
    const end = Math.min(this.items.length, this.top + Math.max(1, this.maxVisible));
    const nameWidth = this.nameColumn(width);
    const firstExtension = this.items.findIndex((item) => item.group === 'extension');
    const lines: string[] = [];
    for (let i = this.top; i < end; i++) {
      const item = this.items[i]!;
      if (item.group === 'extension' && (i === firstExtension || i === this.top)) {
        const label = ' extensions ';
        lines.push(
          theme.border(
            cut(`──${label}${'─'.repeat(Math.max(0, width - label.length - 2))}`, width),
          ),
        );
      }
      lines.push(this.row(item, i === this.selected, width, nameWidth));
    }
    const commands = this.items.some((item) => item.kind === 'command');
    // Enter sends the text as typed until the user picks an item with the arrows.
    const enter = this.moved ? (commands ? 'run' : 'insert') : 'send';
    const keys = legend([
      ['↑↓', 'move'],
      ['tab', commands ? 'complete' : 'insert'],
      ['enter', enter],
      ['esc', 'close'],
    ]);
    const counter =
      this.items.length > this.maxVisible ? `${this.selected + 1}/${this.items.length}` : '';
    lines.push(footerLine(theme, `  ${keys}`, counter, width));
    // The `› ` marker alone is wider than a terminal of one column.
    return width >= 3 ? lines : lines.map((line) => truncateToWidth(line, width, ''));
  }

  /** The width of the name (and argument hint) column. */
  private nameColumn(width: number): number {
    const widest = this.items.reduce((w, item) => Math.max(w, visibleWidth(this.name(item))), 0);
    return Math.min(widest, Math.max(12, Math.floor((width - 2) * 0.4)));
  }

  private name(item: Suggestion): string {
    return item.argumentHint ? `${item.label} ${item.argumentHint}` : item.label;
  }

  private row(item: Suggestion, isSelected: boolean, width: number, nameWidth: number): string {
    const { theme } = this;
    const marker = isSelected ? theme.selected('› ') : '  ';
    const avail = width - 2;
    const showDescription = item.kind === 'command' && avail - nameWidth - 2 >= 10;
    const labelRoom = showDescription ? nameWidth : avail;
    const label = cut(oneLine(item.label), labelRoom);
    let line = marker + (isSelected ? theme.bold(theme.selected(label)) : theme.text(label));
    const hintRoom = labelRoom - visibleWidth(label) - 1;
    if (item.argumentHint && hintRoom >= 3)
      line += ' ' + theme.muted(cut(item.argumentHint, hintRoom));
    if (!showDescription) return line;
    const source = item.source ? ` (${oneLine(item.source)})` : '';
    const descRoom = avail - nameWidth - 2;
    const summary = cut(item.summary ?? '', Math.max(0, descRoom - visibleWidth(source)));
    const tail =
      theme.muted(summary) + theme.extensionName(cut(source, descRoom - visibleWidth(summary)));
    return pad(line, 2 + nameWidth) + '  ' + tail;
  }
}

/** Where the editor is: its text and cursor (a list made elsewhere is stale). */
function editorPlace(editor: Editor): string {
  const { line, col } = editor.getCursor();
  return `${line}:${col}:${editor.getText()}`;
}

/**
 * Makes `editor` draw its suggestions with `SuggestionList` (divider, legend, counter) and
 * complete only when asked: Tab completes the highlighted item and Enter takes it only once the
 * user moved to it with the arrow keys, and neither ever uses a list made for other text (when
 * keys arrive faster than suggestions, the list lags behind: Enter then sends the text, Tab
 * asks for suggestions afresh). Otherwise Enter closes the list and sends what the editor
 * holds. The hooks are pi-tui's private methods (tui/pi-tui-internals.ts): returns false,
 * leaving the editor as it was after a note through `warn`, when pi-tui has changed them.
 * Contract: call once, before the editor is used.
 */
export function useSuggestionList(
  editor: Editor,
  theme: Theme,
  warn?: (line: string) => void,
): boolean {
  const completion = editorCompletion(editor, warn);
  if (!completion) return false;
  completion.makeListsWith((_prefix, items) => {
    const place = editorPlace(editor);
    const list = new SuggestionList(
      items as Suggestion[],
      editor.getAutocompleteMaxVisible(),
      theme,
      place,
    );
    // A refresh (new commands) keeps the user's choice, if it is still there.
    const previous = completion.list();
    if (previous instanceof SuggestionList && previous.chosen && previous.builtFor === place) {
      const item = previous.getSelectedItem();
      if (item) list.choose(item.value);
    }
    return list;
  });
  const handleInput = editor.handleInput.bind(editor);
  editor.handleInput = (data: string) => {
    const list = completion.list();
    if (editor.isShowingAutocomplete() && list instanceof SuggestionList) {
      const keys = getKeybindings();
      const enter = keys.matches(data, 'tui.select.confirm');
      const tab = !enter && keys.matches(data, 'tui.input.tab');
      const current = list.builtFor === editorPlace(editor);
      // pi-tui then submits the text as it is (Enter) or looks suggestions up afresh (Tab).
      if ((enter && !(current && list.chosen)) || (tab && !current)) {
        completion.cancel();
      }
    }
    handleInput(data);
  };
  return true;
}

/**
 * Asks `editor` for its open list's suggestions again (the commands changed while it was
 * open); nothing when no list is open. Contract: never throws.
 */
export function refreshSuggestions(editor: Editor): void {
  if (!editor.isShowingAutocomplete()) return;
  const completion = editorCompletion(editor);
  if (!completion) return;
  try {
    completion.update();
  } catch {
    // The list stays as it was until the next key.
  }
}
