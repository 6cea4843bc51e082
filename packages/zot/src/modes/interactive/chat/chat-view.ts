// The transcript on screen: turns session events into widgets in the TUI's chat container (the
// user's prompts, streaming markdown, reasoning, tool rows, errors) and replays a loaded
// transcript the same way. It renders what the events say; it never asks the runtime.
import type { Component, TUI } from '@mariozechner/pi-tui';
import type { Message, ToolResultBlock } from '../../../contract/content.js';
import type { SessionEvent } from '../../../contract/events.js';
import type { ToolDetails } from '../../../contract/tool-details.js';
import { FittedFrame } from '../../../tui/fitted-frame.js';
import { parseUnifiedDiff } from '../../../tui/unified-diff.js';
import { preloadHighlighter } from '../../../tui/highlight.js';
import { MarkdownView } from '../../../tui/markdown-view.js';
import { SettledLog } from '../../../tui/settled-log.js';
import {
  FoldedBlock,
  StyledBlock,
  ThinkingBlock,
  UserMessageBlock,
} from '../../../tui/text-blocks.js';
import type { Style, Theme } from '../../../tui/theme.js';
import { ToolRow } from '../../../tui/tool-row.js';
import { WorkingIndicator } from '../../../tui/working-indicator.js';
import { ChatReplay, type ReplayOptions } from './chat-replay.js';
import { commandOf, mergedBlock, textOf, tokenCount, writtenOf } from './message-parts.js';

export interface ChatViewOptions {
  tui: TUI;
  theme: Theme;
  /** Injected for tests; `Date.now` otherwise. */
  now?: () => number;
  /** A replayed tool call's one-line preview (the runtime's, as live calls carry it). */
  preview?: (name: string, args: Record<string, unknown>) => string;
  /** Put before each prompt's first line (the terminal's prompt mark); none by default. */
  promptMark?: string;
}

/** The line that marks a cancelled reply. */
export const CANCELLED_TEXT = '⊘ reply cancelled';

/** Tools whose output matters at its end (a command's result), not at its start. */
const TAIL_TOOLS = new Set(['bash']);

type Expandable = { expanded: boolean };

const resultText = (content: ToolResultBlock['content']) =>
  content
    .map((block) => (block.type === 'text' ? block.text : `[image ${block.mime_type}]`))
    .join('\n');

/**
 * Contract: `handle` accepts every SessionEvent (ignoring those it does not show) and never
 * throws; `replay` draws a loaded transcript the way it looked live, tool rows included.
 */
export class ChatView {
  readonly container = new FittedFrame();
  /** Blocks are settled once they cannot change, so a frame draws only the live ones. */
  private readonly log = new SettledLog();
  private readonly working: WorkingIndicator;
  private readonly rows = new Map<string, ToolRow>();
  private readonly expandables: Expandable[] = [];
  private answer: MarkdownView | undefined;
  /** The blocks of the streamed answer that it handed to the log (settleAnswerBlocks). */
  private answerBlocks: Component[] = [];
  private thinking: ThinkingBlock | undefined;
  private expanded = false;
  private thinkingShown = true;
  private readonly thinkingBlocks: ThinkingBlock[] = [];
  private highlighting = false;
  private tagged: Array<{ tag: string; block: StyledBlock }> = [];
  /** Where `add` puts blocks while a replayed turn is built (at the end otherwise). */
  private insertion:
    | { before: Component | undefined; held: boolean; added: Component[] }
    | undefined;
  private readonly replayer: ChatReplay;

  constructor(private readonly options: ChatViewOptions) {
    this.working = new WorkingIndicator(
      options.theme,
      () => options.tui.requestRender(),
      options.now,
    );
    this.container.addChild(this.log);
    this.container.addChild(this.working);
    this.replayer = new ChatReplay({
      tui: options.tui,
      log: this.log,
      notice: (text, before, held = false) =>
        this.insertBefore(before, held, () => this.display(text, options.theme.muted))[0]!,
      remove: (block) => this.log.remove(block),
      buildTurn: (turn, before, held) => this.buildTurn(turn, before, held),
    });
  }

