// Applying exact-text replacements in order, all or nothing. Pure: no I/O.

export interface TextEdit {
  oldText: string;
  newText: string;
}

export type Eol = '\n' | '\r\n';

export type EditResult = { ok: true; text: string } | { ok: false; message: string };

/** Occurrences of `needle` in `haystack`, overlapping ones included (they are ambiguous too). */
export function countMatches(haystack: string, needle: string): number {
  if (needle === '') return 0;
  let count = 0;
  for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + 1)) {
    count++;
  }
  return count;
}

/** CRLF when at least half of the line endings are CRLF. */
export function detectEol(text: string): Eol {
  const crlf = countMatches(text, '\r\n');
  const lf = countMatches(text, '\n');
  return crlf > 0 && crlf * 2 >= lf ? '\r\n' : '\n';
}

export function toEol(text: string, eol: Eol): string {
  const lf = text.replace(/\r\n/g, '\n');
  return eol === '\n' ? lf : lf.replace(/\n/g, '\r\n');
}

/** A whitespace-insensitive form, used only to hint at near misses. */
function loose(text: string): string {
  return text
    .split(/\r?\n/)
    .map((line) => line.trim().replace(/\s+/g, ' '))
    .filter((line) => line !== '')
    .join('\n');
}

function zeroMatchHint(original: string, current: string, oldText: string, index: number): string {
  if (index > 0 && countMatches(original, oldText) > 0) {
    return 'it matches the original file, so an earlier edit in this call changed that text';
  }
  const wanted = loose(oldText);
  if (wanted !== '' && loose(current).includes(wanted)) {
    return (
      'a match exists when whitespace is ignored; copy indentation, tabs and spaces ' +
      'exactly (re-read the file)'
    );
  }
  return 're-read the file and copy the text exactly';
}

/**
 * Applies `edits` to `text` one after another; each `oldText` must occur exactly once in
 * the text as it is at its turn. `oldText` and `newText` are converted to the file's line
 * endings, so a CRLF file stays CRLF.
 * Contract: pure and never throws; on any failure returns a message naming the edit
 * index and match count, and no edit counts as applied.
 */
export function applyEdits(text: string, edits: TextEdit[], eol: Eol, path: string): EditResult {
  let current = text;
  for (const [index, edit] of edits.entries()) {
    const where = `edits[${index}].oldText`;
    if (edit.oldText === '') {
      return fail(`${where} is empty; give the exact text to replace (use write for whole files)`);
    }
    let oldText = toEol(edit.oldText, eol);
    let newText = toEol(edit.newText, eol);
    let count = countMatches(current, oldText);
    if (count === 0 && eol === '\r\n') {
      // Files with mixed endings: the LF form may be the one that is there.
      const lfCount = countMatches(current, toEol(edit.oldText, '\n'));
      if (lfCount > 0) {
        oldText = toEol(edit.oldText, '\n');
        newText = toEol(edit.newText, '\n');
        count = lfCount;
      }
    }
    if (count === 0) {
      const hint = zeroMatchHint(text, current, oldText, index);
      return fail(`${where} matched 0 times in ${path}; ${hint}`);
    }
    if (count > 1) {
      return fail(
        `${where} matched ${count} times in ${path}; it must match exactly once, ` +
          `so include more surrounding lines to make it unique`,
      );
    }
    const at = current.indexOf(oldText);
    // Concatenation, not String.replace: `$&` and friends in newText must stay literal.
    current = current.slice(0, at) + newText + current.slice(at + oldText.length);
  }
  return { ok: true, text: current };
}

function fail(message: string): EditResult {
  return { ok: false, message: `edit: ${message}. No edits were applied.` };
}
