// The TUI in a real pseudo-terminal (bench/support/pty-driver.py): spawn to the first drawn
// frame vs a bare Node program drawing one frame, and keystroke to updated frame vs a raw-mode
// program echoing the same key, both measured in the same run through the same pty.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { interleave, row, rounds, ZOT_MAIN } from '../lib/common.mjs';
import { drivePty, FRAME_END } from '../lib/pty.mjs';

const RAW_ECHO = fileURLToPath(new URL('../support/raw-echo.mjs', import.meta.url));
const KEYS = ['a', 'b', 'c', 'd', 'e'];

export async function run(options) {
  const dir = mkdtempSync(join(tmpdir(), 'zot-bench-tui-'));
  const home = join(dir, 'home');
  const cwd = join(dir, 'work');
  mkdirSync(home);
  mkdirSync(cwd);
  const common = { columns: 120, rows: 40, ready: FRAME_END, echo: FRAME_END, timeout_ms: 20_000 };
  const zot = {
    ...common,
    argv: [
      process.execPath,
      ZOT_MAIN,
      '--no-session',
      '--api-key',
      'k',
      '--base-url',
      'http://127.0.0.1:9',
    ],
    cwd,
    env: { ZOT_HOME: home },
    keys: KEYS,
    key_gap_ms: 40,
    // Clear the typed text, then exit with two presses.
    quit: '\x03\x03\x03',
  };
  const raw = {
    ...common,
    argv: [process.execPath, RAW_ECHO],
    keys: KEYS,
    key_gap_ms: 40,
    quit: '\x03',
  };
  const bytes = [];
  try {
    const fns = {
      raw: async () => drivePty(raw),
      zot: async () => {
        const result = await drivePty(zot);
        bytes.push(result.bytes_at_ready);
        return result;
      },
    };
    const results = { raw: [], zot: [] };
    await interleave(rounds(options, 1, 1), { raw: fns.raw, zot: fns.zot });
    const n = rounds(options, 12, 4);
    for (let i = 0; i < n; i++) {
      results.raw.push(await fns.raw());
      results.zot.push(await fns.zot());
    }
    const ready = (list) => list.map((r) => r.ready_ms);
    const keys = (list) => list.flatMap((r) => r.key_ms);
    return {
      name: 'tui',
      rows: [
        row(
          'zot TUI: spawn -> first frame vs node drawing one frame',
          ready(results.raw),
          ready(results.zot),
          { maxRatio: 2 },
          {
            firstFrameBytes: bytes.at(-1),
          },
        ),
        row('zot TUI: key -> updated frame vs raw echo', keys(results.raw), keys(results.zot), {
          maxRatio: 10,
        }),
      ],
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
