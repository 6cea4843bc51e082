// /tree, /fork, /clone and /merge in the TUI: the session's branches in a dialog (Enter switches
// to one, ctrl+g merges one into the active branch), the points a fork can start from, and the
// same with an argument typed after the command. The tree itself lives in the runtime
// (session.branches); this only shows it and says what happened.
import type { TUI } from '@mariozechner/pi-tui';
import type { BranchInfo } from '../../contract/branches.js';
import type { InteractiveSession } from '../../contract/front-end.js';
import { oneLine } from '../../tui/dialog-frame.js';
import { showSelectDialog, type SelectDialogItem } from '../../tui/select-dialog.js';
import type { Style, Theme } from '../../tui/theme.js';

export interface TreeDialogOptions {
  tui: TUI;
  theme: Theme;
  session: InteractiveSession;
  surface: { display(text: string, style?: Style): void; replay(): void };
}

const plural = (n: number, word: string) =>
  `${n} ${n === 1 ? word : word.endsWith('h') ? `${word}es` : `${word}s`}`;
/** Deeper branches are indented, up to this many levels (a hostile tree cannot push text away). */
const MAX_INDENT = 6;

function depths(branches: readonly BranchInfo[]): Map<number, number> {
  const depth = new Map<number, number>();
  // Parents begin before their children, so one pass in order sees each parent first.
  for (const branch of branches)
    depth.set(branch.index, branch.parent !== undefined ? (depth.get(branch.parent) ?? 0) + 1 : 0);
  return depth;
}

function branchItems(branches: readonly BranchInfo[]): SelectDialogItem<number>[] {
  const depth = depths(branches);
  return branches.map((branch) => {
    const indent = '  '.repeat(Math.min(depth.get(branch.index) ?? 0, MAX_INDENT));
    const summary = branch.summary
      ? `${branch.summary.by === 'model' ? 'summary' : 'summary (plain)'}: ${oneLine(branch.summary.text).slice(0, 160)}`
      : undefined;
    return {
      value: branch.index,
      label: `${indent}${branch.index}. ${oneLine(branch.first_prompt ?? '(no prompt of its own)').slice(0, 70)}`,
      description: `${plural(branch.prompts, 'prompt')} · ${plural(branch.messages, 'message')}${branch.active ? ' · active' : ''}`,
      ...(summary ? { detail: summary } : {}),
      ...(branch.active ? { current: true } : {}),
    };
  });
}

function attempt(options: TreeDialogOptions, run: () => string, replay = true): void {
  const { surface, theme } = options;
  try {
    const said = run();
    if (replay) surface.replay();
    surface.display(said, theme.success);
  } catch (error) {
    surface.display((error as Error).message, theme.error);
  }
}

function switchTo(options: TreeDialogOptions, index: number): void {
  attempt(options, () => {
    const moved = options.session.branches.switchTo(index);
    const left = moved.left !== undefined ? `; a summary of branch ${moved.left} is written` : '';
    return `on branch ${moved.index} now (${plural(moved.messages, 'message')})${left}`;
  });
}

function merge(options: TreeDialogOptions, index: number, messages?: number): void {
  attempt(options, () => {
    const merged = options.session.branches.merge(
      index,
      messages !== undefined ? { messages } : {},
    );
    return `merged branch ${merged.index} into this one (summary by ${merged.summary_by}); the model sees it from the next prompt`;
  });
}

