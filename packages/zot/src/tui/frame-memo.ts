// Keeps a pi-tui frame's cost flat as the transcript grows. Every frame pi-tui appends a reset
// sequence to every line (a new string each time) and then compares old and new lines by value,
// so each frame costs the whole transcript's characters. Remembering the finished string of each
// line returns the very same string for an unchanged line, which compares by identity at once.
// pi-tui has no public hook for this step: the patch goes through tui/pi-tui-internals.ts, and
// without it (a pi-tui whose private methods changed) frames are the same, only slower.
import type { TUI } from '@mariozechner/pi-tui';
import { wrapFrameSteps } from './pi-tui-internals.js';

const KITTY_PREFIX = '\x1b_G';

/** Returns false (and changes nothing, after a note through `warn`) when pi-tui has changed. */
export function memoizeFrames(tui: TUI, warn?: (line: string) => void): boolean {
  return wrapFrameSteps(
    tui,
    (original) => {
      // Raw line -> finished line, for the lines of recent frames; pruned when it grows past
      // twice the frame (a long stream changes only its last lines, so most stay in use).
      const finished = new Map<string, string>();
      // Finished lines that carry a Kitty image sequence (zot draws none, so this stays empty).
      const imageLines = new Set<string>();
      return {
        applyLineResets(lines: string[]): string[] {
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
          if (fresh.length === 0) return lines;
          if (finished.size + fresh.length > 2 * lines.length + 64) {
            finished.clear();
            imageLines.clear();
          }
          const made = original.applyLineResets(fresh.slice());
          for (let k = 0; k < fresh.length; k++) {
            finished.set(fresh[k]!, made[k]!);
            if (made[k]!.includes(KITTY_PREFIX)) imageLines.add(made[k]!);
            lines[freshAt[k]!] = made[k]!;
          }
          return lines;
        },
        collectKittyImageIds(lines: string[]): Set<number> {
          if (imageLines.size === 0) return new Set();
          return original.collectKittyImageIds(
            lines.filter((line) => imageLines.has(line) || line.includes(KITTY_PREFIX)),
          );
        },
      };
    },
    warn,
  );
}