  /**
   * Loads the code highlighter once code streams in (not at start-up, nor for a replayed
   * transcript: the first frame comes first, and what is drawn is not drawn again).
   */
  private wantHighlighter(text: string): void {
    if (this.highlighting || !text.includes('`')) return;
    this.highlighting = true;
    // What is drawn stays as it is (redrawing it would rewrite the scrollback); the code that
    // comes after the highlighter is there is highlighted.
    void preloadHighlighter().then(() => this.options.tui.requestRender());
  }

  handle(event: SessionEvent): void {
    try {
      this.apply(event);
    } catch {
      // A view must never take the session down; the event is simply not shown.
    }
    this.options.tui.requestRender();
  }

  private apply(event: SessionEvent): void {
    const { theme } = this.options;
    switch (event.type) {
      case 'user_message':
        this.endAnswer();
        this.add(new UserMessageBlock(textOf(event.content), theme, this.options.promptMark), {
          expandable: true,
          settled: true,
        });
        this.working.show();
        break;
      case 'turn_start':
        this.endAnswer();
        this.working.show();
        break;
      case 'thinking_delta':
        this.working.show('thinking');
        if (!this.thinking) this.thinking = this.addThinking(new ThinkingBlock(theme), false);
        this.thinking.append(event.delta);
        break;
      case 'text_delta':
        this.working.hide();
        if (!this.answer) this.answer = this.add(new MarkdownView(theme));
        this.wantHighlighter(event.delta);
        this.answer.append(event.delta);
        this.settleAnswerBlocks();
        break;
      case 'tool_call_delta':
        this.working.hide();
        this.row(event.id, event.name);
        break;
      case 'tool_call':
        this.working.hide();
        this.row(event.id, event.name).start(
          event.preview,
          event.extension,
          commandOf(event.name, event.args),
          event.extension ? undefined : writtenOf(event.name, event.args),
        );
        break;
      case 'tool_progress':
        this.rows.get(event.id)?.progress(event.text);
        break;
      case 'tool_result':
        this.finishRow(event.id, event.is_error, event.content, event.details, event.extension);
        this.working.show();
        break;
      case 'assistant_message': {
        // While an extension held the stream back, the indicator stood in for it (design D15).
        this.working.hide();
        // The final text wins over the stream: an interceptor may have rewritten it.
        const text = textOf(event.content);
        if (text.trim() !== '') {
          if (!this.answer) this.answer = this.add(new MarkdownView(theme));
          if (text !== this.answer.text) {
            for (const block of this.answerBlocks.splice(0)) this.log.remove(block);
            this.answer.setText(text);
            this.settleAnswerBlocks();
          }
        }
        if (event.cancelled) this.cancelled();
        break;
      }
      case 'error':
        this.working.hide();
        this.display(`error: ${event.message}`, theme.error);
        break;
      case 'intercept': {
        // A block is news to the user (a rewrite shows in what follows): a red line with why.
        if (event.action !== 'block') break;
        const what = {
          tool_call: 'a tool call',
          turn_start: 'the turn',
          assistant_message: 'the answer',
        }[event.event];
        const why = event.reason ? `: ${event.reason}` : '';
        this.display(`${event.extension} blocked ${what}${why}`, theme.error);
        break;
      }
      case 'compact_done': {
        // One block a compaction: what it saved, and the summary behind ctrl+o.
        this.endAnswer();
        const counts =
          event.tokens_before !== undefined && event.tokens_after !== undefined
            ? `: ${tokenCount(event.tokens_before)} → ~${tokenCount(event.tokens_after)} tokens`
            : '';
        const headline = `compacted${counts}; older messages are now a summary`;
        this.add(new FoldedBlock(headline, event.summary, theme), {
          expandable: true,
          settled: true,
        });
        break;
      }
      case 'done':
        this.endAnswer();
        this.working.hide();
        for (const row of this.rows.values()) {
          if (row.running) row.finish({ isError: true, output: 'interrupted' });
          this.log.settle(row);
        }
        this.rows.clear();
        break;
    }
  }

