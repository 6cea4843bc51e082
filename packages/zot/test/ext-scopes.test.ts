// Scoped extensions in the real bubblewrap sandbox, attacked from inside the extension: a probe
// (Node and Python) tries writes outside its data directory, reads of ~/.ssh and
// $ZOT_HOME/auth.json, connections with the network off, the proxy with a host list, and lists
// its environment. Then the settings' say on unscoped ones, and a sandbox that cannot start.
import assert from 'node:assert/strict';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:http';
import { dirname, join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { FAST_TIMEOUTS, scopedDataDir } from './support/extensions.js';
import { fakeLlmFlags, startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { fakeBwrapDir, makeSandboxBox, type SandboxBox } from './support/sandbox.js';
import { runZot, type ZotResult } from './support/zot.js';

const FIXTURES = fileURLToPath(new URL('../../test/fixtures/scoped/', import.meta.url));

let llm: FakeLlm;
let box: SandboxBox;
let hostServer: Server;
let otherServer: Server;
let hostPort = 0;
let otherPort = 0;

function listen(text: string): Promise<[Server, number]> {
  const server = createServer((req, res) => res.end(`${text}:${req.url}\n`));
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve([server, (server.address() as { port: number }).port]),
    ),
  );
}

before(async () => {
  llm = await startFakeLlm();
  box = makeSandboxBox();
  [hostServer, hostPort] = await listen('HOST-SERVER');
  [otherServer, otherPort] = await listen('OTHER-SERVER');
  writeFileSync(join(box.project, 'README.md'), 'the project readme\n');
});
after(() => {
  llm.close();
  hostServer.close();
  otherServer.close();
  box.cleanup();
});

type Language = 'node' | 'python';

/** A probe extension in `$ZOT_HOME/extensions/<name>` (or `root`), scoped when given permissions. */
function probeExtension(
  name: string,
  language: Language,
  permissions: unknown,
  root = join(box.zotHome, 'extensions'),
): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  const program = language === 'node' ? 'probe.mjs' : 'probe.py';
  copyFileSync(join(FIXTURES, program), join(dir, program));
  const exec = language === 'node' ? { exec: 'node', args: ['probe.mjs'] } : { exec: './probe.py' };
  const manifest = { name, ...exec, ...(permissions !== undefined ? { permissions } : {}) };
  writeFileSync(join(dir, 'extension.json'), JSON.stringify(manifest));
  return dir;
}

/** zot in the box: the box's home and ZOT_HOME, provider keys and a few test variables set. */
function zot(args: string[], env: Record<string, string | undefined> = {}): Promise<ZotResult> {
  return runZot([...args, ...fakeLlmFlags(llm.url), '--no-session'], {
    home: box.zotHome,
    cwd: box.project,
    env: {
      ...FAST_TIMEOUTS,
      HOME: box.home,
      ANTHROPIC_API_KEY: 'sk-ant-SECRET-KEY-OF-THE-USER',
      OPENAI_API_KEY: 'sk-SECRET-OPENAI-KEY',
      PROBE_VISIBLE: 'declared',
      PROBE_HIDDEN: 'not declared',
      ...env,
    },
  });
}

/** `zot ext ...` in the box (no model flags there). */
function zotExt(args: string[], env: Record<string, string | undefined> = {}): Promise<ZotResult> {
  return runZot(['ext', ...args], {
    home: box.zotHome,
    cwd: box.project,
    env: { ...FAST_TIMEOUTS, HOME: box.home, ...env },
  });
}

interface ProbeResult {
  imports: Record<string, { file?: string; cached?: string; error?: string }>;
  data_dir: string;
  cwd: string;
  write: Record<string, string>;
  read: Record<string, string>;
  connect: Record<string, string>;
  http: Record<string, string>;
  env: string[];
}

async function probe(
  extension: string,
  spec: unknown,
  env: Record<string, string | undefined> = {},
) {
  const result = await zot(
    ['-p', `/probe ${JSON.stringify(spec)}`, '--no-ext', '--ext', extension],
    env,
  );
  assert.equal(result.code, 0, `${result.stdout}\n${result.stderr}`);
  return JSON.parse(result.stdout) as ProbeResult;
}

const PERMISSIONS = { fs: { read: ['${project}'] }, env: ['PROBE_VISIBLE'] };

