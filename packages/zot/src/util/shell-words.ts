// How a command line is shown to a person deciding whether to run it: words that a POSIX shell
// would split or expand are single-quoted, so what is shown is exactly what runs. A word holding
// a line break, a tab or any character that is not drawn as itself is written in ANSI-C quoting
// (`$'print(1)\nimport os'`, as bash, zsh and ksh read it): the command stays on one line and
// nothing in it is hidden or interpreted by the terminal.
import { terminalSafe } from './terminal-text.js';

const NAMED: Record<string, string> = {
  '\n': '\\n',
  '\t': '\\t',
  '\r': '\\r',
  '\\': '\\\\',
  "'": "\\'",
};

function ansiC(word: string): string {
  let out = '';
  for (const char of word) {
    const named = NAMED[char];
    if (named) out += named;
    else if (char !== ' ' && terminalSafe(char) !== char) {
      const code = char.codePointAt(0)!;
      out +=
        code < 0x80
          ? `\\x${code.toString(16).padStart(2, '0')}`
          : code <= 0xffff
            ? `\\u${code.toString(16).padStart(4, '0')}`
            : `\\U${code.toString(16).padStart(8, '0')}`;
    } else out += char;
  }
  return `$'${out}'`;
}

export function shellQuote(word: string): string {
  if (/^[\w@%+=:,./-]+$/.test(word)) return word;
  if (word.includes('\t') || terminalSafe(word) !== word) return ansiC(word);
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

export function shellLine(argv: readonly string[]): string {
  return argv.map(shellQuote).join(' ');
}