  /** Draws a loaded transcript (see ChatReplay.replay): a resumed session's newest screenful first. */
  replay(messages: readonly Message[], options?: ReplayOptions): void {
    this.replayer.replay(messages, options);
  }

  /**
   * Builds one turn's blocks (its prompt, answers, tool rows), at the end or before `before`,
   * `held` back or not (SettledLog.insert). Returns the blocks it added, in order.
   */
  private buildTurn(turn: readonly Message[], before?: Component, held = false): Component[] {
    const { theme } = this.options;
    return this.insertBefore(before, held, () => {
      for (const message of turn) this.replayMessage(message, theme);
      this.rows.clear();
    });
  }

  /** Runs `add`, its blocks going before `before` (SettledLog.insert); returns them, in order. */
  private insertBefore(before: Component | undefined, held: boolean, add: () => void): Component[] {
    const added: Component[] = [];
    this.insertion = { before, held, added };
    try {
      add();
    } finally {
      this.insertion = undefined;
    }
    return added;
  }

  private replayMessage(message: Message, theme: Theme): void {
    const merged = message.role === 'user' ? mergedBlock(textOf(message.content)) : undefined;
    if (merged) {
      this.add(new FoldedBlock(merged.headline, merged.body, theme), {
        expandable: true,
        settled: true,
      });
    } else if (message.role === 'user') {
      this.add(new UserMessageBlock(textOf(message.content), theme, this.options.promptMark), {
        expandable: true,
        settled: true,
      });
    } else if (message.role === 'assistant') {
      for (const block of message.content) {
        if (block.type === 'thinking' && block.thinking.trim() !== '') {
          const thinking = new ThinkingBlock(theme);
          thinking.append(block.thinking);
          this.addThinking(thinking, true);
        } else if (block.type === 'text' && block.text.trim() !== '') {
          this.add(new MarkdownView(theme, block.text), { settled: true });
        } else if (block.type === 'tool_call') {
          this.row(block.id, block.name).start(
            this.options.preview?.(block.name, block.args) ?? '',
            undefined,
            commandOf(block.name, block.args),
            writtenOf(block.name, block.args),
          );
        }
      }
      if (message.cancelled) this.cancelled();
    } else {
      for (const result of message.content) {
        this.finishRow(
          result.call_id,
          result.is_error,
          result.content,
          result.details,
          result.attribution?.extension,
          false,
        );
      }
    }
    this.endAnswer();
  }

  /** Expands or collapses every tool result and thinking block at once (ctrl+o). */
  toggleExpanded(): void {
    this.expanded = !this.expanded;
    for (const item of this.expandables) item.expanded = this.expanded;
    this.log.redraw();
    this.options.tui.requestRender();
  }

  get showsThinking(): boolean {
    return this.thinkingShown;
  }

  /** Shows or hides the model's reasoning (ctrl+t): hidden, a block is one line saying so. */
  setThinkingShown(shown: boolean): void {
    if (shown === this.thinkingShown) return;
    this.thinkingShown = shown;
    for (const block of this.thinkingBlocks) block.hidden = !shown;
    this.log.redraw();
    this.options.tui.requestRender();
  }

  private addThinking(block: ThinkingBlock, settled: boolean): ThinkingBlock {
    block.hidden = !this.thinkingShown;
    this.thinkingBlocks.push(block);
    return this.add(block, { expandable: true, settled });
  }

  /**
   * A one-shot block that is not part of the transcript (`/help`, `display`, notices): `text`
   * is plain and made safe for the terminal, then styled; `heading` (styled) goes above it.
   */
  display(text: string, style: Style = (s) => s, heading?: string, tag?: string): void {
    const block = this.add(new StyledBlock(text, style, '', heading), { settled: true });
    if (tag) this.tagged.push({ tag, block });
    this.options.tui.requestRender();
  }

