// What zot tells the terminal besides the screen: the window title (`zot · name · directory`)
// and OSC 133 prompt marks before each prompt in the transcript, so a terminal that knows them
// (kitty, WezTerm, iTerm2, Ghostty, VS Code, tmux 3.4+) jumps from prompt to prompt. Both are
// made from text zot controls (a mark is a constant; a title's parts lose every control
// character), and both are off on a terminal that is not one (TERM=dumb, no TTY). Colour has
// nothing to do with them: NO_COLOR leaves them on.
import { basename } from 'node:path';
import type { Terminal } from '@mariozechner/pi-tui';
import type { RuntimeState } from '../../contract/state.js';

/** OSC 133;A: a prompt starts here. */
export const PROMPT_MARK = '\x1b]133;A\x07';
/** Characters a title keeps at most (terminals cut long titles anyway). */
export const TITLE_MAX = 80;

/** Whether to send titles and marks: a real terminal that is not `dumb`. */
export function terminalMarksOn(env: NodeJS.ProcessEnv, isTTY: boolean): boolean {
  return isTTY && (env.TERM ?? '') !== 'dumb';
}

/**
 * `text` as a title may carry it: no control characters (C0, DEL, C1: an ESC or BEL would end
 * the title's escape and the rest would reach the terminal as commands), no bidirectional
 * overrides, no zero-width space, byte-order mark or tag character (they hide text), whitespace
 * runs as one space, at most TITLE_MAX characters.
 */
export function safeTitle(text: string): string {
  const clean = text
    .replace(
      /[\u0000-\u001f\u007f-\u009f\u200b\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff\u{e0000}-\u{e007f}]+/gu,
      ' ',
    )
    .replace(/\s+/g, ' ')
    .trim();
  const chars = [...clean];
  return chars.length <= TITLE_MAX ? clean : `${chars.slice(0, TITLE_MAX - 1).join('')}…`;
}

/** `zot · deploy work · project`, or `zot · project` for a session without a name. */
export function windowTitle(state: Pick<RuntimeState, 'cwd' | 'session_name'>): string {
  const dir = basename(state.cwd) || state.cwd;
  const name = state.session_name !== undefined ? safeTitle(state.session_name) : '';
  return safeTitle(['zot', name, safeTitle(dir)].filter((part) => part !== '').join(' · '));
}

/**
 * Keeps the window title in step with the session; the title the terminal had before is pushed
 * on its title stack at start and popped back at `close` (terminals without one ignore both).
 */
export class WindowTitle {
  private shown: string | undefined;

  constructor(
    private readonly terminal: Terminal,
    private readonly enabled: boolean,
  ) {
    if (enabled) terminal.write('\x1b[22;0t');
  }

  update(state: Pick<RuntimeState, 'cwd' | 'session_name'>): void {
    if (!this.enabled) return;
    const title = windowTitle(state);
    if (title === this.shown) return;
    this.shown = title;
    this.terminal.setTitle(title);
  }

  close(): void {
    if (this.enabled && this.shown !== undefined) this.terminal.write('\x1b[23;0t');
  }
}
