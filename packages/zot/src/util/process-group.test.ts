import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { test, type TestContext } from 'node:test';
import { killProcessGroup, processGroupAlive, signalProcessGroup } from './process-group.js';

// Where process states are read; a test can only tell a zombie from a live process there.
const PROC = '/proc';

/**
 * Gone, or a zombie nobody reaps (a container's PID 1 may not). Throws when it cannot tell:
 * both answer signal 0, and only /proc/<pid>/stat shows the difference.
 */
function processGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: it exists, and belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
  let stat: string;
  try {
    stat = readFileSync(`${PROC}/${pid}/stat`, 'utf8');
  } catch (error) {
    // It may have exited in between; that is only a good answer if /proc is there at all.
    const exited =
      (error as NodeJS.ErrnoException).code === 'ENOENT' && existsSync(`${PROC}/self/stat`);
    if (exited) return true;
    throw new Error(`cannot tell whether pid ${pid} is gone: ${(error as Error).message}`);
  }
  return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
}

// Longer than every wait in these tests, so that only a signal ends the sleeps: a group that
// is merely waited out must fail the test, not pass it.
const SLEEP = 'sleep 1000';

/** Spawns `script` as a group leader; the group is SIGKILLed after the test, whatever happens. */
function spawnGroup(t: TestContext, script: string): Promise<{ pid: number; pids: number[] }> {
  const child = spawn('sh', ['-c', script], {
    detached: true,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  t.after(() => {
    try {
      process.kill(-(child.pid ?? 0), 'SIGKILL');
    } catch {
      // already gone
    }
  });
  return new Promise((resolve) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      // The script prints "ready <pids>" once its background children run.
      const match = /ready ([\d ]+)\n/.exec(out);
      if (match?.[1]) {
        child.stdout.destroy();
        resolve({ pid: child.pid ?? 0, pids: match[1].trim().split(' ').map(Number) });
      }
    });
  });
}

test('killProcessGroup terminates the leader and its background children', async (t) => {
  const script = `${SLEEP} & a=$!; ${SLEEP} & echo ready $a $!; wait`;
  const { pid, pids } = await spawnGroup(t, script);
  assert.equal(processGroupAlive(pid), true);
  // The grace only bounds the wait: the call returns as soon as the group is gone.
  const result = await killProcessGroup(pid, { graceMs: 60_000 });
  assert.equal(result, 'terminated');
  assert.equal(processGroupAlive(pid), false);
  for (const child of pids) assert.ok(processGone(child), `pid ${child} survived`);
});

test('killProcessGroup escalates to SIGKILL when SIGTERM is ignored', async (t) => {
  // Ignored signals stay ignored across exec, so the sleeps ignore SIGTERM too.
  const { pid, pids } = await spawnGroup(t, `trap '' TERM; ${SLEEP} & echo ready $!; wait`);
  const result = await killProcessGroup(pid, { graceMs: 150 });
  assert.equal(result, 'killed');
  // SIGKILL is sent; the kernel finishes the processes shortly after (polled, not timed).
  for (let i = 0; i < 600 && ![pid, ...pids].every(processGone); i++)
    await new Promise((resolve) => setTimeout(resolve, 50));
  for (const child of [pid, ...pids]) assert.ok(processGone(child), `pid ${child} survived`);
});

test('never signals pid 0 or 1 and never throws for missing groups', async () => {
  for (const pid of [0, 1, -5, 1.5, Number.NaN]) {
    assert.equal(signalProcessGroup(pid, 'SIGTERM'), false);
    assert.equal(processGroupAlive(pid), false);
    assert.equal(await killProcessGroup(pid), 'gone');
  }
  // A pid far above any default pid_max.
  assert.equal(await killProcessGroup(2 ** 30), 'gone');
});