  /** A command line as it was sent (`/reverse stressed`), drawn like a prompt; not in the transcript. */
  echo(text: string): void {
    this.add(new UserMessageBlock(text, this.options.theme, this.options.promptMark), {
      expandable: true,
      settled: true,
    });
    this.options.tui.requestRender();
  }

  /** Takes away the blocks shown with `tag` (extension failures after a clean reload). */
  removeTagged(tag: string): void {
    for (const { block } of this.tagged.filter((entry) => entry.tag === tag)) {
      this.log.remove(block);
    }
    this.tagged = this.tagged.filter((entry) => entry.tag !== tag);
    this.options.tui.requestRender();
  }

  /** Removes everything shown (`/clear`, `/new`, before a resumed transcript is replayed). */
  clear(): void {
    this.replayer.cancel();
    this.log.clear();
    this.tagged = [];
    this.rows.clear();
    this.expandables.length = 0;
    this.thinkingBlocks.length = 0;
    this.answer = undefined;
    this.answerBlocks = [];
    this.thinking = undefined;
    this.working.hide();
    this.options.tui.requestRender();
  }

  /** Adds a block; a settled one is complete (a prompt, a notice, a replayed answer). */
  private add<T extends Component>(
    component: T,
    { expandable = false, settled = false }: { expandable?: boolean; settled?: boolean } = {},
  ): T {
    const at = this.insertion;
    if (at) {
      this.log.insert(component, settled, at.before, at.held);
      at.added.push(component);
    } else this.log.add(component, settled);
    if (expandable && 'expanded' in component) {
      (component as unknown as Expandable).expanded = this.expanded;
      this.expandables.push(component as unknown as Expandable);
    }
    return component;
  }

  private row(id: string, name: string): ToolRow {
    let row = this.rows.get(id);
    if (!row) {
      const now = this.options.now;
      this.endAnswer();
      row = this.add(
        new ToolRow({
          theme: this.options.theme,
          name,
          show: TAIL_TOOLS.has(name) ? 'tail' : 'head',
          ...(now ? { now } : {}),
        }),
        { expandable: true },
      );
      this.rows.set(id, row);
    }
    return row;
  }

  private finishRow(
    id: string,
    isError: boolean,
    content: ToolResultBlock['content'],
    details: ToolDetails | undefined,
    extension: string | undefined,
    timed = true,
  ): void {
    const row = this.rows.get(id) ?? this.row(id, 'tool');
    row.finish({
      timed,
      isError,
      output: resultText(content),
      ...(details?.kind === 'edit' ? { diff: details } : {}),
      ...(details?.kind === 'diff' ? { diff: parseUnifiedDiff(details.diff) } : {}),
      ...(details?.kind === 'table' ? { table: details } : {}),
      ...(details?.kind === 'write' ? { wroteBytes: details.bytes } : {}),
      ...(extension ? { extension } : {}),
    });
    this.log.settle(row);
  }

  /** Where the user cancelled the reply (live, and when a transcript is read back). */
  private cancelled(): void {
    this.endAnswer();
    this.working.hide();
    this.display(CANCELLED_TEXT, this.options.theme.warning);
  }

  /**
   * The streamed answer's finished blocks go into the log as settled blocks of their own, before
   * it: a frame then renders only the block still growing, however long the answer gets.
   */
  private settleAnswerBlocks(): void {
    const answer = this.answer;
    if (!answer) return;
    for (const block of answer.takeFrozen()) {
      this.log.insert(block, true, answer, false);
      this.answerBlocks.push(block);
    }
  }

  /** The next text starts a new block (after a tool call, a new turn or a prompt). */
  private endAnswer(): void {
    this.answerBlocks = [];
    if (this.answer) this.log.settle(this.answer);
    if (this.thinking) this.log.settle(this.thinking);
    this.answer = undefined;
    this.thinking = undefined;
  }
}