for (const language of ['node', 'python'] as const) {
  test(`a scoped ${language} extension: writes only its data directory, reads no secrets, has no network, no keys`, async () => {
    const name = `probe-${language}`;
    const dir = probeExtension(name, language, PERMISSIONS);
    const data = scopedDataDir(box.zotHome, name, dir);
    const outsideMarker = join(box.outside, `from-${language}.txt`);
    const result = await probe(dir, {
      write: [
        outsideMarker,
        join(box.outside, 'existing.txt'),
        join(box.project, 'from-probe.txt'),
        join(box.home, '.bashrc'),
        join(dir, 'own-file.txt'),
        join(data, 'state.txt'),
        '/tmp/private.txt',
      ],
      read: [
        join(box.home, '.ssh', 'id_ed25519'),
        join(box.home, '.ssh'),
        join(box.home, '.netrc'),
        join(box.zotHome, 'auth.json'),
        join(box.outside, 'existing.txt'),
        join(box.project, 'README.md'),
        '/etc/shadow',
      ],
      connect: [{ host: '127.0.0.1', port: hostPort }],
    });
    assert.equal(result.data_dir, data, 'hello_ack names its own data directory');
    assert.equal(result.cwd, box.project);
    const { write, read } = result;
    assert.notEqual(write[outsideMarker], 'ok');
    assert.notEqual(write[join(box.outside, 'existing.txt')], 'ok');
    assert.equal(write[join(box.project, 'from-probe.txt')], 'EROFS', 'the project is read-only');
    assert.notEqual(write[join(box.home, '.bashrc')], 'ok');
    assert.equal(write[join(dir, 'own-file.txt')], 'EROFS', 'its own directory is read-only');
    assert.equal(write[join(data, 'state.txt')], 'ok');
    assert.equal(write['/tmp/private.txt'], 'ok', 'a private /tmp');
    assert.ok(!existsSync(outsideMarker));
    assert.ok(!existsSync(join(box.project, 'from-probe.txt')));
    assert.ok(!existsSync(join(box.home, '.bashrc')));
    assert.ok(!existsSync('/tmp/private.txt'));
    assert.equal(readFileSync(join(box.outside, 'existing.txt'), 'utf8'), 'untouched\n');
    assert.equal(readFileSync(join(data, 'state.txt'), 'utf8'), 'written by the probe\n');
    assert.equal(read[join(box.home, '.ssh', 'id_ed25519')], 'ENOENT');
    assert.equal(read[join(box.home, '.ssh')], 'ENOENT');
    assert.equal(read[join(box.home, '.netrc')], 'ENOENT');
    assert.equal(read[join(box.zotHome, 'auth.json')], 'ENOENT');
    assert.equal(read[join(box.outside, 'existing.txt')], 'ENOENT');
    assert.equal(read['/etc/shadow'], 'ENOENT');
    assert.equal(read[join(box.project, 'README.md')], 'ok:the project readme\n');
    assert.doesNotMatch(JSON.stringify(result), /SECRET/);
    assert.equal(result.connect[`127.0.0.1:${hostPort}`], 'ECONNREFUSED', 'no network');
    assert.ok(result.env.includes('PROBE_VISIBLE'), 'a declared variable is passed');
    for (const hidden of ['PROBE_HIDDEN', 'ANTHROPIC_API_KEY', 'OPENAI_API_KEY', 'ZOT_HOME'])
      assert.ok(!result.env.includes(hidden), `${hidden} is not passed`);
  });
}

test('a scoped Python extension keeps its bytecode in its data directory: the second start compiles nothing again', async () => {
  const name = 'probe-bytecode';
  const dir = probeExtension(name, 'python', PERMISSIONS);
  writeFileSync(join(dir, 'helper.py'), 'VALUE = 1\n');
  const manifest = JSON.parse(readFileSync(join(dir, 'extension.json'), 'utf8'));
  writeFileSync(join(dir, 'extension.json'), JSON.stringify({ ...manifest, sdk: 'python' }));
  const data = scopedDataDir(box.zotHome, name, dir);
  const prefix = join(data, '.pycache') + '/';
  const modules = ['helper', 'zot_sdk._framing'];
  const run = (env: Record<string, string | undefined> = {}) =>
    probe(dir, { import: modules }, { PYTHONDONTWRITEBYTECODE: undefined, ...env });

  const first = await run();
  const stamps = modules.map((module) => {
    const { cached, error } = first.imports[module]!;
    assert.equal(error, undefined, `${module}: ${error}`);
    assert.ok(cached?.startsWith(prefix), `${module}: ${cached} is below its data directory`);
    return statSync(cached!).mtimeMs;
  });
  assert.ok(!existsSync(join(dir, '__pycache__')), 'nothing written beside its own modules');
  const sdkDir = dirname(first.imports['zot_sdk._framing']!.file!);
  const probed = await probe(dir, { write: [join(sdkDir, 'planted.py')] });
  assert.equal(probed.write[join(sdkDir, 'planted.py')], 'EROFS', "zot's SDK stays read-only");

  const second = await run();
  modules.forEach((module, i) => {
    const cached = second.imports[module]!.cached!;
    assert.equal(cached, first.imports[module]!.cached);
    assert.equal(statSync(cached).mtimeMs, stamps[i], `${module}: read, not compiled again`);
  });

  // PYTHONDONTWRITEBYTECODE is kept: no prefix, so the interpreter's own __pycache__ still serves.
  const off = await run({ PYTHONDONTWRITEBYTECODE: '1' });
  assert.ok(off.env.includes('PYTHONDONTWRITEBYTECODE'));
  assert.ok(!off.env.includes('PYTHONPYCACHEPREFIX'));
  assert.ok(!off.imports.helper!.cached!.startsWith(prefix));
});

