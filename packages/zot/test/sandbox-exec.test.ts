// `zot sandbox exec` with the real bubblewrap: by default a program may read the project and
// nothing private, write nothing outside its data directory and /tmp, and reach no network;
// --permissions adds to that; stdin, stdout and the exit status are the program's; a signal
// ends the program; where the sandbox cannot start, nothing runs and the cause and its fix are
// said (exit 125); usage errors exit 2.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fakeBwrapDir, makeSandboxBox, type SandboxBox } from './support/sandbox.js';
import { hangGuard } from './support/timing.js';
import { collect, runZot, startZot } from './support/zot.js';

let box: SandboxBox;
let tcp: Server;
let port = 0;
let connections = 0;
before(async () => {
  box = makeSandboxBox();
  tcp = createServer((socket) => {
    connections++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve));
  port = (tcp.address() as { port: number }).port;
});
after(() => {
  tcp.close();
  box.cleanup();
});

/** zot sandbox exec [options] -- node -e PROBE, in the box's project. */
function exec(
  options: string[],
  script: string,
  extra: { env?: Record<string, string>; input?: string } = {},
) {
  return runZot(['sandbox', 'exec', ...options, '--', process.execPath, '-e', script], {
    home: box.zotHome,
    cwd: box.project,
    env: { HOME: box.home, ...extra.env },
    ...(extra.input !== undefined ? { input: extra.input } : {}),
  });
}

/** A script that tries each access and prints one JSON line of outcomes. */
const TRY = (port: number, write: string) => `
const fs = require('fs');
const net = require('net');
const code = (e) => (e && e.code) || String(e);
const out = {};
const attempt = (key, fn) => { try { fn(); out[key] = 'ok'; } catch (e) { out[key] = code(e); } };
attempt('outside', () => fs.writeFileSync(${JSON.stringify(write)}, 'x'));
attempt('project', () => fs.writeFileSync('written-in-project', 'x'));
attempt('readProject', () => fs.readFileSync('marker.txt'));
attempt('ssh', () => fs.readFileSync(${JSON.stringify(join(box.home, '.ssh', 'id_ed25519'))}));
attempt('tmp', () => fs.writeFileSync('/tmp/scratch', 'x'));
const socket = net.connect({ host: '127.0.0.1', port: ${port} });
const end = (v) => { out.net = v; socket.destroy(); console.log(JSON.stringify(out)); };
socket.setTimeout(5000, () => end('timeout'));
socket.once('connect', () => end('ok'));
socket.once('error', (e) => end(code(e)));
`;

test("by default: the project read-only, nothing private, no network; the exit status is the program's", async () => {
  writeFileSync(join(box.project, 'marker.txt'), 'here\n');
  const target = join(box.outside, 'escaped.txt');
  const before = connections;
  const result = await exec([], TRY(port, target));
  assert.equal(result.code, 0, result.stderr);
  const out = JSON.parse(result.stdout.trim());
  assert.notEqual(out.outside, 'ok');
  assert.equal(existsSync(target), false);
  assert.equal(out.project, 'EROFS');
  assert.equal(out.readProject, 'ok');
  assert.equal(out.ssh, 'ENOENT');
  assert.equal(out.tmp, 'ok', 'a private /tmp');
  assert.notEqual(out.net, 'ok');
  assert.equal(connections, before);

  const status = await exec([], 'process.exit(7)');
  assert.equal(status.code, 7);
  const echoed = await exec([], 'process.stdin.pipe(process.stdout)', { input: 'through stdin\n' });
  assert.equal(echoed.stdout, 'through stdin\n');
});

test('--permissions add to the default: a writable directory and the network', async () => {
  const target = join(box.outside, 'granted.txt');
  const before = connections;
  const permissions = JSON.stringify({ fs: { write: [box.outside] }, net: true });
  const result = await exec(['--permissions', permissions, '--name', 'granted'], TRY(port, target));
  assert.equal(result.code, 0, result.stderr);
  const out = JSON.parse(result.stdout.trim());
  assert.equal(out.outside, 'ok');
  assert.equal(readFileSync(target, 'utf8'), 'x');
  assert.equal(out.project, 'EROFS', 'still read-only');
  assert.equal(out.ssh, 'ENOENT', 'still hidden');
  assert.equal(out.net, 'ok');
  assert.equal(connections, before + 1);
  // A hidden path cannot be granted.
  const hidden = await exec(
    ['--permissions', JSON.stringify({ fs: { read: ['~/.ssh'] } })],
    'console.log("ran")',
  );
  assert.equal(hidden.code, 125);
  assert.equal(hidden.stdout, '');
  assert.match(hidden.stderr, /\.ssh is hidden from every sandbox/);
});

test('a signal for zot sandbox exec ends the program, and it exits by that signal', async () => {
  const child = startZot(
    [
      'sandbox',
      'exec',
      '--',
      process.execPath,
      '-e',
      'console.log("up"); setInterval(() => {}, 1000)',
    ],
    { home: box.zotHome, cwd: box.project, env: { HOME: box.home } },
  );
  const done = collect(child, undefined, hangGuard(60_000));
  await new Promise<void>((resolve) =>
    child.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('up') && resolve()),
  );
  child.kill('SIGTERM');
  const result = await done;
  assert.equal(result.signal, 'SIGTERM');
});

test('where the sandbox cannot start nothing runs: the cause, its fix, exit 125', async () => {
  const bin = join(box.base, 'only-node');
  mkdirSync(bin, { recursive: true });
  symlinkSync(process.execPath, join(bin, 'node'));
  const marker = join(box.project, 'ran-anyway');
  const script = `require('fs').writeFileSync(${JSON.stringify(marker)}, 'x')`;
  const missing = await exec([], script, { env: { PATH: bin } });
  assert.equal(missing.code, 125);
  assert.match(missing.stderr, /bubblewrap \(bwrap\) is not installed/);
  assert.match(missing.stderr, /^Fix: Install it: sudo apt-get install bubblewrap/m);
  const apparmor = await exec([], script, {
    env: { PATH: `${fakeBwrapDir(box.base, 'apparmor')}:${process.env.PATH}` },
  });
  assert.equal(apparmor.code, 125);
  assert.match(apparmor.stderr, /its sandbox did not start, so it was not run/);
  assert.match(apparmor.stderr, /apparmor/i);
  assert.equal(existsSync(marker), false, 'never run unsandboxed');
});

test('usage: --help, and what is wrong with a command line (exit 2)', async () => {
  const run = (args: string[]) => runZot(args, { home: box.zotHome, cwd: box.project });
  const help = await run(['sandbox', 'exec', '--help']);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /^Usage: zot sandbox exec/);
  for (const [args, message] of [
    [['sandbox'], /say what to do/],
    [['sandbox', 'run'], /unknown command "run"/],
    [['sandbox', 'exec'], /name the program to run/],
    [['sandbox', 'exec', '--permissions', '{', '--', 'true'], /--permissions is not JSON/],
    [
      ['sandbox', 'exec', '--permissions', '{"fs":{"rea":[]}}', '--', 'true'],
      /"permissions\.fs\.rea" is not a permission/,
    ],
    [['sandbox', 'exec', '--name', 'a/b', '--', 'true'], /--name takes/],
    [['sandbox', 'exec', '--bogus', '--', 'true'], /unknown option --bogus/],
  ] as const) {
    const result = await run([...args]);
    assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`);
    assert.match(result.stderr, message);
  }
  const notFound = await run(['sandbox', 'exec', '--', 'no-such-program-here']);
  assert.equal(notFound.code, 127);
  assert.match(notFound.stderr, /no-such-program-here: not found on PATH/);
});
