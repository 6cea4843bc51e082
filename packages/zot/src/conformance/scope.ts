// The `scope` checks of `zot ext test`: does the sandbox a scoped extension gets deny what its
// permissions do not grant? The kit cannot make an arbitrary extension attempt a forbidden
// access, so it runs a small probe of its own (on zot's Node) inside the same sandbox, built
// from the same permissions for the same directories, and checks that a write outside the
// writable paths, a read of a hidden path and (network off or a host list) a direct connection
// all fail. The extension itself then runs in that sandbox for every other check.
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { prepareScope, type ScopeSpec, type ScopeStarter } from '../extensions/scopes.js';
import { launchProcess } from '../security/launcher.js';
import { within } from '../security/sandbox/policy.js';
import type { ScopePolicy } from '../security/scope/scope-policy.js';
import type { Checks } from './report.js';

/** The probe: one attempt of each kind, answered as one JSON line. */
const PROBE = `
'use strict';
const fs = require('fs');
const net = require('net');
const spec = JSON.parse(process.argv[1]);
const code = (error) => (error && error.code) || String(error);
const out = {};
try { fs.writeFileSync(spec.write, 'zot ext test: this write should have been refused\\n'); out.write = 'ok'; }
catch (error) { out.write = code(error); }
try {
  const stat = fs.statSync(spec.read);
  out.read = stat.isDirectory()
    ? (fs.readdirSync(spec.read).length > 0 ? 'listed' : 'empty')
    : 'read ' + fs.readFileSync(spec.read).length + ' bytes';
} catch (error) { out.read = code(error); }
const done = () => process.stdout.write(JSON.stringify(out) + '\\n');
if (!spec.port) done();
else {
  const socket = net.connect({ host: '127.0.0.1', port: spec.port });
  const end = (value) => { out.connect = value; socket.destroy(); done(); };
  socket.setTimeout(3000, () => end('timeout'));
  socket.once('connect', () => end('ok'));
  socket.once('error', (error) => end(code(error)));
}
`;

/** The file the probe tries to create, and the one it tries to read (fixed names: stable reports). */
const WRITE_PROBE = '.zot-ext-test-write';
const CANARY = '.zot-ext-test-canary';

interface ProbeAnswer {
  write?: string;
  read?: string;
  connect?: string;
}

/** A path outside every writable mount of `scope` (none of the candidates exists yet). */
function writeTarget(scope: ScopePolicy, candidates: string[]): string | undefined {
  const writable = scope.mounts.filter((mount) => mount.access === 'writable');
  return candidates.find(
    (path) => !existsSync(path) && !writable.some((mount) => within(mount.path, path)),
  );
}

/** Runs the probe in a sandbox built like `starter`'s. Contract: never rejects. */
function runProbe(
  starter: ScopeStarter,
  spec: Record<string, unknown>,
  timeoutMs: number,
): Promise<{ answer?: ProbeAnswer; error?: string }> {
  const started = starter.start();
  if ('error' in started) return Promise.resolve({ error: started.error });
  return new Promise((resolve) => {
    let stdout = '';
    let stderr = '';
    const finish = (result: { answer?: ProbeAnswer; error?: string }) => {
      clearTimeout(timer);
      started.release();
      resolve(result);
    };
    let launched;
    try {
      launched = launchProcess({
        argv: [process.execPath, '-e', PROBE, JSON.stringify(spec)],
        cwd: '/',
        env: { PATH: process.env.PATH ?? '' },
        detached: false,
        stdio: ['ignore', 'pipe', 'pipe'],
        policy: started.policy,
      });
    } catch (error) {
      return finish({ error: String(error) });
    }
    const { child } = launched;
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr!.on(
      'data',
      (chunk: Buffer) => (stderr = (stderr + chunk.toString('utf8')).slice(-8192)),
    );
    child.once('error', (error) => finish({ error: error.message }));
    child.once('close', () => {
      void launched.started.then((ran) => {
        if (!ran) return finish({ error: starter.failure(stderr) });
        try {
          finish({ answer: JSON.parse(stdout.trim().split('\n').pop() ?? '') as ProbeAnswer });
        } catch {
          finish({ error: `the probe gave no answer${stderr.trim() ? `: ${stderr.trim()}` : ''}` });
        }
      });
    });
  });
}

/**
 * Adds the `scope` checks for a scoped extension and returns the sandbox to run it in, or
 * undefined when it cannot run (a failed check says why). Contract: never rejects.
 */
