// The session picker (/sessions, and `zot -r` at launch): this directory's sessions, newest
// first, with their names; Enter resumes one, ctrl+r renames it (it keeps its place in the
// list), ctrl+d deletes it after a yes, ctrl+n shows only the named ones.
import type { TUI } from '@mariozechner/pi-tui';
import { showChoiceDialog } from '../../tui/choice-dialog.js';
import { showSelectDialog, type SelectDialogItem } from '../../tui/select-dialog.js';
import { showTextPrompt } from '../../tui/text-prompt-dialog.js';
import type { Style, Theme } from '../../tui/theme.js';
import type { InteractiveSession } from '../../contract/front-end.js';
import type { SessionSummary } from '../../contract/summaries.js';

export interface SessionPickerOptions {
  tui: TUI;
  theme: Theme;
  session: InteractiveSession;
  surface: {
    display(text: string, style?: Style): void;
    /** The chat shows a different transcript now (a resumed session). */
    replay(): void;
  };
  now: () => number;
  /** At launch (`zot -r`): Esc starts a new session, and says so. */
  atStart?: boolean;
}

/** `3m`, `5h`, `2d` ago: how the picker shows age. */
export function age(iso: string, now: number): string {
  const seconds = Math.max(0, (now - Date.parse(iso)) / 1000);
  if (seconds < 60) return 'just now';
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m ago`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)}h ago`;
  return `${Math.floor(seconds / 86_400)}d ago`;
}

/** `model · 1 message · $0.02`. */
export function sessionDetail(summary: SessionSummary): string {
  const count = summary.message_count;
  const messages = `${count} message${count === 1 ? '' : 's'}`;
  const branches = summary.branches !== undefined ? ` · ${summary.branches} branches` : '';
  return `${summary.model ?? '?'} · ${messages}${branches} · $${summary.cost_usd.toFixed(2)}`;
}

/**
 * The sessions worth offering: a run that failed (or was cancelled) before the model answered
 * holds nothing to go back to; an unreadable file is still shown, with why.
 */
export function resumable(list: readonly SessionSummary[]): SessionSummary[] {
  return list.filter((summary) => summary.answered || summary.error !== undefined);
}

const TITLE = 'Sessions (newest first)';
const NAMED_TITLE = 'Sessions: named only (ctrl+n shows all)';

/** Contract: resolves once the picker is closed (never rejects); outcomes are on the surface. */
export async function pickSession(options: SessionPickerOptions): Promise<void> {
  const { tui, theme, session, surface, now } = options;
  const open = session.state().session_file;
  let namedOnly = false;
  const toItems = (list: SessionSummary[]): SelectDialogItem<string>[] =>
    list
      .filter((summary) => !namedOnly || summary.name !== undefined)
      .map((summary) => ({
        value: summary.path,
        label: age(summary.modified, now()),
        description: summary.error
          ? `unreadable: ${summary.error}`
          : summary.name !== undefined
            ? `“${summary.name}”`
            : summary.first_prompt || '(no prompt)',
        detail: sessionDetail(summary),
        current: summary.path === open,
        searchText: `${summary.name ?? ''} ${summary.first_prompt} ${summary.model ?? ''}`,
      }));
  const read = () => resumable(session.sessions());
  const list = read();
  if (list.length === 0) {
    surface.display('no recorded sessions in this directory yet', theme.muted);
    return;
  }
  const { dialog, result } = showSelectDialog(tui, {
    title: TITLE,
    items: toItems(list),
    theme,
    emptyText: 'no named sessions (ctrl+r names one; ctrl+n shows all)',
    actions: [
      {
        key: 'ctrl+r',
        name: 'rename',
        run: (item) => void rename(options, item.value).then(() => refresh()),
      },
      {
        key: 'ctrl+d',
        name: 'delete',
        run: (item) => {
          if (item.current) return dialog.setTitle('Sessions: the session in use is not deleted');
          void remove(options, item).then((message) => {
            dialog.setTitle(message ?? TITLE);
            refresh();
          });
        },
      },
      {
        key: 'ctrl+n',
        name: 'named',
        always: true,
        run: () => {
          namedOnly = !namedOnly;
          dialog.setTitle(namedOnly ? NAMED_TITLE : TITLE);
          refresh();
        },
      },
    ],
  });
  function refresh(): void {
    dialog.setItems(toItems(read()));
    tui.requestRender();
  }
  const picked = await result;
  if (!picked || picked.current) {
    if (options.atStart) surface.display('new session (no session picked)', theme.muted);
    return;
  }
  try {
    session.resume(picked.value);
    surface.replay();
    surface.display(`resumed ${picked.value}`, theme.muted);
  } catch (error) {
    surface.display((error as Error).message, theme.error);
  }
}

async function rename(options: SessionPickerOptions, path: string): Promise<void> {
  const { tui, theme, session } = options;
  const { result } = showTextPrompt(tui, {
    title: 'Rename session',
    theme,
    validate: (value) => {
      try {
        session.renameSession(path, value);
        return undefined;
      } catch (error) {
        return (error as Error).message;
      }
    },
  });
  await result;
}

/** Asks, then deletes; resolves with what went wrong, if anything. */
async function remove(
  options: SessionPickerOptions,
  item: SelectDialogItem<string>,
): Promise<string | undefined> {
  const { tui, theme, session } = options;
  const { result } = showChoiceDialog(tui, {
    title: 'Delete this session?',
    preview: `${item.description ?? ''}\n${item.detail ?? ''}\n${item.value}`,
    choices: [
      { value: false, label: 'No, keep it', key: 'n' },
      { value: true, label: 'Yes, delete the file', key: 'y' },
    ],
    cancel: false,
    theme,
  });
  if (!(await result)) return undefined;
  try {
    session.deleteSession(item.value);
    return undefined;
  } catch (error) {
    return `Sessions: ${(error as Error).message}`;
  }
}
