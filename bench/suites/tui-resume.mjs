// Typing in a long session: the TUI resumed on a 1,000-turn session (tool rows, code blocks,
// tables; packages/zot/test/support/long-session.ts) against the same TUI on a fresh session, in a real
// pseudo-terminal, in the same run: keystroke to the frame that shows it, and spawn to the first
// frame. A resumed transcript must not make each key (or the start) cost more.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, row, rounds, ZOT_MAIN } from '../lib/common.mjs';
import { drivePty, FRAME_END } from '../lib/pty.mjs';

const { writeLongSession } = await import(`${ROOT}packages/zot/dist/test/support/long-session.js`);

const KEYS = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];
const TURNS = 1000;

export async function run(options) {
  const dir = mkdtempSync(join(tmpdir(), 'zot-bench-tui-resume-'));
  const home = join(dir, 'home');
  const cwd = join(dir, 'work');
  mkdirSync(home);
  mkdirSync(cwd);
  const sessionFile = join(dir, 'long.jsonl');
  writeLongSession(sessionFile, { turns: TURNS, cwd });
  const spec = (session) => ({
    columns: 120,
    rows: 40,
    ready: FRAME_END,
    echo: FRAME_END,
    timeout_ms: 60_000,
    argv: [
      process.execPath,
      ZOT_MAIN,
      ...session,
      '--provider',
      'anthropic',
      '--api-key',
      'k',
      '--base-url',
      'http://127.0.0.1:9',
    ],
    cwd,
    env: { ZOT_HOME: home },
    keys: KEYS,
    key_gap_ms: 60,
    quit: '\x03\x03\x03',
  });
  // The resumed run must not grow the file: it is read only (no prompt is sent).
  const fresh = spec(['--no-session']);
  const resumed = spec(['--session', sessionFile]);
  try {
    const results = { fresh: [], resumed: [] };
    const loadBefore = loadavg()[0];
    await drivePty(fresh);
    await drivePty(resumed);
    const n = rounds(options, 10, 3);
    for (let i = 0; i < n; i++) {
      // Alternating, so that load on the machine falls on both alike.
      const order = i % 2 === 0 ? ['fresh', 'resumed'] : ['resumed', 'fresh'];
      for (const name of order)
        results[name].push(await drivePty(name === 'fresh' ? fresh : resumed));
    }
    const load = `load average ${loadBefore.toFixed(1)} before, ${loadavg()[0].toFixed(1)} after`;
    // The first key after the first frame can meet start-up work still under way (extensions,
    // the highlighter): it is left out of both.
    const keys = (list) => list.flatMap((r) => r.key_ms.slice(1));
    const ready = (list) => list.map((r) => r.ready_ms);
    // CPU time of zot's threads at its first frame: what start-up costs, whatever the load.
    const cpu = (list) => list.map((r) => r.cpu_ms_at_ready).filter((ms) => ms != null);
    return {
      name: 'tui-resume',
      rows: [
        row(
          `key -> frame: resumed ${TURNS}-turn session vs fresh session`,
          keys(results.fresh),
          keys(results.resumed),
          { maxRatio: 1.3 },
          { note: load },
        ),
        row(
          `spawn -> first frame: resumed ${TURNS}-turn session vs fresh start`,
          ready(results.fresh),
          ready(results.resumed),
          { maxRatio: 1.5 },
          { firstFrameBytes: results.resumed.at(-1)?.bytes_at_ready },
        ),
        ...(cpu(results.fresh).length === n && cpu(results.resumed).length === n
          ? [
              row(
                `CPU ms at the first frame: resumed ${TURNS}-turn session vs fresh start`,
                cpu(results.fresh),
                cpu(results.resumed),
                { maxRatio: 1.5 },
              ),
            ]
          : []),
      ],
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
