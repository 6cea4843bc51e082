// The root of zot's screen: its children's lines, each cut to the terminal's width. pi-tui stops
// the whole UI with an error (and writes a crash log under ~/.pi) when one line is too wide, so
// one widget's mistake would end the session. The cut lines are kept, so an unchanged line is
// the very same string next frame (cheap for pi-tui to compare, and for tui/frame-memo.ts).
import { Container, truncateToWidth, visibleWidth } from '@mariozechner/pi-tui';

const KITTY_PREFIX = '\x1b_G';

export class FittedFrame extends Container {
  /** Raw line -> fitted line, for the last frames at `width`. */
  private fitted = new Map<string, string>();
  private width = -1;

  override render(width: number): string[] {
    const lines = super.render(width);
    // A line cut for one width is not the line for another.
    if (width !== this.width || this.fitted.size > 2 * lines.length + 64) {
      this.width = width;
      this.fitted.clear();
    }
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i]!;
      let done = this.fitted.get(line);
      if (done === undefined) {
        done =
          visibleWidth(line) > width && !line.includes(KITTY_PREFIX)
            ? truncateToWidth(line, width, '')
            : line;
        this.fitted.set(line, done);
      }
      lines[i] = done;
    }
    return lines;
  }
}
