// Replaying a loaded transcript into the chat: which messages are drawn (the last ones, from a
// prompt on), and, when a session is resumed, the newest screenful first and the older turns in
// short slices after that first frame. How one turn becomes blocks is the chat view's business.
import type { Component, TUI } from '@mariozechner/pi-tui';
import type { Message } from '../../../contract/content.js';
import type { SettledLog } from '../../../tui/settled-log.js';
import { groupedCount } from './message-parts.js';

/** The messages a resumed transcript draws, at most (about 20 turns with tools). */
export const REPLAY_MESSAGES = 80;

/** The rows a first frame keeps for what is drawn under the chat (editor, status line, notes). */
const FRAME_ROWS_BELOW = 8;

/** The longest stretch the older part of a replayed transcript is built in, between frames and keys. */
const REPLAY_SLICE_MS = 8;

/** What the replay draws into: the chat view's log, and its way of building blocks. */
export interface ReplayTarget {
  readonly tui: TUI;
  readonly log: SettledLog;
  /** A muted one-line notice at the end of the chat (plain text). */
  notice(text: string): void;
  /**
   * Builds one turn's blocks (its prompt, answers, tool rows), at the end or before `before`,
   * `held` back or not (SettledLog.insert). Returns the blocks it added, in order.
   */
  buildTurn(turn: readonly Message[], before?: Component, held?: boolean): Component[];
}

export interface ReplayOptions {
  limit?: number;
  firstScreen?: boolean;
}

/** Messages cut into turns: each starts at a prompt (the first may not). */
function turnsOf(messages: readonly Message[]): Message[][] {
  const turns: Message[][] = [];
  for (const message of messages) {
    if (message.role === 'user' || turns.length === 0) turns.push([]);
    turns.at(-1)!.push(message);
  }
  return turns;
}

/** Contract: never throws for any transcript; a replay still under way stops at `cancel`. */
export class ChatReplay {
  /** The older part of a replayed transcript, still being built after the first frame. */
  private pending: { cancelled: boolean } | undefined;

  constructor(private readonly target: ReplayTarget) {}

  /**
   * Draws a loaded transcript's last `limit` messages (from a prompt on), with a line saying
   * how many earlier ones are not drawn: a resumed long session then opens, and takes keys, as
   * fast as a new one. What is not drawn is still in the model's context.
   *
   * With `firstScreen`, the first frame gets only the newest lines that fit on the screen
   * under what the chat already shows (that frame then stays within the screen, so the later one
   * can draw above it without clearing the scrollback); the older ones are built and rendered in
   * short slices after that frame (keys are read between them) and drawn together in one later
   * frame, above, as if drawn at once.
   */
  replay(
    messages: readonly Message[],
    { limit = REPLAY_MESSAGES, firstScreen = false }: ReplayOptions = {},
  ): void {
    const { tui, log } = this.target;
    this.cancel();
    let from = Math.max(0, messages.length - limit);
    while (from > 0 && from < messages.length && messages[from]!.role !== 'user') from++;
    if (from >= messages.length) from = Math.max(0, messages.length - limit);
    if (from > 0) {
      this.target.notice(
        `⋯ ${groupedCount(from)} earlier message${from === 1 ? '' : 's'} of this session not drawn (still in the model's context)`,
      );
    }
    const turns = turnsOf(messages.slice(from));
    if (firstScreen) {
      const { rows, columns } = tui.terminal;
      this.newestFirst(turns, rows - FRAME_ROWS_BELOW - log.render(columns).length);
    } else {
      for (const turn of turns) this.target.buildTurn(turn);
    }
    tui.requestRender();
  }

  /** Stops drawing the rest of a replayed transcript (it was cleared or replaced). */
  cancel(): void {
    if (this.pending) this.pending.cancelled = true;
    this.pending = undefined;
  }

  /**
   * Builds turns newest first, each before the one built after it, held back; the newest
   * `lines` lines are drawn at once, the rest later (see `replay`).
   */
  private newestFirst(turns: Message[][], lines: number): void {
    const { tui, log } = this.target;
    const width = tui.terminal.columns;
    let index = turns.length;
    let before: Component | undefined;
    const buildOlder = (): Component[] => {
      const added = this.target.buildTurn(turns[--index]!, before, true);
      before = added[0] ?? before;
      return added;
    };
    let room = lines;
    let whole = true;
    while (index > 0 && whole) {
      const added = buildOlder();
      for (let i = added.length - 1; i >= 0 && whole; i--) {
        // Its lines and the blank line before it.
        const needs = log.measure([added[i]!], width);
        if (needs <= room) {
          log.release([added[i]!]);
          room -= needs;
        } else {
          // The first frame's top: its last lines, as a screen scrolled to the bottom shows.
          if (room > 1) log.peek(added[i]!, room - 1);
          whole = false;
        }
      }
    }
    if (whole) return;
    const job = { cancelled: false };
    this.pending = job;
    const renders = log.renders;
    const step = () => {
      if (job.cancelled) return;
      // After the first frame: that one shows the newest turns as soon as it can.
      if (log.renders === renders) {
        setTimeout(step, REPLAY_SLICE_MS);
        return;
      }
      const until = performance.now() + REPLAY_SLICE_MS;
      while (index > 0 && performance.now() < until) log.measure(buildOlder(), width);
      if (index > 0) {
        setImmediate(step);
        return;
      }
      this.pending = undefined;
      log.release();
      tui.requestRender();
    };
    setTimeout(step, 0);
  }
}
