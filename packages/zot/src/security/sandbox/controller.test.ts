// The run's sandbox decisions, with the probe's answer given: what each mode does when the
// sandbox cannot start, the one warning, the project's floor, and when the file tools are held.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SandboxController } from './controller.js';
import { probeSandbox, type SandboxProbe } from './probe.js';
import { userSandbox, type SandboxMode } from './settings.js';

const BROKEN: SandboxProbe = {
  ok: false,
  tool: 'bwrap',
  checks: [],
  problem: {
    cause: 'bwrap-missing',
    message: 'bubblewrap (bwrap) is not installed',
    fix: 'install it',
  },
};

function controller(mode: SandboxMode, probe: () => Promise<SandboxProbe>, floor?: SandboxMode) {
  const warnings: string[] = [];
  const sandbox = new SandboxController({
    settings: userSandbox({ mode }),
    ...(floor ? { floor, floorSource: '/p/.zot/settings.json' } : {}),
    project: '/p',
    home: '/home/ann',
    zotHome: '/home/ann/.zot',
    probe,
    warn: (message) => warnings.push(message),
  });
  return { sandbox, warnings };
}

test('required on a platform without a sandbox refuses every command, saying why', async () => {
  const { sandbox } = controller('required', () => probeSandbox({ platform: 'win32' }));
  const plan = await sandbox.plan();
  assert.equal(plan.kind, 'refused');
  assert.match(
    plan.kind === 'refused' ? plan.message : '',
    /not run: the sandbox is required .* not available on win32/,
  );
  assert.equal(sandbox.state().status, 'unavailable');
});

test('on, when the sandbox cannot start: unsandboxed, and one warning however many commands', async () => {
  const { sandbox, warnings } = controller('on', async () => BROKEN);
  for (let i = 0; i < 3; i++) assert.equal((await sandbox.plan()).kind, 'unsandboxed');
  assert.equal(warnings.length, 1);
  assert.match(
    warnings[0]!,
    /the sandbox is on, but it cannot start here: commands run WITHOUT it: bubblewrap .*Fix: install it/,
  );
  assert.deepEqual(sandbox.state(), {
    mode: 'on',
    status: 'unavailable',
    network: false,
    problem: 'bubblewrap (bwrap) is not installed. Fix: install it',
  });
});

test('off never probes and plans unsandboxed; the file tools are free', async () => {
  let probed = false;
  const { sandbox } = controller('off', async () => ((probed = true), BROKEN));
  assert.equal((await sandbox.plan()).kind, 'unsandboxed');
  assert.equal(probed, false);
  assert.equal(sandbox.fileDenial('write', '/etc/passwd', 'write'), undefined);
  assert.deepEqual(sandbox.state(), { mode: 'off', status: 'off', network: false });
});

test('the file tools are held whenever the mode is on, whether or not bwrap can start', async () => {
  const { sandbox } = controller('on', async () => BROKEN);
  assert.match(sandbox.fileDenial('write', '/etc/passwd', 'write')!, /outside the writable paths/);
  assert.equal(sandbox.fileDenial('write', '/p/src/a.ts', 'write'), undefined);
});

test("the project's floor: the mode starts there and cannot be switched below it", () => {
  const { sandbox } = controller('off', async () => BROKEN, 'on');
  assert.equal(sandbox.mode, 'on');
  assert.match(
    sandbox.setMode('off')!,
    /cannot go below "on" here: \/p\/\.zot\/settings\.json asks for it/,
  );
  assert.equal(sandbox.mode, 'on');
  assert.equal(sandbox.setMode('required'), undefined);
  assert.equal(sandbox.setMode('on'), undefined);
});

test('a start that fails after the probe passed is diagnosed, remembered, and warned about once', async () => {
  const { sandbox, warnings } = controller('on', async () => ({
    ok: true,
    tool: 'bwrap',
    path: '/usr/bin/bwrap',
    checks: [],
  }));
  assert.equal((await sandbox.plan()).kind, 'sandboxed');
  const problem = sandbox.setupFailed('bwrap: setting up uid map: Permission denied');
  assert.ok(['apparmor', 'container'].includes(problem.cause));
  assert.equal((await sandbox.plan()).kind, 'unsandboxed');
  assert.equal(sandbox.state().status, 'unavailable');
  assert.equal(warnings.length, 1);
});