for (const language of ['node', 'python'] as const) {
  test(`a scoped ${language} extension with a host list reaches that host:port through the proxy, nothing else`, async () => {
    const name = `probe-net-${language}`;
    const dir = probeExtension(name, language, { net: [`127.0.0.1:${hostPort}`] });
    const result = await probe(dir, {
      http: [`http://127.0.0.1:${hostPort}/allowed`, `http://127.0.0.1:${otherPort}/refused`],
      connect: [{ host: '127.0.0.1', port: otherPort }],
    });
    assert.equal(result.http[`http://127.0.0.1:${hostPort}/allowed`], '200:HOST-SERVER:/allowed');
    assert.match(result.http[`http://127.0.0.1:${otherPort}/refused`]!, /^403:/);
    assert.equal(
      result.connect[`127.0.0.1:${otherPort}`],
      'ECONNREFUSED',
      'only through the proxy',
    );
    const log = readFileSync(join(box.zotHome, 'logs', `ext-${name}.log`), 'utf8');
    assert.match(log, new RegExp(`blocked network access to 127\\.0\\.0\\.1:${otherPort}`));
  });
}

test('a declared path that leads into a hidden one is refused: the extension does not start', async () => {
  symlinkSync(join(box.home, '.ssh'), join(box.project, 'keys'));
  const dir = probeExtension('greedy', 'node', { fs: { read: ['${project}/keys'] } });
  const result = await zot(['-p', '/probe {}', '--no-ext', '--ext', dir]);
  assert.notEqual(result.code, 0);
  assert.match(
    result.stderr,
    /greedy failed to load: greedy was not started: permissions\.fs\.read: \$\{project\}\/keys: .*keys \(really .*\.ssh\) is hidden from every sandbox/,
  );
  assert.doesNotMatch(result.stdout + result.stderr, /SECRET/);
});

test('zot ext list and doctor mark unscoped extensions', async () => {
  probeExtension('listed-scoped', 'node', {});
  probeExtension('listed-unscoped', 'node', undefined);
  const list = await zotExt(['list']);
  assert.equal(list.code, 0, list.stderr);
  assert.match(list.stdout, /^NAME .* PERMISSIONS /m);
  assert.match(list.stdout, /^listed-scoped\s.*\sscoped\s/m);
  assert.match(list.stdout, /^listed-unscoped\s.*\sunscoped\s/m);
  assert.match(list.stderr, /unscoped: no "permissions" block, so they run with your full rights/);
  const json = JSON.parse((await zotExt(['list', '--json'])).stdout) as Array<{
    name: string;
    scoped?: boolean;
    permissions?: unknown;
  }>;
  const byName = new Map(json.map((item) => [item.name, item]));
  assert.equal(byName.get('listed-scoped')?.scoped, true);
  assert.deepEqual(byName.get('listed-scoped')?.permissions, {
    fs: { read: [], write: [] },
    net: false,
    exec: [],
    env: [],
  });
  assert.equal(byName.get('listed-unscoped')?.scoped, false);
  const doctor = await zotExt(['doctor']);
  assert.match(
    doctor.stdout,
    /listed-unscoped \[global\] ready\n(?:.*\n)*?\s+sandbox:\s+unscoped: no "permissions" block, so it runs with your full rights/,
  );
  assert.match(
    doctor.stdout,
    /listed-scoped \[global\] ready\n(?:.*\n)*?\s+sandbox:\s+scoped: runs in its sandbox with\n\s+read:\s+its own directory, nothing more/,
  );
});

