import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { killProcessGroup, processGroupAlive, signalProcessGroup } from './process-group.js';

/** Gone, or a zombie nobody reaps (a container's PID 1 may not). */
function processGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return true;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
}

function spawnGroup(script: string): Promise<{ pid: number; pids: number[] }> {
  const child = spawn('sh', ['-c', script], {
    detached: true,
    stdio: ['ignore', 'pipe', 'ignore'],
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

test('killProcessGroup terminates the leader and its background children', async () => {
  const { pid, pids } = await spawnGroup('sleep 30 & a=$!; sleep 30 & echo ready $a $!; wait');
  assert.equal(processGroupAlive(pid), true);
  // The grace only bounds the wait: the call returns as soon as the group is gone.
  const result = await killProcessGroup(pid, { graceMs: 60_000 });
  assert.equal(result, 'terminated');
  assert.equal(processGroupAlive(pid), false);
  for (const child of pids) assert.ok(processGone(child), `pid ${child} survived`);
});

test('killProcessGroup escalates to SIGKILL when SIGTERM is ignored', async () => {
  // Ignored signals stay ignored across exec, so the sleeps ignore SIGTERM too.
  const { pid, pids } = await spawnGroup("trap '' TERM; sleep 30 & echo ready $!; wait");
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
