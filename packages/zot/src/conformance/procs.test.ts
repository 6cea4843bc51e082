// The process table from /proc and from `ps` (the backend used off Linux), compared on this
// machine: a detached grandchild that left its group is found by both, and killed by either.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { descendants, killIfSame, parsePs, stillRunning } from './procs.js';

test('ps output is parsed, comm with spaces and zombies included; junk lines are skipped', () => {
  const parsed = parsePs(
    [
      '    1     0     1 Ss   Mon Nov 30 19:24:22 2026 init',
      '  812   801   812 Z+   Tue Dec  1 04:00:00 2026 (node)',
      '  900     1   900 R    Tue Dec  1 04:00:01 2026 my worker thing',
      'garbage',
    ].join('\n'),
  );
  assert.deepEqual(
    parsed.map((p) => [p.pid, p.ppid, p.pgrp, p.zombie, p.comm, p.start]),
    [
      [1, 0, 1, false, 'init', 'Mon Nov 30 19:24:22 2026'],
      [812, 801, 812, true, '(node)', 'Tue Dec 1 04:00:00 2026'],
      [900, 1, 900, false, 'my worker thing', 'Tue Dec 1 04:00:01 2026'],
    ],
  );
});

test(
  'both backends find a grandchild that left the group, and the same processes',
  { skip: process.platform !== 'linux' },
  async (t) => {
    // A child that starts a detached grandchild (its own group), then waits.
    const child = spawn(
      process.execPath,
      [
        '-e',
        "const c=require('child_process').spawn(process.execPath,['-e','setInterval(()=>{},1000)'],{detached:true,stdio:'ignore'});console.log(c.pid);setInterval(()=>{},1000)",
      ],
      { stdio: ['ignore', 'pipe', 'ignore'] },
    );
    t.after(() => child.kill('SIGKILL'));
    const grandchild = await new Promise<number>((resolve) =>
      child.stdout.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim()))),
    );
    const fromProc = descendants(child.pid!, 'proc');
    const fromPs = descendants(child.pid!, 'ps');
    assert.deepEqual(
      fromPs.map((p) => [p.pid, p.pgrp]),
      fromProc.map((p) => [p.pid, p.pgrp]),
    );
    const found = fromPs.find((p) => p.pid === grandchild);
    assert.ok(found && found.pgrp === grandchild, 'the grandchild leads its own group');
    assert.ok(stillRunning(found, 'ps'));
    assert.ok(killIfSame(found, 'ps'));
    // Gone (or a zombie until its parent reaps it).
    for (let i = 0; i < 100 && stillRunning(found, 'ps'); i++)
      await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(stillRunning(found, 'ps'), false);
  },
);
