// The tool-confirmation dialog: which tool, everything the call will do (shown whole, its lines
// counted and numbered: choice-dialog.ts), and six answers. Enter takes the highlighted answer
// (yes at first), arrows move, pgup/pgdn scroll a long call, Esc (and ctrl+c) is no, `y` and `n`
// answer at once, 1-6 pick by number. Plain data in, one choice out.
import type { OverlayOptions, TUI } from '@mariozechner/pi-tui';
import { ChoiceDialog, showChoiceDialog, type Choice } from './choice-dialog.js';
import { oneLine } from './dialog-frame.js';
import type { Theme } from './theme.js';

/**
 * yes once; yes for this tool for the rest of the session; yes to every tool; yes and always
 * (a rule written to the user's or the project's settings); no.
 */
export type ConfirmChoice =
  | 'yes'
  | 'always-tool'
  | 'always-all'
  | 'always-user'
  | 'always-project'
  | 'no';

export interface ConfirmDialogOptions {
  toolName: string;
  /** Everything the call will do: the whole command, every argument. Untrusted text. */
  preview: string;
  theme: Theme;
  /** The title (default `Allow <tool>?`). */
  title?: string;
  /** Preview rows shown before it scrolls (default: what the screen leaves). */
  maxPreviewRows?: number | (() => number);
  /** Called exactly once, with the answer. */
  onChoice(choice: ConfirmChoice): void;
}

function question(options: Omit<ConfirmDialogOptions, 'onChoice'>) {
  const tool = oneLine(options.toolName);
  const choices: Choice<ConfirmChoice>[] = [
    { value: 'yes', label: 'Yes', key: 'y' },
    { value: 'always-tool', label: `Yes, and don't ask again for ${tool} this session` },
    { value: 'always-all', label: "Yes to everything this session (don't ask again)" },
    { value: 'always-user', label: 'Yes, always: add an allow rule to my config' },
    { value: 'always-project', label: "Yes, always: add an allow rule to this project's settings" },
    { value: 'no', label: 'No', key: 'n' },
  ];
  return {
    ...options,
    title: options.title !== undefined ? oneLine(options.title) : `Allow ${tool}?`,
    choices,
    cancel: 'no' as const,
    countLines: true,
    legend: [
      ['y', 'yes'],
      ['n/esc', 'no'],
    ] as Array<[string, string]>,
  };
}

/** Contract: `onChoice` is called once; keys after it are ignored; renders within any width. */
export class ConfirmDialog extends ChoiceDialog<ConfirmChoice> {
  constructor(options: ConfirmDialogOptions) {
    super({ ...question(options), onChoice: options.onChoice });
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
): { dialog: ChoiceDialog<ConfirmChoice>; result: Promise<ConfirmChoice> } {
  return showChoiceDialog(tui, question(options));
}
