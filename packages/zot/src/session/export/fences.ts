// Fenced code blocks in Markdown text (CommonMark's rule: a line of three or more backticks or
// tildes, indented at most three spaces, opens a block that a line of at least as many of the
// same character closes). Used to show model text's code as code, and to keep an export's own
// fences from being broken by the text inside them.

const OPENER = /^ {0,3}(`{3,}|~{3,})(.*)$/;

interface Fence {
  char: string;
  length: number;
}

function opens(line: string): Fence | undefined {
  const match = OPENER.exec(line);
  if (!match) return undefined;
  const run = match[1]!;
  // A backtick fence's info string cannot hold a backtick (then it is inline code).
  if (run[0] === '`' && match[2]!.includes('`')) return undefined;
  return { char: run[0]!, length: run.length };
}

function closes(line: string, fence: Fence): boolean {
  const match = /^ {0,3}(`+|~+)[ \t]*$/.exec(line);
  return !!match && match[1]![0] === fence.char && match[1]!.length >= fence.length;
}

export interface TextPart {
  code: boolean;
  /** For code: the lines between the fences (an unclosed block runs to the end). */
  text: string;
}

/** `text` as prose and code parts, in order. Contract: linear; never throws. */
export function splitFences(text: string): TextPart[] {
  const parts: TextPart[] = [];
  let prose: string[] = [];
  let code: string[] | undefined;
  let fence: Fence | undefined;
  for (const line of text.split('\n')) {
    if (fence) {
      if (closes(line, fence)) {
        parts.push({ code: true, text: code!.join('\n') });
        fence = undefined;
        code = undefined;
      } else code!.push(line);
      continue;
    }
    fence = opens(line);
    if (fence) {
      if (prose.length > 0) parts.push({ code: false, text: prose.join('\n') });
      prose = [];
      code = [];
    } else prose.push(line);
  }
  if (code) parts.push({ code: true, text: code.join('\n') });
  else if (prose.length > 0) parts.push({ code: false, text: prose.join('\n') });
  return parts;
}

/** The fence `text` leaves open at its end (a line that closes it), if any. */
export function unclosedFence(text: string): string | undefined {
  let fence: Fence | undefined;
  for (const line of text.split('\n')) {
    if (fence) {
      if (closes(line, fence)) fence = undefined;
    } else fence = opens(line);
  }
  return fence ? fence.char.repeat(fence.length) : undefined;
}

/** A backtick fence longer than any run of backticks in `text` (at least three). */
export function fenceFor(text: string): string {
  let longest = 0;
  for (const run of text.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  return '`'.repeat(Math.max(3, longest + 1));
}
