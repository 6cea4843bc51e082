// Checkpoint cost (issue 29): on a generated repository of 10,000 files / 200 MB with 3 files
// changed per turn, one checkpoint (what a turn's first tool call waits for) against
// `git status` on the same tree, alternating; and a rewind of 100 changed files (snapshot of
// the tree, plan, write-back, removal, recording the result), against `git status` again.
// A turn's checkpoint starts when the model begins streaming its first tool call, and the tool
// waits for it: the "added to the turn" row is what is left to wait once the call has streamed
// for STREAM_MS (a short call). CPU time (user+sys of this process and its children) is noted
// beside wall time: it is much less sensitive to load. Each row's note gives the load average.
// Targets: checkpoint <= 100 ms added to the turn and <= 2x git status; rewind of 100 files <= 1 s.
import { execFileSync } from 'node:child_process';
import {
  appendFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT, row, rounds, summarize } from '../lib/common.mjs';

const FILES = 10_000;
const FILE_BYTES = 20 * 1024; // 10,000 x 20 KiB = 200 MB
const DIRS = 100;
/** How long the model streams the tool call while the checkpoint is taken (a short call). */
const STREAM_MS = 100;

/** CPU time (ms) of this process and of its waited-for children so far (Linux; else 0). */
function cpuMs() {
  const own = process.cpuUsage();
  let children = 0;
  try {
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
    children = (Number(fields[13]) + Number(fields[14])) * 10; // cutime + cstime, in 10 ms ticks
  } catch {
    // not Linux: own time only
  }
  return (own.user + own.system) / 1000 + children;
}

const src = process.env.BENCH_ZOT_SRC ?? join(ROOT, 'packages/zot/dist/src');
const load = (path) => import(pathToFileURL(join(src, path)).href);

function gitEnv() {
  const env = { ...process.env };
  for (const name of Object.keys(env)) if (name.startsWith('GIT_')) delete env[name];
  return {
    ...env,
    GIT_AUTHOR_NAME: 'b',
    GIT_AUTHOR_EMAIL: 'b@b',
    GIT_COMMITTER_NAME: 'b',
    GIT_COMMITTER_EMAIL: 'b@b',
  };
}

/** 10,000 files of 20 KiB in 100 directories, committed; every file's content differs. */
function generate(dir) {
  const line = 'the quick brown fox jumps over the lazy dog 0123456789 abcdefghijklmnopqrstuvw\n';
  const body = line.repeat(Math.ceil(FILE_BYTES / line.length)).slice(0, FILE_BYTES - 32);
  for (let d = 0; d < DIRS; d++) mkdirSync(join(dir, `d${d}`), { recursive: true });
  for (let i = 0; i < FILES; i++) {
    writeFileSync(join(dir, `d${i % DIRS}`, `f${i}.txt`), `file ${i}\n`.padEnd(32, '.') + body);
  }
  const env = gitEnv();
  execFileSync('git', ['init', '-q'], { cwd: dir, env });
  execFileSync('git', ['add', '-A'], { cwd: dir, env });
  execFileSync('git', ['commit', '-q', '-m', 'generated'], { cwd: dir, env });
}

const pathOf = (i) => join(`d${i % DIRS}`, `f${i}.txt`);

