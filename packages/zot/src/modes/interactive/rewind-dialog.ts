// /rewind (and Esc Esc on an empty editor): pick a checkpointed turn, see what going back to
// before it would change (each file with its +/- lines, the files changed outside zot since its
// last checkpoint named, the diff on request), then restore the code, the conversation or both.
// A file changed outside zot is overwritten only when the person chose it with that file listed.
import type { TUI } from '@mariozechner/pi-tui';
import { showChoiceDialog, type Choice } from '../../tui/choice-dialog.js';
import { showSelectDialog, type SelectDialogItem } from '../../tui/select-dialog.js';
import type { Style, Theme } from '../../tui/theme.js';
import type { CheckpointTurn, RewindPreview } from '../../contract/checkpoints.js';
import type { InteractiveSession } from '../../contract/front-end.js';
import { age, type DialogSurface } from './dialogs.js';

export interface RewindDialogOptions {
  tui: TUI;
  theme: Theme;
  session: InteractiveSession;
  surface: DialogSurface;
  now?: () => number;
}

type Action = 'both' | 'code' | 'conversation' | 'diff' | 'cancel';

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;

/** `+12 −3` for a file (or a turn's files); `binary` when git counted no lines. */
function lineCounts(files: ReadonlyArray<{ added?: number; removed?: number }>): string {
  let added = 0;
  let removed = 0;
  let binary = 0;
  for (const file of files) {
    if (file.added === undefined) binary++;
    added += file.added ?? 0;
    removed += file.removed ?? 0;
  }
  const lines = files.length > binary ? `+${added} −${removed}` : '';
  return [lines, binary > 0 ? (files.length === 1 ? 'binary' : `${binary} binary`) : '']
    .filter(Boolean)
    .join(' ');
}

/** The turn list's right column: when, and what the turn changed. */
function turnDetail(turn: CheckpointTurn, now: number): string {
  const files =
    turn.files.length === 0
      ? 'no file changes'
      : `${plural(turn.files.length, 'file')} ${lineCounts(turn.files)}`;
  return `${age(turn.time, now)} · ${files}`;
}

const ACTION_WORD = { restore: 'restore', recreate: 'bring back', remove: 'remove' } as const;

/** The text the action dialog shows: what each choice would do (untrusted paths, escaped there). */
export function describePreview(
  preview: RewindPreview,
  conversation: { ok: true } | { ok: false; message: string },
): string {
  const lines: string[] = [];
  if (preview.files.length === 0) {
    lines.push('The files are as they were before this turn: there is nothing to restore.');
  } else {
    lines.push(`Restoring the code changes ${plural(preview.files.length, 'file')}:`);
    const width = Math.max(...preview.files.map((file) => ACTION_WORD[file.action].length));
    for (const file of preview.files) {
      const counts = lineCounts([file]);
      lines.push(
        `  ${ACTION_WORD[file.action].padEnd(width)}  ${file.path}${counts ? `  (${counts})` : ''}`,
      );
    }
  }
  if (preview.conflicts.length > 0) {
    lines.push('');
    lines.push('Changed outside zot since its last checkpoint:');
    for (const path of preview.conflicts) lines.push(`  ${path}`);
    lines.push(`(restoring the code overwrites ${preview.conflicts.length === 1 ? 'it' : 'them'})`);
  }
  lines.push('');
  lines.push(
    conversation.ok
      ? 'Restoring the conversation goes back to before this prompt (the later messages stay in the session file).'
      : `The conversation cannot go back: ${conversation.message}.`,
  );
  return lines.join('\n');
}

/** The choices a preview allows: code only when a file would change, conversation when it can. */
export function rewindChoices(
  preview: RewindPreview,
  conversationOk: boolean,
): Array<Choice<Action>> {
  const code = preview.files.length > 0;
  const overwrite =
    preview.conflicts.length > 0
      ? `, overwriting ${plural(preview.conflicts.length, 'edited file')}`
      : '';
  const choices: Array<Choice<Action>> = [];
  if (code && conversationOk)
    choices.push({ value: 'both', label: `Restore code and conversation${overwrite}` });
  if (code) choices.push({ value: 'code', label: `Restore code only${overwrite}` });
  if (conversationOk) choices.push({ value: 'conversation', label: 'Restore conversation only' });
  if (code) choices.push({ value: 'diff', label: 'Show the diff first', key: 'd' });
  choices.push({ value: 'cancel', label: 'Cancel' });
  return choices;
}

/** A diff line's colour: added, removed, hunk and file headers. */
function diffLineStyle(theme: Theme): (line: string) => Style | undefined {
  return (line) => {
    if (line.startsWith('+++') || line.startsWith('---') || line.startsWith('diff --git'))
      return theme.bold;
    if (line.startsWith('+')) return theme.diffAdded;
    if (line.startsWith('-')) return theme.diffRemoved;
    if (line.startsWith('@@')) return theme.accent;
    return theme.diffContext;
  };
}