test('sandbox required: an unscoped project extension does not start; a user one starts with a warning, unless sandbox.extensions is required', async () => {
  const project = join(box.base, 'project-required');
  const zotHome = join(box.base, 'zot-home-required');
  mkdirSync(zotHome, { recursive: true });
  probeExtension('proj-unscoped', 'node', undefined, join(project, '.zot', 'extensions'));
  const mine = probeExtension('mine-unscoped', 'node', undefined, join(box.base, 'mine'));
  const run = () =>
    runZot(
      [
        '-p',
        '/probe {}',
        '--ext',
        mine,
        '--sandbox',
        'required',
        ...fakeLlmFlags(llm.url),
        '--no-session',
      ],
      {
        home: zotHome,
        cwd: project,
        env: { ...FAST_TIMEOUTS, HOME: box.home, ZOT_TRUST_PROJECT_EXTENSIONS: '1' },
      },
    );
  const first = await run();
  assert.equal(first.code, 0, first.stderr);
  assert.match(
    first.stderr,
    /project extension proj-unscoped has no "permissions" block \(unscoped: it would run with your full rights\), and the sandbox is required: it was not started/,
  );
  assert.match(
    first.stderr,
    /mine-unscoped has no "permissions" block .*: it runs unscoped although the sandbox is required/,
  );
  assert.equal((JSON.parse(first.stdout) as ProbeResult).cwd, project, 'mine-unscoped ran');

  mkdirSync(join(project, '.zot'), { recursive: true });
  writeFileSync(
    join(project, '.zot', 'settings.json'),
    JSON.stringify({ sandbox: { extensions: 'required' } }),
  );
  const second = await run();
  assert.notEqual(second.code, 0);
  assert.match(
    second.stderr,
    /mine-unscoped has no "permissions" block .*, and sandbox\.extensions is "required": it was not started/,
  );
  assert.equal(second.stdout, '');
});

