// The tool-confirmation dialog: which tool, what it will do (its preview), and four answers.
// Enter takes the highlighted answer (yes at first), arrows move, Esc (and ctrl+c) is no, `y`
// and `n` answer at once, 1-4 pick by number. Plain data in, one choice out.
import { matchesKey, type Component, type OverlayOptions, type TUI } from '@mariozechner/pi-tui';
import { terminalSafeBlock } from '../util/terminal-text.js';
import {
  cut,
  DIALOG_OVERLAY,
  footerLine,
  innerWidth,
  legend,
  oneLine,
  renderDialogFrame,
} from './dialog-frame.js';
import type { Theme } from './theme.js';

/** yes once; yes for this tool for the rest of the session; yes to every tool; no. */
export type ConfirmChoice = 'yes' | 'always-tool' | 'always-all' | 'no';

export interface ConfirmDialogOptions {
  toolName: string;
  /** What the tool will do: a command, a path, a diff. May span lines; untrusted text. */
  preview: string;
  theme: Theme;
  /** The title (default `Allow <tool>?`). */
  title?: string;
  /** Preview lines shown before `… N more lines` (default 12). */
  maxPreviewLines?: number;
  /** Called exactly once, with the answer. */
  onChoice(choice: ConfirmChoice): void;
}

const CHOICES: ReadonlyArray<{ choice: ConfirmChoice; label: (tool: string) => string }> = [
  { choice: 'yes', label: () => 'Yes' },
  { choice: 'always-tool', label: (tool) => `Yes, and don't ask again for ${tool} this session` },
  { choice: 'always-all', label: () => "Yes to everything this session (don't ask again)" },
  { choice: 'no', label: () => 'No' },
];

/** Contract: `onChoice` is called once; keys after it are ignored; renders within any width. */
export class ConfirmDialog implements Component {
  private highlighted = 0;
  private answered = false;

  constructor(private readonly options: ConfirmDialogOptions) {}

  /** The answer Enter would give now. */
  get current(): ConfirmChoice {
    return CHOICES[this.highlighted]!.choice;
  }

  /** Answers for the user (for a caller whose turn was cancelled meanwhile): no by default. */
  answer(choice: ConfirmChoice = 'no'): void {
    if (this.answered) return;
    this.answered = true;
    this.options.onChoice(choice);
  }

  handleInput(data: string): void {
    if (this.answered) return;
    if (matchesKey(data, 'escape') || matchesKey(data, 'ctrl+c') || /^[nN]$/.test(data)) {
      return this.answer('no');
    }
    if (/^[yY]$/.test(data)) return this.answer('yes');
    if (matchesKey(data, 'enter')) return this.answer(this.current);
    if (matchesKey(data, 'up') || matchesKey(data, 'shift+tab')) {
      this.highlighted = (this.highlighted + CHOICES.length - 1) % CHOICES.length;
      return;
    }
    if (matchesKey(data, 'down') || matchesKey(data, 'tab')) {
      this.highlighted = (this.highlighted + 1) % CHOICES.length;
      return;
    }
    const digit = /^[1-9]$/.test(data) ? Number(data) : 0;
    if (digit >= 1 && digit <= CHOICES.length) this.answer(CHOICES[digit - 1]!.choice);
  }

  invalidate(): void {}

  render(width: number): string[] {
    const { theme } = this.options;
    const inner = innerWidth(width);
    const tool = oneLine(this.options.toolName);
    const body: string[] = [];
    const preview = terminalSafeBlock(this.options.preview.replace(/\t/g, '  ')).split('\n');
    while (preview.length > 0 && preview.at(-1)!.trim() === '') preview.pop();
    const max = Math.max(1, this.options.maxPreviewLines ?? 12);
    const shown = preview.length > max ? preview.slice(0, max - 1) : preview;
    for (const line of shown) body.push(theme.toolPreview(cut(line, inner)));
    if (shown.length < preview.length) {
      const more = preview.length - shown.length;
      body.push(theme.muted(cut(`… ${more} more line${more === 1 ? '' : 's'}`, inner)));
    }
    body.push('');
    CHOICES.forEach(({ label }, i) => {
      const text = cut(`${i + 1}. ${label(tool)}`, inner - 2);
      body.push(
        i === this.highlighted
          ? theme.selected('› ') + theme.bold(theme.selected(text))
          : '  ' + theme.text(text),
      );
    });
    const keys = legend([
      ['↑↓', 'move'],
      ['enter', 'choose'],
      ['y', 'yes'],
      ['n/esc', 'no'],
    ]);
    return renderDialogFrame(
      {
        title: this.options.title ?? `Allow ${tool}?`,
        body,
        footer: [footerLine(theme, keys, '', inner)],
      },
      width,
      theme,
    );
  }
}

export interface ShowConfirmDialogOptions extends Omit<ConfirmDialogOptions, 'onChoice'> {
  overlay?: OverlayOptions;
  /** Aborting answers `no` and closes the dialog (the turn was cancelled). */
  signal?: AbortSignal;
}

/**
 * Shows the confirmation as an overlay and resolves with the answer; the overlay is gone and
 * focus restored by then. Contract: never rejects.
 */
export function showConfirmDialog(
  tui: TUI,
  options: ShowConfirmDialogOptions,
): { dialog: ConfirmDialog; result: Promise<ConfirmChoice> } {
  let resolve!: (choice: ConfirmChoice) => void;
  const result = new Promise<ConfirmChoice>((r) => (resolve = r));
  const onAbort = () => dialog.answer('no');
  const dialog = new ConfirmDialog({
    ...options,
    maxPreviewLines: options.maxPreviewLines ?? Math.max(3, Math.min(12, tui.terminal.rows - 14)),
    onChoice: (choice) => {
      options.signal?.removeEventListener('abort', onAbort);
      handle.hide();
      resolve(choice);
    },
  });
  const handle = tui.showOverlay(dialog, options.overlay ?? DIALOG_OVERLAY);
  if (options.signal?.aborted) onAbort();
  else options.signal?.addEventListener('abort', onAbort, { once: true });
  return { dialog, result };
}
