// A scoped process whose caller asks only at its exit whether it ran (an extension): the real
// bubblewrap reports it on its status fd, with no shell exec'd in front of the program. A program
// that ran and failed, or was killed, ran; a sandbox that could not be set up (or could not exec
// the program) did not, and bwrap's own reason is on stderr. Nothing runs outside the sandbox.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { prepareScope } from '../src/extensions/scopes.js';
import { launchProcess, type ProcessPolicy } from '../src/security/launcher.js';
import { parsePermissions } from '../src/security/scope/permissions.js';
import { makeSandboxBox, type SandboxBox } from './support/sandbox.js';

let box: SandboxBox;
before(() => (box = makeSandboxBox()));
after(() => box.cleanup());

/** Where the scope may write (and a program that ran there could leave a mark). */
const dataDir = () => join(box.base, 'data', 'status-probe');

/** One start of `argv` in a scope (cwd: on the host and inside): what bwrap ran, how it ended. */
async function runScoped(argv: [string, ...string[]], cwd = '/') {
  const plan = prepareScope({
    name: 'status-probe',
    kind: 'program',
    permissions: parsePermissions({}),
    dataDir: dataDir(),
    project: box.project,
    home: box.home,
    zotHome: box.zotHome,
    command: argv[0],
    path: process.env.PATH,
    denyRead: [],
    env: process.env,
    platform: process.platform,
  });
  assert.equal(plan.kind, 'scoped', JSON.stringify(plan));
  if (plan.kind !== 'scoped') throw new Error('unreachable');
  const start = plan.starter.start();
  assert.ok(!('error' in start), JSON.stringify(start));
  if ('error' in start) throw new Error('unreachable');
  try {
    const { child, started } = launchProcess({
      argv,
      cwd,
      env: process.env,
      detached: true,
      stdio: ['ignore', 'ignore', 'pipe'],
      policy: start.policy as ProcessPolicy,
      startKnown: 'at-exit',
    });
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const exit = await new Promise<{ code: number | null; signal: string | null }>((resolve) =>
      child.once('close', (code, signal) => resolve({ code, signal })),
    );
    return { ran: await started, exit, stderr, spawnargs: child.spawnargs };
  } finally {
    start.release();
  }
}

test("bwrap reports the run on its status fd: no shell exec'd in front of the program", async () => {
  const result = await runScoped(['/bin/sh', '-c', 'echo failing >&2; exit 3']);
  assert.equal(result.ran, true, result.stderr);
  assert.equal(result.exit.code, 3);
  assert.equal(result.stderr, 'failing\n');
  const args = result.spawnargs;
  assert.equal(args[args.indexOf('--json-status-fd') + 1], '3');
  assert.deepEqual(args.slice(args.indexOf('--') + 1), [
    '/bin/sh',
    '-c',
    'echo failing >&2; exit 3',
  ]);
  assert.ok(!args.includes('zot-sandbox'), 'no start-marker shell');
});

test('a program killed inside its sandbox ran (its signal is not a failure to start)', async () => {
  const result = await runScoped(['/bin/sh', '-c', 'kill -KILL $$']);
  assert.equal(result.ran, true, result.stderr);
});

test('a sandbox that cannot be set up did not run the program, and bwrap says why', async () => {
  const marker = join(dataDir(), 'ran.txt');
  // Its working directory is on the host but not in the sandbox: bwrap fails after its mounts,
  // before exec.
  const result = await runScoped(['/bin/sh', '-c', `echo ran > ${marker}`], box.outside);
  assert.equal(result.ran, false);
  assert.equal(result.exit.code, 1);
  assert.match(result.stderr, /^bwrap: Can't chdir to .*outside/m);
  assert.ok(!existsSync(marker), 'nothing ran, in or outside the sandbox');
});

test("a program the sandbox cannot exec did not run, with bwrap's reason", async () => {
  const result = await runScoped([join(box.project, 'no-such-program')]);
  assert.equal(result.ran, false);
  assert.match(result.stderr, /^bwrap: execvp .*no-such-program/m);
});