/** /tree [N]: with N, switch to branch N; else the dialog. Contract: never rejects. */
export async function treeDialog(options: TreeDialogOptions, args = ''): Promise<void> {
  const { tui, theme, session, surface } = options;
  if (args !== '') {
    if (!/^\d+$/.test(args)) return surface.display('usage: /tree [branch]', theme.error);
    return switchTo(options, Number(args));
  }
  const listing = session.branches.list();
  if (listing.total === 0)
    return surface.display('no branches yet: the session holds no messages', theme.muted);
  const title = (total: number, shown: number) =>
    `Tree: ${plural(total, 'branch')}${total > shown ? ` (${total - shown} older not listed)` : ''}`;
  const { dialog, result } = showSelectDialog<number>(tui, {
    title: title(listing.total, listing.branches.length),
    message: 'Enter switches to a branch · ctrl+g merges it into the active one',
    theme,
    items: branchItems(listing.branches),
    actions: [
      {
        key: 'ctrl+g',
        name: 'merge',
        run: (item) => {
          if (item.current)
            return dialog.setTitle('Tree: the active branch is not merged into itself');
          merge(options, item.value);
          const now = session.branches.list();
          dialog.setItems(branchItems(now.branches));
          dialog.setTitle(title(now.total, now.branches.length));
          tui.requestRender();
        },
      },
    ],
  });
  const picked = await result;
  if (!picked || picked.current) return;
  switchTo(options, picked.value);
}

/** /merge <N> [--messages M]; without arguments, a dialog of the other branches. */
export async function mergeDialog(options: TreeDialogOptions, args = ''): Promise<void> {
  const { tui, theme, session, surface } = options;
  if (args !== '') {
    const match = /^(\d+)(?:\s+--messages[=\s](\d+))?$/.exec(args);
    if (!match) return surface.display('usage: /merge <branch> [--messages N]', theme.error);
    return merge(options, Number(match[1]), match[2] !== undefined ? Number(match[2]) : undefined);
  }
  const others = session.branches.list().branches.filter((branch) => !branch.active);
  if (others.length === 0)
    return surface.display('no other branch to merge: /tree shows the branches', theme.muted);
  const { result } = showSelectDialog<number>(tui, {
    title: 'Merge a branch into this one',
    message: 'its summary joins the conversation as a marked message the model sees',
    theme,
    items: branchItems(others),
  });
  const picked = await result;
  if (picked) merge(options, picked.value);
}

/** /fork [N]: a new session file up to the end of prompt N (default: here). */
export async function forkDialog(options: TreeDialogOptions, args = ''): Promise<void> {
  const { tui, theme, session, surface } = options;
  const starts = session.messages.flatMap((message, index) =>
    message.role === 'user' ? [index] : [],
  );
  const keepAfter = (prompt: number) =>
    prompt >= starts.length ? session.messages.length : starts[prompt]!;
  const fork = (messages: number) =>
    attempt(options, () => {
      const forked = session.branches.fork(messages);
      return `forked: ${forked.path} (${plural(forked.messages, 'message')}); the original session is unchanged`;
    });
  if (args === 'here') return fork(session.messages.length);
  if (args !== '') {
    const n = Number(args);
    if (!/^\d+$/.test(args) || n < 1 || n > starts.length)
      return surface.display(
        `usage: /fork [prompt number], 1 to ${starts.length} (/fork alone asks)`,
        theme.error,
      );
    return fork(keepAfter(n));
  }
  if (session.messages.length === 0)
    return surface.display('nothing to fork yet: the conversation is empty', theme.muted);
  const items: SelectDialogItem<number>[] = [
    {
      value: session.messages.length,
      label: 'here',
      description: plural(session.messages.length, 'message'),
    },
  ];
  for (let prompt = starts.length - 1; prompt >= 1; prompt--) {
    const message = session.messages[starts[prompt - 1]!]!;
    const text = message.content.find((block) => block.type === 'text');
    items.push({
      value: keepAfter(prompt),
      label: `after prompt ${prompt}: ${oneLine(text && 'text' in text ? text.text : '').slice(0, 70)}`,
      description: plural(keepAfter(prompt), 'message'),
    });
  }
  const { result } = showSelectDialog<number>(tui, {
    title: 'Fork: a new session file from',
    theme,
    items,
  });
  const picked = await result;
  if (picked) fork(picked.value);
}

/** /clone: the session file, every branch, copied; the copy is opened. */
export async function cloneCommand(options: TreeDialogOptions): Promise<void> {
  attempt(options, () => {
    const cloned = options.session.branches.clone();
    return `cloned: ${cloned.path} (every branch); continuing in the copy`;
  });
}
