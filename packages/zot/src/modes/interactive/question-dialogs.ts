// Extensions' questions (ui_request) as dialogs, one at a time (behind an open tool
// confirmation too, dialog-line.ts): confirm (yes/no), select (the
// options, searchable), input (masked when asked). Every dialog is titled with the extension's
// name, so an extension cannot pass its question off as zot's; its text is shown escaped. Esc
// answers `cancelled`; a question withdrawn (its deadline, its extension exited) closes its
// dialog, or never shows when it was still waiting behind another.
import type { TUI } from '@mariozechner/pi-tui';
import type {
  AnswerExtension,
  ExtensionAnswer,
  ExtensionQuestion,
} from '../../contract/extension-questions.js';
import { showChoiceDialog } from '../../tui/choice-dialog.js';
import { showSelectDialog } from '../../tui/select-dialog.js';
import { showTextPrompt } from '../../tui/text-prompt-dialog.js';
import type { Theme } from '../../tui/theme.js';
import { DialogLine } from './dialog-line.js';

const CANCELLED: ExtensionAnswer = { cancelled: true };

/** The frame's title: whose question it is, never the extension's own words. */
export function questionTitle(question: ExtensionQuestion): string {
  return `Extension ${question.extension} asks`;
}

/**
 * Contract: resolves every question once, in the order asked; never rejects. With `line`, a
 * question also waits behind the tool confirmation that shares it.
 */
export function questionDialogs(
  tui: TUI,
  theme: Theme,
  line: DialogLine = new DialogLine(),
): AnswerExtension {
  return (question, withdrawn) =>
    line
      .run(() =>
        withdrawn.aborted ? Promise.resolve(CANCELLED) : show(tui, theme, question, withdrawn),
      )
      .catch(() => CANCELLED);
}

function show(
  tui: TUI,
  theme: Theme,
  question: ExtensionQuestion,
  withdrawn: AbortSignal,
): Promise<ExtensionAnswer> {
  const title = questionTitle(question);
  switch (question.kind) {
    case 'confirm':
    default: {
      const { result } = showChoiceDialog<ExtensionAnswer>(tui, {
        title,
        preview: question.title,
        previewStyle: theme.text,
        choices: [
          { value: { value: true }, label: 'Yes', key: 'y' },
          { value: { value: false }, label: 'No', key: 'n' },
        ],
        cancel: CANCELLED,
        legend: [
          ['y', 'yes'],
          ['n', 'no'],
          ['esc', 'cancel'],
        ],
        theme,
        signal: withdrawn,
      });
      return result;
    }
    case 'select': {
      const items = (question.options ?? []).map((option) => ({ value: option, label: option }));
      const { dialog, result } = showSelectDialog(tui, {
        title,
        message: question.title,
        items,
        theme,
      });
      return untilWithdrawn(withdrawn, () => dialog.cancel(), result).then((item) =>
        item ? { value: item.value } : CANCELLED,
      );
    }
    case 'input': {
      const { dialog, result } = showTextPrompt(tui, {
        title,
        message: question.title,
        mask: question.mask === true,
        theme,
      });
      return untilWithdrawn(withdrawn, () => dialog.cancel(), result).then((text) =>
        text === undefined ? CANCELLED : { value: text },
      );
    }
  }
}

/** `result`, with `close` called if `withdrawn` aborts first. */
function untilWithdrawn<T>(
  withdrawn: AbortSignal,
  close: () => void,
  result: Promise<T>,
): Promise<T> {
  withdrawn.addEventListener('abort', close, { once: true });
  return result.finally(() => withdrawn.removeEventListener('abort', close));
}
