// The transcript on screen: turns session events into widgets in the TUI's chat container.
// (Placeholder implementation: plain text rows. The real one renders markdown, tool rows,
// thinking blocks and the working indicator; its interface stays as below.)
import { Container, Text, type TUI } from '@mariozechner/pi-tui';
import type { Message } from '../../../contract/content.js';
import type { SessionEvent } from '../../../contract/events.js';
import type { Theme } from '../../../tui/theme.js';

export interface ChatViewOptions {
  tui: TUI;
  theme: Theme;
  /** Injected for tests; `Date.now` otherwise. */
  now?: () => number;
}

/**
 * Contract: `handle` accepts every SessionEvent (ignoring those it does not show) and never
 * throws; `replay` draws a loaded transcript the way it looked live, tool rows included.
 */
export class ChatView {
  readonly container = new Container();

  constructor(private readonly options: ChatViewOptions) {}

  handle(event: SessionEvent): void {
    if (event.type === 'user_message') this.line(`> ${textOfContent(event.content)}`);
    else if (event.type === 'assistant_message') this.line(textOfContent(event.content));
    else if (event.type === 'error') this.line(this.options.theme.error(`error: ${event.message}`));
    this.options.tui.requestRender();
  }

  replay(messages: readonly Message[]): void {
    for (const message of messages) this.line(textOfContent(message.content));
    this.options.tui.requestRender();
  }

  /** Expands or collapses every tool result and thinking block at once (ctrl+o). */
  toggleExpanded(): void {}

  /** A one-shot styled block that is not part of the transcript (`/help`, `display`). */
  display(text: string): void {
    this.line(text);
    this.options.tui.requestRender();
  }

  /** Removes everything shown (`/clear`, `/new`, before a resumed transcript is replayed). */
  clear(): void {
    this.container.clear();
    this.options.tui.requestRender();
  }

  private line(text: string): void {
    this.container.addChild(new Text(text, 0, 0));
  }
}

function textOfContent(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((block) => (block && block.type === 'text' ? String(block.text) : ''))
    .join('');
}
