// /tree, /fork, /clone and /merge outside the TUI (print, JSON, RPC's `command`): the same
// operations as the TUI's dialogs (session/branches.ts), answered in text.
import type { BranchInfo } from '../contract/branches.js';
import { ErrorWithKind } from '../contract/errors.js';
import type { SlashResult } from '../contract/front-end.js';
import type { Message } from '../providers/types.js';
import { terminalSafe } from '../util/terminal-text.js';
import type { Session } from './session.js';

const flat = (text: string) => terminalSafe(text.replace(/\s+/g, ' ').trim());
const plural = (n: number, word: string) =>
  `${n} ${n === 1 ? word : word.endsWith('h') ? `${word}es` : `${word}s`}`;

/** The branch listing, one line per branch (and its summary's first line under it). */
export function branchListText(branches: readonly BranchInfo[], total: number): string {
  if (total === 0) return 'no branches yet: the session holds no messages';
  const lines = [
    `${plural(total, 'branch')} (* the active one; /tree N switches, /merge N brings one in):`,
  ];
  if (branches.length < total)
    lines.push(`  (${total - branches.length} older branches not listed)`);
  for (const branch of branches) {
    const from = branch.parent !== undefined ? `, from ${branch.parent}` : '';
    const prompt = flat(branch.first_prompt ?? '(no prompt of its own)').slice(0, 80);
    lines.push(
      `${branch.active ? '*' : ' '} ${branch.index}. ${prompt}  (${plural(branch.prompts, 'prompt')}, ${plural(branch.messages, 'message')}${from})`,
    );
    if (branch.summary) {
      const first = flat(branch.summary.text.split('\n').find((l) => l.trim() !== '') ?? '');
      lines.push(`     summary (${branch.summary.by}): ${first.slice(0, 100)}`);
    }
  }
  return lines.join('\n');
}

/** How many messages a fork "after prompt n" keeps: up to the prompt after it. */
export function forkPoint(messages: readonly Message[], prompt: number): number {
  const starts = messages.flatMap((message, index) => (message.role === 'user' ? [index] : []));
  if (!Number.isSafeInteger(prompt) || prompt < 1 || prompt > starts.length)
    throw new ErrorWithKind(
      'failed',
      `there is no prompt ${prompt}: the conversation holds ${plural(starts.length, 'prompt')}`,
    );
  return prompt === starts.length ? messages.length : starts[prompt]!;
}

function index(args: string, usage: string): number {
  const n = Number(args);
  if (!/^\d+$/.test(args) || !Number.isSafeInteger(n))
    throw new ErrorWithKind('failed', `usage: ${usage}`);
  return n;
}

type Runner = (session: Session, args: string) => SlashResult;

export const BRANCH_RUNNERS: Record<string, Runner> = {
  tree: (session, args) => {
    if (args === '') {
      const listing = session.branches.list();
      return { kind: 'display', text: branchListText(listing.branches, listing.total) };
    }
    const moved = session.branches.switchTo(index(args, '/tree [branch]'));
    const left = moved.left !== undefined ? `; a summary of branch ${moved.left} is written` : '';
    return {
      kind: 'display',
      text: `on branch ${moved.index} now (${plural(moved.messages, 'message')})${left}`,
    };
  },
  fork: (session, args) => {
    const keep =
      args === '' || args === 'here'
        ? undefined
        : forkPoint(session.messages, index(args, '/fork [prompt number]'));
    const forked = session.branches.fork(keep);
    return {
      kind: 'display',
      text: `forked: ${forked.path} (${plural(forked.messages, 'message')}); the original session is unchanged`,
    };
  },
  clone: (session) => {
    const cloned = session.branches.clone();
    return {
      kind: 'display',
      text: `cloned: ${cloned.path} (every branch); continuing in the copy`,
    };
  },
  merge: (session, args) => {
    const match = /^(\d+)(?:\s+--messages[=\s](\d+))?$/.exec(args);
    if (!match) throw new ErrorWithKind('failed', 'usage: /merge <branch> [--messages N]');
    const merged = session.branches.merge(Number(match[1]), {
      ...(match[2] !== undefined ? { messages: Number(match[2]) } : {}),
    });
    return {
      kind: 'display',
      text: `merged branch ${merged.index} into this one (summary by ${merged.summary_by}); the model sees it from the next prompt`,
    };
  },
};
