// Replaying a loaded transcript into the chat: which messages are drawn (the last ones, from a
// prompt on), and, when a session is resumed, the newest screenful first and the older turns in
// short slices after that first frame. How one turn becomes blocks is the chat view's business.
import type { Component, TUI } from '@mariozechner/pi-tui';
import type { Message } from '../../../contract/content.js';
import { RESUMED_MESSAGES_DRAWN } from '../../../contract/front-end.js';
import type { SettledLog } from '../../../tui/settled-log.js';
import { groupedCount } from './message-parts.js';

/** The rows a first frame keeps for what is drawn under the chat (editor, status line, notes). */
const FRAME_ROWS_BELOW = 8;

/** The longest stretch the older part of a replayed transcript is built in, between frames and keys. */
const REPLAY_SLICE_MS = 8;

/** What the replay draws into: the chat view's log, and its way of building blocks. */
export interface ReplayTarget {
  readonly tui: TUI;
  readonly log: SettledLog;
  /**
   * A muted one-line notice at the end of the chat, or before `before`, `held` back or not;
   * returns its block.
   */
  notice(text: string, before?: Component, held?: boolean): Component;
  /** Takes a block away (a notice replaced by another). */
  remove(block: Component): void;
  /**
   * Builds one turn's blocks (its prompt, answers, tool rows), at the end or before `before`,
   * `held` back or not (SettledLog.insert). Returns the blocks it added, in order.
   */
  buildTurn(turn: readonly Message[], before?: Component, held?: boolean): Component[];
}

export interface ReplayOptions {
  limit?: number;
  firstScreen?: boolean;
  /**
   * The messages are the newest of a transcript still being read: after the first frame it is
   * read in slices, `read` until a performance.now() time; once it is whole, `read` returns how
   * many messages come before these (else undefined).
   */
  loading?: { read(until: number): number | undefined };
}

const earlierNotice = (count: number) =>
  `⋯ ${groupedCount(count)} earlier message${count === 1 ? '' : 's'} of this session not drawn (still in the model's context)`;

/** What stands in for that notice while the transcript is still being read. */
const READING_NOTICE = '⋯ reading the earlier messages of this session…';

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
    { limit = RESUMED_MESSAGES_DRAWN, firstScreen = false, loading }: ReplayOptions = {},
  ): void {
    const { tui, log } = this.target;
    this.cancel();
    let from = Math.max(0, messages.length - limit);
    while (from > 0 && from < messages.length && messages[from]!.role !== 'user') from++;
    if (from >= messages.length) from = Math.max(0, messages.length - limit);
    // While the transcript is read, how many come before is not known: the notice comes after.
    if (from > 0 && !loading) this.target.notice(earlierNotice(from));
    const turns = turnsOf(messages.slice(from));
    if (firstScreen || loading) {
      const { rows, columns } = tui.terminal;
      const rest = loading ? { ...loading, from } : undefined;
      this.newestFirst(turns, rows - FRAME_ROWS_BELOW - log.render(columns).length, rest);
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
  private newestFirst(
    turns: Message[][],
    lines: number,
    loading?: ReplayOptions['loading'] & { from: number },
  ): void {
    const { tui, log } = this.target;
    const width = tui.terminal.columns;
    let index = turns.length;
    let oldest: Component | undefined;
    const buildOlder = (): Component[] => {
      const added = this.target.buildTurn(turns[--index]!, oldest, true);
      oldest = added[0] ?? oldest;
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
    if (whole && !loading) return;
    const job = { cancelled: false };
    this.pending = job;
    const renders = log.renders;
    let reading: Component | undefined;
    let released = false;
    const step = () => {
      if (job.cancelled) return;
      // After the first frame: that one shows the newest turns as soon as it can.
      if (log.renders === renders) {
        setTimeout(step, REPLAY_SLICE_MS);
        return;
      }
      const until = performance.now() + REPLAY_SLICE_MS;
      if (!released) {
        while (index > 0 && performance.now() < until) log.measure(buildOlder(), width);
        if (index > 0) {
          setImmediate(step);
          return;
        }
        // The older turns are drawn above in one frame; a transcript still being read gets
        // its notice then (one line, changed in place later, so no line below it moves).
        released = true;
        if (loading) reading = this.target.notice(READING_NOTICE, oldest, true);
        log.release();
        tui.requestRender();
        if (loading) setImmediate(step);
        else this.pending = undefined;
        return;
      }
      // The rest of the file, in slices: keys typed meanwhile are read between them.
      const preceding = loading!.read(until);
      if (preceding === undefined) {
        setImmediate(step);
        return;
      }
      this.pending = undefined;
      const earlier = preceding + loading!.from;
      if (earlier > 0) this.target.notice(earlierNotice(earlier), reading);
      this.target.remove(reading!);
      tui.requestRender();
    };
    setTimeout(step, 0);
  }
}
