// How a command line is shown to a person deciding whether to run it: words that a POSIX shell
// would split or expand are single-quoted, so what is shown is exactly what runs.

export function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

export function shellLine(argv: readonly string[]): string {
  return argv.map(shellQuote).join(' ');
}
