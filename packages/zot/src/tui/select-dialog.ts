// A searchable list in a dialog: type to filter (fuzzy, case-insensitive), arrows and pages to
// move, Enter picks, Esc cancels, optional extra keys act on the highlighted item (ctrl+r to
// rename). Used for /model, /sessions, /login's provider pick and /theme. Plain items in,
// callbacks out.
import {
  fuzzyFilter,
  matchesKey,
  visibleWidth,
  wrapTextWithAnsi,
  type Component,
  type Focusable,
  type KeyId,
  type OverlayOptions,
  type TUI,
} from '@mariozechner/pi-tui';
import { SafeInput } from './safe-input.js';
import {
  cut,
  footerLines,
  innerWidth,
  listRowsFor,
  oneLine,
  pad,
  renderDialogFrame,
} from './dialog-frame.js';
import { isCancelKey, OneAnswer, showDialog } from './dialog-overlay.js';
import type { Theme } from './theme.js';

export interface SelectDialogItem<T = string> {
  value: T;
  /** The first column (a model id, a session's age). */
  label: string;
  /** The middle column (a provider, a session's first prompt). */
  description?: string;
  /** The right column, dimmed (a context window, `12 msgs · $0.31`). */
  detail?: string;
  /** Marked with `✓`: the model in use, the open session. */
  current?: boolean;
  /** What typing matches; label, description and detail by default. */
  searchText?: string;
}

/**
 * An extra key that acts on the highlighted item without closing the dialog; with `always`, it
 * acts on the list itself (a filter) and runs even when nothing is highlighted.
 */
export type SelectDialogAction<T = string> = {
  key: KeyId;
  /** Shown in the key legend, e.g. `rename`. */
  name: string;
} & (
  | { always?: false; run(item: SelectDialogItem<T>): void }
  | { always: true; run(item: SelectDialogItem<T> | undefined): void }
);

export interface SelectDialogOptions<T = string> {
  title: string;
  /** Untrusted text above the search line (an extension's question): one safe paragraph, wrapped to MESSAGE_ROWS rows, cut with `…` past them. */
  message?: string;
  items: SelectDialogItem<T>[];
  theme: Theme;
  /** List rows before it scrolls (default 10). */
  maxVisible?: number;
  /** Shown when nothing matches (default `no matches`). */
  emptyText?: string;
  actions?: SelectDialogAction<T>[];
  /** The highlighted item changed (a live preview, e.g. of a theme). */
  onHighlight?(item: SelectDialogItem<T> | undefined): void;
  /** Enter on an item. Called at most once, and never after `onCancel`. */
  onSelect(item: SelectDialogItem<T>): void;
  /** Esc or ctrl+c. Called at most once, and never after `onSelect`. */
  onCancel(): void;
}

const CHECK = ' ✓';
/** Rows a message may take above the list. */
const MESSAGE_ROWS = 6;
const GAP = 2;

/**
 * The searchable list dialog. Contract: never throws on input; renders within any width; the
 * item that is `current` is highlighted first; the search keeps the items' order when empty
 * and ranks by match quality otherwise.
 */
export class SelectDialog<T = string> implements Component, Focusable {
  private readonly input = new SafeInput();
  private items: SelectDialogItem<T>[];
  private filtered: SelectDialogItem<T>[];
  private selected = 0;
  private top = 0;
  private readonly answer = new OneAnswer();
  private _focused = false;
  private title: string;

  constructor(private readonly options: SelectDialogOptions<T>) {
    this.title = options.title;
    this.items = options.items;
    this.filtered = options.items;
    this.select(
      Math.max(
        0,
        this.items.findIndex((item) => item.current),
      ),
    );
  }

  get focused(): boolean {
    return this._focused;
  }
  set focused(value: boolean) {
    this._focused = value;
    this.input.focused = value;
  }

  /** Replaces the items (after a rename), keeping the search and the highlighted value. */
  setItems(items: SelectDialogItem<T>[]): void {
    const value = this.highlighted()?.value;
    this.items = items;
    this.refilter();
    const index = this.filtered.findIndex((item) => item.value === value);
    if (index >= 0) this.select(index);
  }

  /** A new title (a filter that changed what the list holds). */
  setTitle(title: string): void {
    this.title = title;
  }

