// The --no-yolo question before a tool runs, as an overlay: the tool, its preview and four
// choices. Enter picks the highlighted one (yes), Esc is no. (A stand-in for the
// tui/confirm-dialog.ts widget: `confirmer` is the one entry point the app uses.)
import {
  matchesKey,
  truncateToWidth,
  wrapTextWithAnsi,
  type Component,
  type Focusable,
  type TUI,
} from '@mariozechner/pi-tui';
import type { ConfirmDecision, ConfirmRequest } from '../../session/confirm.js';
import type { Theme } from '../../tui/theme.js';
import { terminalSafe } from '../../util/terminal-text.js';
import type { AskPerson } from './ports.js';

const CHOICES: ReadonlyArray<{ decision: ConfirmDecision; label: string; key: string }> = [
  { decision: 'allow', label: 'yes', key: 'y' },
  { decision: 'allow_tool_session', label: 'yes, and do not ask again for this tool', key: 't' },
  { decision: 'allow_all_session', label: 'yes to everything this session', key: 'a' },
  { decision: 'deny', label: 'no', key: 'n' },
];

/** The dialog's body. Contract: `onPick` is called at most once. */
export class ConfirmDialog implements Component, Focusable {
  focused = false;
  private selected = 0;
  private picked = false;

  constructor(
    private readonly request: ConfirmRequest,
    private readonly theme: Theme,
    private readonly onPick: (decision: ConfirmDecision) => void,
  ) {}

  invalidate(): void {}

  handleInput(data: string): void {
    if (matchesKey(data, 'up'))
      this.selected = (this.selected + CHOICES.length - 1) % CHOICES.length;
    else if (matchesKey(data, 'down') || matchesKey(data, 'tab'))
      this.selected = (this.selected + 1) % CHOICES.length;
    else if (matchesKey(data, 'enter')) this.pick(CHOICES[this.selected]!.decision);
    else if (matchesKey(data, 'escape') || matchesKey(data, 'ctrl+c')) this.pick('deny');
    else {
      const choice = CHOICES.find((c) => c.key === data.toLowerCase());
      if (choice) this.pick(choice.decision);
    }
  }

  private pick(decision: ConfirmDecision): void {
    if (this.picked) return;
    this.picked = true;
    this.onPick(decision);
  }

  render(width: number): string[] {
    const { theme } = this;
    const inner = Math.max(10, width - 4);
    const body: string[] = [
      theme.bold(`Run ${theme.toolName(terminalSafe(this.request.tool_name))}?`),
      ...wrapTextWithAnsi(theme.toolPreview(terminalSafe(this.request.tool_preview)), inner).slice(
        0,
        6,
      ),
      '',
      ...CHOICES.map((choice, i) => {
        const text = `${choice.key}  ${choice.label}`;
        return i === this.selected ? theme.selected(theme.inverse(`› ${text}`)) : `  ${text}`;
      }),
      '',
      theme.muted('↑↓ choose · enter pick · esc no'),
    ];
    const border = theme.border;
    const pad = (line: string) => {
      const cut = truncateToWidth(line, inner, '…', true);
      return `${border('│')} ${cut} ${border('│')}`;
    };
    return [
      border(`╭${'─'.repeat(inner + 2)}╮`),
      ...body.map(pad),
      border(`╰${'─'.repeat(inner + 2)}╯`),
    ];
  }
}

/**
 * The AskPerson of the TUI: one overlay per question; an abort (Esc on the turn, exit) closes
 * it and answers deny. Contract: always resolves.
 */
export function confirmer(tui: TUI, theme: Theme): AskPerson {
  return (request, signal) =>
    new Promise<ConfirmDecision>((resolve) => {
      if (signal.aborted) return resolve('deny');
      let handle: { hide(): void } | undefined;
      const finish = (decision: ConfirmDecision) => {
        signal.removeEventListener('abort', onAbort);
        handle?.hide();
        handle = undefined;
        tui.requestRender();
        resolve(decision);
      };
      const onAbort = () => finish('deny');
      signal.addEventListener('abort', onAbort, { once: true });
      const dialog = new ConfirmDialog(request, theme, finish);
      handle = tui.showOverlay(dialog, {
        anchor: 'bottom-center',
        width: '90%',
        minWidth: 30,
        margin: 1,
      });
      tui.requestRender();
    });
}
