// Keeps a pi-tui frame's cost flat as the transcript grows. Every frame pi-tui appends a reset
// sequence to every line (a new string each time) and then compares old and new lines by value,
// so each frame costs the whole transcript's characters. Remembering the finished string of each
// line returns the very same string for an unchanged line, which compares by identity at once.
// On the way, a line wider than the terminal is cut to its width: pi-tui would stop the whole UI
// with an error (and write a crash log under ~/.pi) for one widget's mistake.
// (Patched on the instance: these are private methods of pi-tui 0.73.1, checked by a test.)
import { truncateToWidth, visibleWidth, TUI } from '@mariozechner/pi-tui';

type Internals = {
  applyLineResets(lines: string[]): string[];
  collectKittyImageIds(lines: string[]): Set<number>;
};

const KITTY_PREFIX = '\x1b_G';

/** Returns false (and changes nothing) when pi-tui no longer has the methods it patches. */
export function memoizeFrames(tui: TUI): boolean {
  const target = tui as unknown as Internals;
  const original = target.applyLineResets;
  const originalIds = target.collectKittyImageIds;
  if (typeof original !== 'function' || typeof originalIds !== 'function') return false;
  // Raw line -> finished line, for the lines of recent frames; pruned when it grows past twice
  // the frame (a long stream changes only its last lines, so most entries stay in use).
  const finished = new Map<string, string>();
  // Finished lines that carry a Kitty image sequence (zot draws none, so this stays empty).
  const imageLines = new Set<string>();
  let width = -1;
  target.applyLineResets = function (this: TUI, lines: string[]): string[] {
    // A line cut for one width is not the line for another.
    if (this.terminal.columns !== width) {
      width = this.terminal.columns;
      finished.clear();
      imageLines.clear();
    }
    const fresh: string[] = [];
    const freshAt: number[] = [];
    for (let i = 0; i < lines.length; i++) {
      const done = finished.get(lines[i]!);
      if (done !== undefined) lines[i] = done;
      else {
        fresh.push(lines[i]!);
        freshAt.push(i);
      }
    }
    if (fresh.length > 0) {
      if (finished.size + fresh.length > 2 * lines.length + 64) {
        finished.clear();
        imageLines.clear();
      }
      const fitted = fresh.map((line) =>
        visibleWidth(line) > width && !line.includes(KITTY_PREFIX)
          ? truncateToWidth(line, width, '')
          : line,
      );
      const made = original.call(this, fitted);
      for (let k = 0; k < fresh.length; k++) {
        finished.set(fresh[k]!, made[k]!);
        if (made[k]!.includes(KITTY_PREFIX)) imageLines.add(made[k]!);
        lines[freshAt[k]!] = made[k]!;
      }
    }
    return lines;
  };
  target.collectKittyImageIds = function (lines: string[]): Set<number> {
    if (imageLines.size === 0) return new Set();
    return originalIds.call(
      this,
      lines.filter((line) => imageLines.has(line) || line.includes(KITTY_PREFIX)),
    );
  };
  return true;
}
