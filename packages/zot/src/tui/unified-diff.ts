// A unified diff as text (an extension's `{"kind":"diff"}` details) read into the structured
// diff the edit tool reports, so one renderer (diff-view.ts) draws both. Lenient: lines outside
// hunks (`diff --git`, `index`, `---`/`+++` headers) are skipped, a hunk header without counts
// counts 1, and a diff with no hunk at all is shown as added/removed/context lines as they are.
import type { EditDetails } from '../contract/tool-details.js';

const HUNK = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;

/** Contract: pure, linear in the text, never throws. */
export function parseUnifiedDiff(text: string): EditDetails {
  const details: EditDetails = { kind: 'edit', path: '', added: 0, removed: 0, hunks: [] };
  let hunk: EditDetails['hunks'][number] | undefined;
  for (const line of text.split('\n')) {
    const header = HUNK.exec(line);
    if (header) {
      hunk = {
        old_start: Number(header[1]),
        old_lines: header[2] === undefined ? 1 : Number(header[2]),
        new_start: Number(header[3]),
        new_lines: header[4] === undefined ? 1 : Number(header[4]),
        lines: [],
      };
      details.hunks.push(hunk);
      continue;
    }
    if (line.startsWith('+++ ') && !hunk) {
      details.path = line.slice(4).replace(/^b\//, '');
      continue;
    }
    if (!hunk) {
      if (line.startsWith('--- ') || line.startsWith('diff ') || line.startsWith('index '))
        continue;
      // No hunk header yet: a bare list of changes still reads as one.
      if (!/^[-+ ]/.test(line)) continue;
      hunk = { old_start: 1, old_lines: 0, new_start: 1, new_lines: 0, lines: [] };
      details.hunks.push(hunk);
    }
    const marker = line[0];
    if (marker === '+') details.added++;
    else if (marker === '-') details.removed++;
    else if (marker !== ' ' && marker !== '\\') continue;
    hunk.lines.push(line);
  }
  return details;
}