test('a scoped extension whose sandbox cannot start does not start, and says why and how to fix it', async () => {
  const dir = probeExtension('closed', 'node', {}, join(box.base, 'fail-closed'));
  const marker = join(box.outside, 'closed-ran.txt');
  const spec = { write: [marker] };
  // bwrap fails as it does where mounting is refused (the cause is read from its message).
  const fake = fakeBwrapDir(box.base, 'mount');
  const failed = await zot(['-p', `/probe ${JSON.stringify(spec)}`, '--no-ext', '--ext', dir], {
    PATH: `${fake}:${process.env.PATH}`,
  });
  assert.notEqual(failed.code, 0);
  assert.match(
    failed.stderr,
    /closed failed to load: could not start: its sandbox did not start, so it was not run \(it never runs without it\): bwrap could not set up the sandbox's mounts: bwrap: Can't mount proc on \/newroot\/proc: Operation not permitted .* Fix: Mounting was refused.*Run `zot doctor sandbox` for every check\. \(--sandbox off does not change this/,
  );
  assert.ok(!existsSync(marker));
  // No bwrap at all: the same refusal, with the installation as the fix.
  const onlyNode = join(box.base, 'only-node');
  mkdirSync(onlyNode, { recursive: true });
  symlinkSync(process.execPath, join(onlyNode, 'node'));
  const missing = await zot(['-p', '/probe {}', '--no-ext', '--ext', dir], { PATH: onlyNode });
  assert.notEqual(missing.code, 0);
  assert.match(
    missing.stderr,
    /closed was not started: it declares permissions, .*bubblewrap \(bwrap\) is not installed, or not on PATH\. Fix: Install it: sudo apt-get install bubblewrap/,
  );
});

test('zot ext trust lists the permissions; a trusted extension that asks for more waits for trust again', async () => {
  const project = join(box.base, 'project-trust');
  const dir = probeExtension(
    'asks',
    'node',
    { fs: { read: ['${project}'] } },
    join(project, '.zot', 'extensions'),
  );
  const trust = (args: string[]) =>
    runZot(['ext', 'trust', ...args], { home: box.zotHome, cwd: project, env: { HOME: box.home } });
  const first = await trust(['asks', '--yes']);
  assert.equal(first.code, 0, first.stderr);
  assert.match(
    first.stdout,
    /^ {2}access: scoped: it runs in a sandbox holding only this\n {10}read: {4}its own directory, \$\{project\}\n {10}write: {3}its data directory, nothing more\n {10}network: none$/m,
  );
  const manifest = JSON.parse(readFileSync(join(dir, 'extension.json'), 'utf8'));
  manifest.permissions = { fs: { read: ['${project}'], write: ['${project}'] }, net: true };
  writeFileSync(join(dir, 'extension.json'), JSON.stringify(manifest));
  const list = await trust([]);
  assert.match(list.stdout, /^asks +changed +/m);
  const again = await trust(['asks']);
  assert.equal(again.code, 2, 'nobody to ask: nothing recorded');
  assert.match(
    again.stdout,
    /^ {2}wider: {2}it asks for more than when you trusted it:\n {10}write: \$\{project\}\n {10}network: any host$/m,
  );
});

interface KitReport {
  ok: boolean;
  checks: Array<{ check: string; target?: string; status: string; message: string }>;
}

async function kit(dir: string, env: Record<string, string | undefined> = {}) {
  const result = await zotExt(['test', dir, '--json'], env);
  const report = JSON.parse(result.stdout) as KitReport;
  const scope = report.checks.filter((check) => check.check === 'scope');
  return { code: result.code, report, scope };
}

test('zot ext test proves the sandbox denies: a probe in the same sandbox cannot write outside, read ~/.ssh or connect', async () => {
  const dir = probeExtension(
    'kit-scoped',
    'python',
    { fs: { read: ['${project}'] } },
    join(box.base, 'kit'),
  );
  const { code, report, scope } = await kit(dir);
  assert.equal(code, 0, JSON.stringify(report.checks, null, 1));
  assert.deepEqual(
    scope.map((check) => [check.target, check.status]),
    [
      ['write', 'pass'],
      ['read', 'pass'],
      ['network', 'pass'],
    ],
  );
  assert.match(scope[1]!.message, new RegExp(`${join(box.home, '.ssh')}: not there`));
  assert.ok(report.checks.some((check) => check.check === 'ready' && check.status === 'pass'));
  assert.ok(!existsSync(join(box.home, '.zot-ext-test-write')));

  const unscoped = probeExtension('kit-unscoped', 'node', undefined, join(box.base, 'kit'));
  const plain = await kit(unscoped);
  assert.deepEqual(
    plain.scope.map((check) => check.status),
    ['skip'],
  );
  assert.match(plain.scope[0]!.message, /no "permissions" block: zot runs it unscoped/);
});

test('zot ext test fails a sandbox that does not hold: a bwrap that runs the command as is', async () => {
  const dir = probeExtension('kit-leaky', 'node', {}, join(box.base, 'kit'));
  const leaky = join(box.base, 'leaky-bwrap');
  mkdirSync(leaky, { recursive: true });
  writeFileSync(
    join(leaky, 'bwrap'),
    '#!/bin/sh\nif [ "$1" = --version ]; then echo "bubblewrap 0.8.0"; exit 0; fi\n' +
      'while [ "$#" -gt 0 ] && [ "$1" != -- ]; do shift; done\nshift\nexec "$@"\n',
    { mode: 0o755 },
  );
  const { code, scope } = await kit(dir, { PATH: `${leaky}:${process.env.PATH}` });
  assert.equal(code, 1);
  assert.deepEqual(
    scope.map((check) => [check.target, check.status]),
    [
      ['write', 'fail'],
      ['read', 'fail'],
      ['network', 'fail'],
    ],
  );
  assert.match(scope[0]!.message, /a write outside its writable paths succeeded/);
  assert.match(scope[1]!.message, /a hidden path was readable: .*\.ssh/);
  assert.match(
    scope[2]!.message,
    /network off, but a direct connection to 127\.0\.0\.1:\d+ succeeded/,
  );
  // The kit cleans up what the probe wrote, and does not run the extension after that.
  assert.ok(!existsSync(join(box.home, '.zot-ext-test-write')));

  const broken = await kit(dir, { PATH: `${fakeBwrapDir(box.base, 'mount')}:${process.env.PATH}` });
  assert.equal(broken.code, 1);
  assert.match(
    broken.scope[0]!.message,
    /its sandbox did not start, so it was not run .*bwrap could not set up the sandbox's mounts/,
  );
});

test("zot ext test: a write that lands in the sandbox's private /tmp is not a leak (an extension below a home in /tmp)", async () => {
  // With the extension below a home in /tmp, bwrap creates the home's path in the sandbox's
  // own /tmp, where the probe's write succeeds without reaching the disk.
  const home = mkdtempSync('/tmp/zot-kit-home-');
  try {
    const dir = probeExtension('kit-in-home', 'node', {}, join(home, 'src'));
    const { code, report, scope } = await kit(dir, { HOME: home });
    assert.equal(code, 0, JSON.stringify(report.checks, null, 1));
    const write = scope.find((check) => check.target === 'write')!;
    assert.equal(write.status, 'pass');
    const target = join(home, '.zot-ext-test-write');
    assert.ok(
      write.message.endsWith(`stays in the sandbox (${target}: only in its private /tmp)`),
      write.message,
    );
    assert.ok(!existsSync(target));
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});
