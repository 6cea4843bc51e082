// The keystroke baseline: a raw-mode program that writes each key straight back to the terminal,
// wrapped in the same synchronized-output markers a TUI frame ends with, and nothing else.
process.stdin.setRawMode(true);
process.stdout.write('ready\x1b[?2026l');
process.stdin.on('data', (data) => {
  if (data.includes(3)) process.exit(0);
  process.stdout.write(`\x1b[?2026h${data.toString('utf8')}\x1b[?2026l`);
});