  /** The item Enter would pick, if any. */
  highlighted(): SelectDialogItem<T> | undefined {
    return this.filtered[this.selected];
  }

  /** Closes as Esc does (for a caller that must end the dialog itself). */
  cancel(): void {
    this.answer.give(() => this.options.onCancel());
  }

  handleInput(data: string): void {
    if (this.answer.done) return;
    const page = this.maxVisible();
    const last = this.filtered.length - 1;
    if (isCancelKey(data)) return this.cancel();
    if (matchesKey(data, 'enter')) {
      const item = this.highlighted();
      if (item) this.answer.give(() => this.options.onSelect(item));
      return;
    }
    if (matchesKey(data, 'up')) return this.select(this.selected <= 0 ? last : this.selected - 1);
    if (matchesKey(data, 'down')) return this.select(this.selected >= last ? 0 : this.selected + 1);
    if (matchesKey(data, 'pageUp')) return this.select(Math.max(0, this.selected - page));
    if (matchesKey(data, 'pageDown')) return this.select(Math.min(last, this.selected + page));
    for (const action of this.options.actions ?? []) {
      if (matchesKey(data, action.key)) {
        const item = this.highlighted();
        if (action.always) action.run(item);
        else if (item) action.run(item);
        return;
      }
    }
    const before = this.input.getValue();
    this.input.handleInput(data);
    if (this.input.getValue() !== before) this.refilter();
  }

  invalidate(): void {
    this.input.invalidate();
  }

  render(width: number): string[] {
    const { theme } = this.options;
    const inner = innerWidth(width);
    const rows = this.maxVisible();
    const body = [...this.messageRows(inner), this.searchLine(inner)];
    const top = body.length - 1;
    if (this.filtered.length === 0) {
      body.push(theme.muted(cut(oneLine(this.options.emptyText ?? 'no matches'), inner)));
    } else {
      const columns = this.columns(inner);
      for (let i = this.top; i < Math.min(this.filtered.length, this.top + rows); i++) {
        body.push(this.row(this.filtered[i]!, i === this.selected, columns));
      }
    }
    // Keep the height steady while filtering, so the dialog does not jump.
    while (body.length < top + 1 + Math.min(rows, this.items.length)) body.push('');
    const counter =
      this.filtered.length > rows ? `${this.selected + 1}/${this.filtered.length}` : '';
    const keys: [string, string][] = [
      ['↑↓', 'move'],
      ['enter', 'select'],
      ...(this.options.actions ?? []).map((a): [string, string] => [a.key, a.name]),
      ['esc', 'cancel'],
    ];
    const footer = footerLines(theme, keys, counter, inner);
    return renderDialogFrame({ title: this.title, body, footer }, width, theme);
  }

  /** The message (when given) wrapped to at most MESSAGE_ROWS rows, then a blank row. */
  private messageRows(inner: number): string[] {
    if (this.options.message === undefined) return [];
    const rows = wrapTextWithAnsi(oneLine(this.options.message), Math.max(1, inner));
    const shown = rows.slice(0, MESSAGE_ROWS).map((row) => cut(row, inner));
    if (rows.length > MESSAGE_ROWS)
      shown[MESSAGE_ROWS - 1] = cut(`${shown[MESSAGE_ROWS - 1]}…`, inner).replace(/…?…$/, '…');
    return [...shown.map((row) => this.options.theme.text(row)), ''];
  }

  /** The search input; while empty, a hint that typing searches. */
  private searchLine(inner: number): string {
    if (this.input.getValue() !== '' || inner < 20) return this.input.render(inner)[0] ?? '';
    const hint = 'type to search';
    return (this.input.render(3)[0] ?? '') + ' ' + this.options.theme.dim(cut(hint, inner - 4));
  }

  private maxVisible(): number {
    return Math.max(1, this.options.maxVisible ?? 10);
  }

  private refilter(): void {
    const query = this.input.getValue();
    const before = this.highlighted();
    this.filtered = fuzzyFilter(
      this.items,
      query,
      (item) =>
        item.searchText ?? [item.label, item.description, item.detail].filter(Boolean).join(' '),
    );
    this.top = 0;
    this.moveTo(0, before);
  }

  private select(index: number): void {
    this.moveTo(index, this.highlighted());
  }

