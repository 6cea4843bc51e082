// An extension's panel in the TUI, in a real pseudo-terminal: a typed key goes to the extension
// as panel_key and its panel_render comes back on screen. Against the least such a round trip
// can cost, measured in the same run: a line to a child process over a pipe and back (raw), plus
// one frame: the TUI draws at most one frame per MIN_RENDER_INTERVAL_MS, and the key itself
// already drew one (its panel had not changed yet). The editor's own key-to-frame time is
// reported beside it.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { TUI } from '@mariozechner/pi-tui';
import { rounds, summarize, ZOT_MAIN } from '../lib/common.mjs';
import { drivePty, FRAME_END } from '../lib/pty.mjs';

const PANEL_EXT = fileURLToPath(new URL('../support/panel-ext.mjs', import.meta.url));
const RAW_PIPE = fileURLToPath(new URL('../support/raw-pipe-roundtrip.mjs', import.meta.url));
const KEYS = ['a', 'b', 'c', 'd', 'e', 'f'];

async function rawPipe() {
  const { stdout } = await promisify(execFile)(process.execPath, [RAW_PIPE, String(KEYS.length)]);
  return JSON.parse(stdout);
}

export async function run(options) {
  const dir = mkdtempSync(join(tmpdir(), 'zot-bench-panel-'));
  const home = join(dir, 'home');
  const cwd = join(dir, 'work');
  const ext = join(dir, 'benchpanel');
  for (const path of [home, cwd, ext]) mkdirSync(path);
  writeFileSync(
    join(ext, 'extension.json'),
    JSON.stringify({ name: 'benchpanel', exec: 'node', args: [PANEL_EXT] }),
  );
  const zot = (withPanel) => ({
    columns: 120,
    rows: 40,
    ready: FRAME_END,
    timeout_ms: 20_000,
    argv: [
      process.execPath,
      ZOT_MAIN,
      '--no-session',
      '--api-key',
      'k',
      '--base-url',
      'http://127.0.0.1:9',
      ...(withPanel ? ['--ext', ext] : []),
    ],
    cwd,
    env: { ZOT_HOME: home },
    keys: KEYS,
    key_gap_ms: 40,
    ...(withPanel
      ? {
          setup: '/bench\r',
          setup_echo: 'typed:',
          echoes: KEYS.map((_, i) => `typed:${KEYS.slice(0, i + 1).join('')}`),
          quit: '\x1b\x03\x03\x03',
        }
      : { echo: FRAME_END, quit: '\x03\x03\x03' }),
  });
  try {
    const samples = { raw: [], frame: [], panel: [] };
    const n = rounds(options, 10, 3);
    for (let i = 0; i < n + 1; i++) {
      const raw = await rawPipe();
      const frame = (await drivePty(zot(false))).key_ms;
      const panel = (await drivePty(zot(true))).key_ms;
      if (i === 0) continue; // warm-up: disk caches, the first compile
      samples.raw.push(...raw);
      samples.frame.push(...frame);
      samples.panel.push(...panel);
    }
    const raw = summarize(samples.raw);
    const frame = summarize(samples.frame);
    const panel = summarize(samples.panel);
    const frameMs = TUI.MIN_RENDER_INTERVAL_MS;
    const allowed = 2 * raw.median + frameMs;
    return {
      name: 'tui-panel',
      rows: [
        {
          metric: `panel key -> panel_render on screen vs raw pipe round trip (editor key -> frame: ${frame.median.toFixed(2)} ms)`,
          unit: 'ms',
          baseline: raw,
          subject: panel,
          ratio: Math.round((panel.median / raw.median) * 1000) / 1000,
          target: `<= 2x raw + one ${frameMs} ms frame (${allowed.toFixed(2)} ms)`,
          pass: panel.median <= allowed,
        },
      ],
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