export async function run(options) {
  const base = mkdtempSync(join(tmpdir(), 'zot-bench-checkpoint-'));
  const repo = join(base, 'repo');
  const home = join(base, 'home');
  mkdirSync(repo);
  mkdirSync(home);
  const rows = [];
  const notes = [];
  try {
    const t0 = performance.now();
    generate(repo);
    notes.push(`generated and committed the tree in ${Math.round(performance.now() - t0)} ms`);
    const { CheckpointStore } = await load('session/checkpoints/store.js');
    const { Checkpointer } = await load('session/checkpoints/checkpointer.js');
    const limits = { maxFileBytes: 10 * 1024 * 1024, maxTotalBytes: 1024 ** 3, maxFiles: 100_000 };
    const store = CheckpointStore.for(repo, home, limits);
    let seq = 0;
    const first = performance.now();
    const initial = await store.snapshot(`refs/zot/bench/${seq++}`, {});
    if (!initial.ok) throw new Error(initial.reason);
    notes.push(
      `first checkpoint of a new store (seeded from the repository, every file hashed) ${Math.round(performance.now() - first)} ms`,
    );

    const n = rounds(options, 15, 5);
    const status = [];
    const checkpoint = [];
    const added = [];
    const cpu = { status: [], checkpoint: [] };
    const turns = new Checkpointer({
      store,
      sessionKey: 'bench-turns',
      record: () => {},
      warn: (message) => notes.push(message),
    });
    let touched = 0;
    const loadBefore = loadavg()[0];
    for (let round = 0; round < n; round++) {
      const order = ['status', 'checkpoint', 'turn'];
      for (let i = 0; i < order.length; i++) {
        const which = order[(round + i) % order.length];
        // Each one sees 3 files changed since the one before.
        for (let k = 0; k < 3; k++) appendFileSync(join(repo, pathOf(touched++ % FILES)), 'x\n');
        const start = performance.now();
        const cpuStart = cpuMs();
        if (which === 'status') {
          execFileSync('git', ['status', '--porcelain'], { cwd: repo, env: gitEnv() });
          status.push(performance.now() - start);
          cpu.status.push(cpuMs() - cpuStart);
        } else if (which === 'checkpoint') {
          const taken = await store.snapshot(`refs/zot/bench/${seq++}`, {});
          if (!taken.ok) throw new Error(taken.reason);
          checkpoint.push(performance.now() - start);
          cpu.checkpoint.push(cpuMs() - cpuStart);
        } else {
          // A turn: the checkpoint starts as the tool call begins streaming; the tool waits.
          turns.startTurn(`round ${round}`);
          const taking = turns.beforeToolCall();
          await new Promise((resolve) => setTimeout(resolve, STREAM_MS));
          const streamed = performance.now();
          await taking;
          added.push(performance.now() - streamed);
          await turns.endTurn();
        }
      }
    }
    const perCheckpoint = summarize(cpu.checkpoint).median;
    const perStatus = summarize(cpu.status).median;
    notes.push(
      `checkpoints measured at load average ${loadBefore.toFixed(1)} -> ${loadavg()[0].toFixed(1)}; ` +
        `median CPU (user+sys, with git's) per checkpoint ${perCheckpoint.toFixed(1)} ms vs git status ${perStatus.toFixed(1)} ms (${(perCheckpoint / perStatus).toFixed(2)}x)`,
    );
    rows.push(
      row('checkpoint, 3 of 10,000 files changed vs git status', status, checkpoint, {
        maxRatio: 2,
      }),
    );
    rows.push(
      row('checkpoint, 3 of 10,000 files changed (absolute)', status, checkpoint, {
        maxMs: 100,
      }),
    );
    rows.push(
      row(
        `checkpoint added to the turn, tool call streamed for ${STREAM_MS} ms (absolute)`,
        status,
        added,
        { maxMs: 100 },
      ),
    );
    await turns.settle();

    // Rewind of 100 changed files: a turn changes them (and creates 10), then is rewound.
    const rewinds = [];
    const statusAgain = [];
    const checkpointer = new Checkpointer({
      store,
      sessionKey: 'bench-rewind',
      record: () => {},
      warn: (message) => notes.push(message),
    });
    const m = rounds(options, 7, 3);
    for (let round = 0; round < m; round++) {
      checkpointer.startTurn(`round ${round}`);
      await checkpointer.beforeToolCall();
      for (let k = 0; k < 100; k++) appendFileSync(join(repo, pathOf(500 + k)), `r${round}\n`);
      for (let k = 0; k < 10; k++) writeFileSync(join(repo, `new-${round}-${k}.txt`), 'new\n');
      await checkpointer.endTurn();
      const turns = await checkpointer.list();
      const turn = turns.filter((entry) => entry.label === `round ${round}`).at(-1).turn;
      const s0 = performance.now();
      execFileSync('git', ['status', '--porcelain'], { cwd: repo, env: gitEnv() });
      statusAgain.push(performance.now() - s0);
      const start = performance.now();
      const outcome = await checkpointer.rewind(turn);
      rewinds.push(performance.now() - start);
      if (!outcome.ok) throw new Error(outcome.message);
      if (outcome.restored.length !== 100 || outcome.removed.length !== 10)
        throw new Error(
          `rewind restored ${outcome.restored.length} and removed ${outcome.removed.length}`,
        );
    }
    notes.push(`rewinds measured at load average ${loadavg()[0].toFixed(1)}`);
    rows.push(
      row('rewind of 100 changed + 10 new files (absolute)', statusAgain, rewinds, { maxMs: 1000 }),
    );
    await checkpointer.settle();
    rows[0].note = notes.join('; ');
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
  return { name: 'checkpoint', rows, notes };
}