  /** `before`: what was highlighted, taken before the list itself changed under the selection. */
  private moveTo(index: number, before: SelectDialogItem<T> | undefined): void {
    this.selected = Math.max(0, Math.min(index, this.filtered.length - 1));
    if (this.highlighted() !== before) this.options.onHighlight?.(this.highlighted());
    const rows = this.maxVisible();
    if (this.selected < this.top) this.top = this.selected;
    if (this.selected >= this.top + rows) this.top = this.selected - rows + 1;
  }

  /** Column widths for `inner` columns; narrow widths drop the detail, then the description. */
  private columns(inner: number): { label: number; description: number; detail: number } {
    const avail = inner - 2;
    const widest = (pick: (item: SelectDialogItem<T>) => string | undefined) =>
      this.items.reduce((w, item) => Math.max(w, visibleWidth(oneLine(pick(item) ?? ''))), 0);
    const labelWanted = widest((item) => item.label + (item.current ? CHECK : ''));
    const descWanted = widest((item) => item.description);
    const detailWanted = widest((item) => item.detail);
    const others = descWanted > 0 || detailWanted > 0;
    let label = Math.min(
      labelWanted,
      others ? Math.max(12, Math.floor(avail * 0.4)) : avail,
      avail,
    );
    // What is left after the label and the gaps goes to the description and the detail: the
    // detail gets what the description does not want, and at least 40% when both are long.
    const rest = avail - label - (descWanted > 0 ? GAP : 0) - (detailWanted > 0 ? GAP : 0);
    let detail =
      detailWanted === 0
        ? 0
        : Math.min(
            detailWanted,
            descWanted === 0 ? rest : Math.max(Math.floor(rest * 0.4), rest - descWanted),
          );
    let description = descWanted > 0 ? rest - detail : 0;
    if (descWanted > 0 && description < 10 && detail > 0) {
      description += detail + GAP;
      detail = 0;
    }
    if (description < 8) description = 0;
    if (detail < 6) detail = 0;
    if (description === 0 && detail === 0) label = avail;
    return { label, description, detail };
  }

  private row(
    item: SelectDialogItem<T>,
    isSelected: boolean,
    columns: { label: number; description: number; detail: number },
  ): string {
    const { theme } = this.options;
    const mark = item.current ? CHECK : '';
    const labelText = cut(oneLine(item.label), columns.label - visibleWidth(mark));
    const styledLabel = isSelected ? theme.bold(theme.selected(labelText)) : theme.text(labelText);
    let line =
      (isSelected ? theme.selected('› ') : '  ') + styledLabel + (mark ? theme.success(mark) : '');
    if (columns.description > 0 || columns.detail > 0) {
      line = pad(line, 2 + columns.label);
    }
    if (columns.description > 0) {
      const text = cut(oneLine(item.description ?? ''), columns.description);
      line +=
        ' '.repeat(GAP) +
        pad(isSelected ? theme.text(text) : theme.muted(text), columns.description);
    }
    if (columns.detail > 0) {
      const text = cut(oneLine(item.detail ?? ''), columns.detail);
      line += ' '.repeat(GAP) + theme.dim(' '.repeat(columns.detail - visibleWidth(text)) + text);
    }
    return line;
  }
}

export interface ShowSelectDialogOptions<T>
  extends Omit<SelectDialogOptions<T>, 'onSelect' | 'onCancel'> {
  overlay?: OverlayOptions;
}

/**
 * Shows a select dialog as an overlay sized to the terminal. `result` resolves with the picked
 * item, or undefined on Esc; the overlay is gone by then and focus is back where it was.
 */
export function showSelectDialog<T>(
  tui: TUI,
  options: ShowSelectDialogOptions<T>,
): { dialog: SelectDialog<T>; result: Promise<SelectDialogItem<T> | undefined> } {
  return showDialog(
    tui,
    options.overlay,
    (close: (item: SelectDialogItem<T> | undefined) => void) =>
      new SelectDialog<T>({
        ...options,
        // Frame (4 rows), search line, a little room above and below (and the message's rows).
        maxVisible: listRowsFor(
          tui.terminal.rows,
          8 + (options.message !== undefined ? MESSAGE_ROWS + 1 : 0),
          options.maxVisible ?? 12,
        ),
        onSelect: close,
        onCancel: () => close(undefined),
      }),
  );
}
