// The panel bench's baseline: one line to a child process over a pipe and one line back, the
// least any extension round trip can cost. Prints the round trips in ms as one JSON array.
import { spawn } from 'node:child_process';

const count = Number(process.argv[2] ?? 20);
const child = spawn(
  process.execPath,
  ['-e', "process.stdin.setEncoding('utf8');process.stdin.on('data',d=>process.stdout.write(d))"],
  { stdio: ['pipe', 'pipe', 'inherit'] },
);
child.stdout.setEncoding('utf8');
const times = [];
let warm = false;
let sent = 0;
const next = () => {
  sent = performance.now();
  child.stdin.write(`{"type":"panel_key","panel_id":"bench","key":"rune","text":"x"}\n`);
};
child.stdout.on('data', () => {
  // The first answer only shows the child is up: its start-up is not a round trip.
  if (warm) times.push(performance.now() - sent);
  warm = true;
  if (times.length === count) {
    process.stdout.write(JSON.stringify(times) + '\n');
    child.kill();
  } else next();
});
child.stdin.write('warm-up\n');