/** Contract: resolves when the dialog is done (never rejects); outcomes are shown on the surface. */
export async function rewindDialog(options: RewindDialogOptions): Promise<void> {
  const { theme, surface } = options;
  try {
    await runRewind(options);
  } catch (error) {
    // A busy session or checkpoints turned off say so (ErrorWithKind's message).
    surface.display(`rewind: ${(error as Error).message}`, theme.error);
  }
}

async function runRewind(options: RewindDialogOptions): Promise<void> {
  const { tui, theme, session, surface } = options;
  const now = options.now ?? Date.now;
  if (session.busy) {
    // A turn's answer is shown before its last checkpoint is taken: that moment is waited
    // for in silence; a turn still running is waited for with a word (Esc cancels it).
    const settled = await Promise.race([
      session.idle().then(() => true),
      new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 500).unref?.()),
    ]);
    if (!settled) {
      surface.display('waiting for the running turn to end (esc cancels it)…', theme.muted);
      await session.idle();
    }
  }
  const turns = await session.listCheckpoints();
  if (!turns) {
    surface.display(
      'checkpoints are off in this run (--no-checkpoints or the setting): there is nothing to rewind',
      theme.muted,
    );
    return;
  }
  if (turns.length === 0) {
    surface.display(
      'nothing to rewind yet: zot checkpoints the files before a turn’s first tool call',
      theme.muted,
    );
    return;
  }
  const items: SelectDialogItem<number>[] = [...turns].reverse().map((turn) => ({
    value: turn.turn,
    label: `turn ${turn.turn}`,
    description: turn.label || '(no prompt)',
    detail: turnDetail(turn, now()),
    searchText: `${turn.turn} ${turn.label} ${turn.files.map((file) => file.path).join(' ')}`,
  }));
  const { result } = showSelectDialog(tui, {
    title: 'Rewind to before which turn? (newest first)',
    items,
    theme,
  });
  const picked = await result;
  if (!picked) return;
  const turn = picked.value;
  const label = turns.find((entry) => entry.turn === turn)?.label ?? '';
  const preview = await session.previewRewind(turn);
  if (!preview) return surface.display(`there is no turn ${turn}`, theme.error);
  const conversation = session.conversationPoint(turn);
  const choices = rewindChoices(preview, conversation.ok);
  const title = `Rewind to before turn ${turn}${label ? `: ${label}` : ''}`;
  for (;;) {
    const { result: chosen } = showChoiceDialog<Action>(tui, {
      title,
      preview: describePreview(preview, conversation),
      choices,
      cancel: 'cancel',
      theme,
      previewStyle: theme.text,
      legend: [['esc', 'cancel']],
    });
    const action = await chosen;
    if (action === 'cancel') return;
    if (action === 'diff') {
      const { result: back } = showChoiceDialog<'back' | 'cancel'>(tui, {
        title: `What restoring the code of turn ${turn} changes (now → before it)`,
        preview: preview.diff || '(no text differences: binary files only)',
        choices: [
          { value: 'back', label: 'Back to the choices' },
          { value: 'cancel', label: 'Cancel' },
        ],
        cancel: 'back',
        theme,
        previewLineStyle: diffLineStyle(theme),
        legend: [['esc', 'back']],
      });
      if ((await back) === 'cancel') return;
      continue;
    }
    return restore(options, turn, preview, action);
  }
}

async function restore(
  options: RewindDialogOptions,
  turn: number,
  preview: RewindPreview,
  action: 'both' | 'code' | 'conversation',
): Promise<void> {
  const { theme, session, surface } = options;
  // Shown at the end: a conversation rewind replays the chat, which would clear them.
  const said: Array<[string, Style]> = [];
  if (action !== 'conversation') {
    // Only the conflicts the person was shown may be overwritten; a new one refuses.
    const outcome = await session.rewindCode(turn, preview.conflicts);
    if (!outcome.ok) {
      const message = outcome.conflicts
        ? `not rewound: ${outcome.conflicts.map((path) => JSON.stringify(path)).join(', ')} changed outside zot since the preview; nothing was restored (/rewind again to see it)`
        : outcome.message;
      surface.display(message, theme.error);
      return;
    }
    const parts = [
      `${plural(outcome.restored.length, 'file')} restored`,
      ...(outcome.removed.length > 0 ? [`${outcome.removed.length} removed`] : []),
    ];
    said.push([
      `rewound the files to before turn ${turn}: ${parts.join(', ')} (/rewind to turn ${outcome.undoTurn} undoes it)`,
      theme.success,
    ]);
    for (const kept of outcome.kept)
      said.push([`kept ${JSON.stringify(kept.path)}: ${kept.reason}`, theme.warning]);
  }
  if (action !== 'code') {
    const moved = session.rewindConversation(turn);
    if (!moved.ok) {
      said.push([moved.message, theme.error]);
    } else {
      surface.replay();
      said.push([
        `the conversation is back to before turn ${turn} (${plural(moved.messages, 'message')}); the later ones stay in the session file`,
        theme.success,
      ]);
    }
  }
  for (const [text, style] of said) surface.display(text, style);
}
