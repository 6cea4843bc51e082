// Keeps a pi-tui frame's cost flat as the transcript grows. Every frame pi-tui appends a reset
// sequence to every line (a new string each time) and then compares old and new lines by value,
// so each frame costs the whole transcript's characters. Remembering the finished string of each
// line returns the very same string for an unchanged line, which compares by identity at once;
// a line that is the same string at the same place as last frame is not even looked up.
// pi-tui has no public hook for this step: the patch goes through tui/pi-tui-internals.ts, and
// without it (a pi-tui whose private methods changed) frames are the same, only slower.
import type { TUI } from '@mariozechner/pi-tui';
import { wrapFrameSteps } from './pi-tui-internals.js';
import { leadingSame } from './fitted-frame.js';
import { SparseWrites } from './sparse-writes.js';

const KITTY_PREFIX = '\x1b_G';

/** Returns false (and changes nothing, after a note through `warn`) when pi-tui has changed. */
export function memoizeFrames(tui: TUI, warn?: (line: string) => void): boolean {
  return wrapFrameSteps(
    tui,
    (original, state) => {
      // Lines that did not change are not written again (tui/sparse-writes.ts).
      const sparse = new SparseWrites();
      const terminal = tui.terminal;
      const write = terminal.write.bind(terminal);
      terminal.write = (data: string) => write(sparse.filter(data));
      // Raw line -> finished line, for the lines of recent frames; pruned when it grows past
      // twice the frame (a long stream changes only its last lines, so most stay in use).
      const finished = new Map<string, string>();
      // Finished lines that carry a Kitty image sequence (zot draws none, so this stays empty).
      const imageLines = new Set<string>();
      // The last frame, raw and finished, index by index.
      let lastRaw: readonly string[] = [];
      let lastDone: readonly string[] = [];
      // The frame pi-tui is about to write, with the one on screen: what the write will hold.
      // `same` leading lines are last frame's finished lines, which the scan can skip when
      // pi-tui still holds that frame.
      const expect = (lines: string[], same: number, last: readonly string[]): string[] => {
        const previous = state.lastFrame();
        // pi-tui draws a first frame whole (nothing to skip); an image line is left to pi-tui.
        if (imageLines.size === 0 && previous.length > 0)
          sparse.expect(previous, lines, tui.terminal.rows, previous === last ? same : 0);
        return lines;
      };
      return {
        applyLineResets(lines: string[]): string[] {
          // A long transcript changes only at its end. The leading lines that are the very
          // strings of last frame (those its maker vouches for, then found by a scan that
          // writes nothing) keep their finished lines, copied in one block: a frame's cost
          // hardly grows with the transcript.
          const limit = Math.min(lines.length, lastRaw.length);
          let same = leadingSame(lines, lastRaw);
          while (same < limit && lines[same] === lastRaw[same]) same++;
          const done = lastDone.slice(0, same);
          const fresh: string[] = [];
          const freshAt: number[] = [];
          for (let i = same; i < lines.length; i++) {
            const line = lines[i]!;
            const known = line === lastRaw[i] ? lastDone[i] : finished.get(line);
            if (known !== undefined) done.push(known);
            else {
              fresh.push(line);
              freshAt.push(i);
              done.push(line);
            }
          }
          const last = lastDone;
          // `lines` is pi-tui's frame of this draw only: it is kept, never changed.
          lastRaw = lines;
          lastDone = done;
          if (fresh.length === 0) return expect(done, same, last);
          if (finished.size + fresh.length > 2 * lines.length + 64) {
            finished.clear();
            imageLines.clear();
          }
          const made = original.applyLineResets(fresh.slice());
          for (let k = 0; k < fresh.length; k++) {
            finished.set(fresh[k]!, made[k]!);
            if (made[k]!.includes(KITTY_PREFIX)) imageLines.add(made[k]!);
            done[freshAt[k]!] = made[k]!;
          }
          return expect(done, same, last);
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