export async function scopeChecks(
  checks: Checks,
  spec: Omit<ScopeSpec, 'helpers'> & { extDir: string },
  timeoutMs: number,
): Promise<ScopeStarter | undefined> {
  const plan = prepareScope(spec);
  if (plan.kind !== 'scoped') {
    const message = plan.kind === 'refused' ? plan.message : 'not scoped';
    checks.add({ check: 'scope', status: 'fail', message });
    return undefined;
  }
  // The probe's sandbox: the same, plus zot's own Node to run it.
  const probePlan = prepareScope({ ...spec, helpers: [process.execPath] });
  if (probePlan.kind !== 'scoped') return plan.starter;
  const built = probePlan.starter.start();
  if ('error' in built) {
    checks.add({ check: 'scope', status: 'fail', message: built.error });
    return undefined;
  }
  const scope = built.policy.scope!.scope;
  built.release();
  const write = writeTarget(scope, [join(spec.home, WRITE_PROBE), join(spec.extDir, WRITE_PROBE)]);
  const sshDir = join(spec.home, '.ssh');
  const canary = join(spec.zotHome, CANARY);
  const read = existsSync(sshDir) ? sshDir : canary;
  let server: Server | undefined;
  let port: number | undefined;
  if (spec.permissions.net !== true) {
    server = createServer((socket) => socket.destroy());
    port = await new Promise<number | undefined>((resolve) => {
      server!.once('error', () => resolve(undefined));
      server!.listen(0, '127.0.0.1', () => resolve((server!.address() as { port: number }).port));
    });
  }
  try {
    if (read === canary) {
      try {
        mkdirSync(spec.zotHome, { recursive: true, mode: 0o700 });
        writeFileSync(canary, 'zot ext test canary\n', { mode: 0o600 });
      } catch (error) {
        checks.add({
          check: 'scope',
          status: 'fail',
          message: `cannot put a canary file in $ZOT_HOME to try reading: ${String(error)}`,
        });
        return undefined;
      }
    }
    const result = await runProbe(probePlan.starter, { write, read, port }, timeoutMs);
    if (result.error || !result.answer) {
      checks.add({ check: 'scope', status: 'fail', message: result.error ?? 'no answer' });
      return undefined;
    }
    const { answer } = result;
    let failed = false;
    const add = (check: Parameters<Checks['add']>[0]) => {
      if (check.status === 'fail') failed = true;
      checks.add(check);
    };
    const refused = (value: string | undefined) => value !== undefined && value !== 'ok';
    if (write === undefined)
      add({
        check: 'scope',
        target: 'write',
        status: 'skip',
        message:
          'its permissions make the home directory and its own directory writable: no place outside to try',
      });
    else {
      // A write can succeed inside without reaching the disk: below a mount, bwrap makes the
      // missing directories in the sandbox's own (private, throw-away) /tmp.
      const reached = answer.write === 'ok' && existsSync(write);
      add({
        check: 'scope',
        target: 'write',
        status: reached ? 'fail' : 'pass',
        message: reached
          ? `a write outside its writable paths succeeded: ${write}`
          : answer.write === 'ok'
            ? `a write outside its writable paths stays in the sandbox (${write}: only in its private /tmp)`
            : `a write outside its writable paths fails (${write}: ${answer.write})`,
      });
    }
    const hidden = answer.read === 'ENOENT' || answer.read === 'empty';
    add({
      check: 'scope',
      target: 'read',
      status: hidden ? 'pass' : 'fail',
      message: hidden
        ? `a hidden path cannot be read (${read}: ${answer.read === 'empty' ? 'an empty directory' : 'not there'})`
        : `a hidden path was readable: ${read} (${answer.read})`,
    });
    if (port === undefined)
      add({
        check: 'scope',
        target: 'network',
        status: 'skip',
        message:
          spec.permissions.net === true
            ? 'its permissions give it the network ("net": true)'
            : 'no local server could be started to try',
      });
    else {
      const off = refused(answer.connect);
      const what = spec.permissions.net === false ? 'network off' : 'only through the proxy';
      add({
        check: 'scope',
        target: 'network',
        status: off ? 'pass' : 'fail',
        message: off
          ? `${what}: a direct connection to a server on 127.0.0.1 fails (${answer.connect})`
          : `${what}, but a direct connection to 127.0.0.1:${port} succeeded`,
      });
    }
    return failed ? undefined : plan.starter;
  } finally {
    server?.close();
    for (const path of [canary, ...(write ? [write] : [])]) rmSync(path, { force: true });
  }
}
