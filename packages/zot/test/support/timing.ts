// Test deadlines derived from how slow this machine is right now, never from a guess.
//
// Under load (6 engineers on 2 cores) one interpreter start-up can take a second, so a fixed
// 1500 ms hello deadline fires although nothing is wrong. Instead we time the fixture
// interpreters once per test process and make every deadline a multiple of that, with a floor
// that keeps failure-path tests (which wait for a timeout to fire) fast on an idle machine.
import { spawnSync } from 'node:child_process';
import { NODE_FIXTURE, PY_FIXTURE } from './fixture-paths.js';

/** Start-ups per interpreter; the slowest counts, as one sample can hit a quiet moment. */
const SAMPLES = 2;
/** A fixture start-up on this machine when idle; hang guards scale by start-up / this. */
const IDLE_STARTUP_MS = 100;

let measured: number | undefined;

/** Milliseconds from spawn to exit of a fixture that writes one line and exits. */
function sample(command: string, fixture: string): number | undefined {
  const started = performance.now();
  const result = spawnSync(command, [fixture, 'exit-before-hello', '{"status":0}'], {
    stdio: 'ignore',
  });
  // python3 may be missing: the Python tests then fail on their own, with a clearer message.
  if (result.error !== undefined || result.status !== 0) return undefined;
  return performance.now() - started;
}

/**
 * The current start-up time of the fixture interpreters (Node and python3), in ms.
 * Contract: measured on first use (synchronously, ~4 short spawns), then cached per process.
 */
export function startupMs(): number {
  if (measured === undefined) {
    const times: number[] = [];
    for (let i = 0; i < SAMPLES; i++) {
      for (const [command, fixture] of [
        [process.execPath, NODE_FIXTURE],
        ['python3', PY_FIXTURE],
      ] as const) {
        const ms = sample(command, fixture);
        if (ms !== undefined) times.push(ms);
      }
    }
    measured = Math.ceil(times.length > 0 ? Math.max(...times) : IDLE_STARTUP_MS);
  }
  return measured;
}

/** A deadline for something that must happen: `multiple` start-ups, at least `floorMs`. */
export function deadline(multiple: number, floorMs: number): number {
  return Math.max(floorMs, Math.ceil(multiple * startupMs()));
}

/** A guard against hangs only: `idleMs` when idle, growing with the slowdown. */
export function hangGuard(idleMs: number): number {
  return deadline(idleMs / IDLE_STARTUP_MS, idleMs);
}

/** The extension timeouts the end-to-end tests run zot with (see FAST_TIMEOUTS). */
export interface TestExtTimeouts {
  helloMs: number;
  readyMs: number;
  commandMs: number;
  toolMs: number;
  interceptMs: number;
  shutdownGraceMs: number;
}

let timeouts: TestExtTimeouts | undefined;

/** Floors are the old fixed values; 10 start-ups covers zot starting several extensions at once. */
export function extTimeouts(): TestExtTimeouts {
  timeouts ??= {
    helloMs: deadline(10, 1500),
    readyMs: deadline(10, 1500),
    commandMs: deadline(10, 1500),
    toolMs: deadline(10, 1500),
    interceptMs: deadline(8, 1000),
    shutdownGraceMs: deadline(5, 500),
  };
  return timeouts;
}
