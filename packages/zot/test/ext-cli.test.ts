// `zot ext` management end to end: help, name checks, list, install, remove, enable/disable, logs.
import assert from 'node:assert/strict';
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  realpathSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { after, test } from 'node:test';
import { runExtCommand } from '../src/cli/ext/index.js';
import { UsageError } from '../src/util/errors.js';
import { commitAll, GIT_ENV, snapshot, writeExtension } from './support/ext-fixtures.js';
import { HAS_SCRIPT, runOnTerminal } from './support/terminal.js';
import { FAST_TIMEOUTS } from './support/extensions.js';
import { hangGuard } from './support/timing.js';
import { collect, makeSandbox, runZot, startZot, ZOT_BIN } from './support/zot.js';

const boxes: Array<{ cleanup(): void }> = [];
after(() => boxes.forEach((box) => box.cleanup()));

/** A fresh ZOT_HOME and project, and `zot` bound to them. */
function sandbox() {
  const box = makeSandbox();
  boxes.push(box);
  const extensions = join(box.home, 'extensions');
  const run = (args: string[], input?: string, env: Record<string, string> = {}) =>
    runZot(['ext', ...args], {
      home: box.home,
      cwd: box.project,
      ...(input !== undefined ? { input } : {}),
      env: { ...FAST_TIMEOUTS, ...GIT_ENV, ...env },
    });
  return { ...box, extensions, run };
}

const SUBCOMMANDS = [
  'list',
  'doctor',
  'install',
  'remove',
  'enable',
  'disable',
  'logs',
  'new',
  'trust',
  'untrust',
  'test',
];

test('help: zot ext --help lists every subcommand; each has --help; usage errors exit 2', async () => {
  const s = sandbox();
  const help = await s.run(['--help']);
  assert.equal(help.code, 0);
  for (const name of SUBCOMMANDS) assert.match(help.stdout, new RegExp(`^  ${name}\\b`, 'm'));
  const sub = await s.run(['install', '--help']);
  assert.equal(sub.code, 0);
  assert.ok(sub.stdout.startsWith('Usage: zot ext install <path|git-url> [--force]'));
  for (const name of SUBCOMMANDS) {
    const stdout = new PassThrough();
    let text = '';
    stdout.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    const io = { stdout, stderr: new PassThrough(), stdin: new PassThrough() };
    assert.equal(await runExtCommand([name, '--help'], io), 0, name);
    assert.equal(await runExtCommand([name, 'x', '-h'], io), 0, name);
    assert.ok(text.startsWith(`Usage: zot ext ${name}`), text);
  }
  const usage: Array<[string[], RegExp]> = [
    [[], /Usage: zot ext <command>/],
    [['frobnicate'], /unknown ext command "frobnicate"/],
    [['list', '--bogus'], /ext list: unknown option --bogus \(see zot ext list --help\)/],
    [['list', 'extra'], /ext list: unexpected argument "extra"/],
    [['remove'], /ext remove needs <name>/],
    [['logs', 'a', 'b'], /unexpected argument "b"/],
    [['new', 'x', '--lang', 'cobol'], /--lang must be node, ts or python; got "cobol"/],
    [['new', 'x', '--lang'], /--lang expects a value/],
    [
      ['install', '--upload-pack=touch /tmp/x', 'https://example.com/x'],
      /unknown option --upload-pack/,
    ],
  ];
  const outcomes = await Promise.all(usage.map(([args]) => s.run(args)));
  outcomes.forEach((result, i) => {
    assert.equal(result.code, 2, `${usage[i]![0].join(' ')}: ${result.stderr}`);
    assert.match(result.stderr, usage[i]![1]);
  });
});

test('security: names with /, \\, .. or outside the rule are refused by every subcommand', async () => {
  const s = sandbox();
  writeExtension(s.extensions, { name: 'victim' });
  mkdirSync(join(s.home, 'logs'), { recursive: true });
  writeFileSync(join(s.home, 'secret.log'), 'SECRET');
  // keys/ holds the code cache's key (util/code-cache.ts), made by whichever run comes first
  const state = () => {
    const all = snapshot(s.home);
    return all === 'absent' ? all : all.filter((entry) => !entry.startsWith('keys'));
  };
  const homeBefore = state();
  const projectBefore = snapshot(s.project);
  const names = ['../victim', 'a/b', 'a\\b', '..', '../../etc', 'Upper', 'x..y', '.hidden', ''];
  const commands = (name: string) => [
    ['remove', '--yes', name],
    ['enable', name],
    ['disable', name],
    ['logs', name],
    ['new', name],
    ['trust', name],
    ['untrust', name],
  ];
  // The whole matrix in-process (the check precedes any file access), then every command and
  // every name at least once through the real CLI.
  const io = { stdout: new PassThrough(), stderr: new PassThrough(), stdin: new PassThrough() };
  for (const args of names.flatMap(commands)) {
    await assert.rejects(runExtCommand(args, io), (error: Error) => {
      assert.ok(error instanceof UsageError, args.join(' '));
      assert.match(error.message, /invalid extension name/);
      return true;
    });
  }
  const spawned = [...commands('../victim'), ...names.map((name) => ['logs', name])];
  const results = await Promise.all(spawned.map((args) => s.run(args)));
  results.forEach((result, i) => {
    const what = spawned[i]!.join(' ');
    assert.equal(result.code, 2, `${what}: ${result.stderr}`);
    assert.match(result.stderr, /invalid extension name/, what);
    assert.doesNotMatch(result.stdout, /SECRET/);
  });
  assert.deepEqual(state(), homeBefore, 'nothing in ZOT_HOME changed');
  assert.deepEqual(snapshot(s.project), projectBefore, 'nothing created in the project');
});

test('list: empty, then project and global extensions with state, scope and trust', async () => {
  const s = sandbox();
  const empty = await s.run(['list']);
  assert.equal(empty.code, 0);
  assert.equal(empty.stdout, 'no extensions installed\n');
  assert.deepEqual(JSON.parse((await s.run(['list', '--json'])).stdout), []);

  writeExtension(s.extensions, { name: 'hello' }, { description: 'says hello', version: '2.0.0' });
  writeExtension(s.extensions, { name: 'off' }, { enabled: false });
  mkdirSync(join(s.extensions, 'broken'));
  writeFileSync(join(s.extensions, 'broken', 'extension.json'), '{ nope');
  writeExtension(join(s.project, '.zot', 'extensions'), { name: 'proj' });
  writeExtension(join(s.project, '.zot', 'extensions'), { name: 'hello' }, {}, 'hello-local');

  const json = await s.run(['list', '--json']);
  assert.equal(json.code, 0, json.stderr);
  const listed = JSON.parse(json.stdout) as Array<Record<string, unknown>>;
  const byKey = new Map(listed.map((item) => [`${item.scope}:${item.name}`, item]));
  assert.deepEqual(byKey.get('project:proj'), {
    name: 'proj',
    version: '1.0.0',
    enabled: true,
    state: 'enabled',
    scope: 'project',
    description: 'test extension proj',
    dir: realpathSync(join(s.project, '.zot', 'extensions', 'proj')),
    trust: 'untrusted',
    intercept_failure: 'allow',
    restart: 'on-failure',
    scoped: false,
  });
  assert.equal(byKey.get('global:off')?.state, 'disabled');
  assert.equal(byKey.get('global:off')?.enabled, false);
  // An untrusted project copy never shadows a global extension: it gives way, with a warning.
  assert.equal(byKey.get('global:hello')?.state, 'enabled');
  assert.equal(byKey.get('global:hello')?.trust, undefined);
  assert.equal(byKey.get('project:hello')?.state, 'shadowed');
  assert.equal(byKey.get('project:hello')?.shadowed_by, realpathSync(join(s.extensions, 'hello')));
  assert.match(String(byKey.get('project:hello')?.warnings), /has the name of your global/);
  assert.match(String(byKey.get('global:broken')?.error), /invalid JSON/);

  const human = await s.run(['list']);
  assert.equal(human.code, 0);
  assert.match(
    human.stdout,
    /^NAME +VERSION +STATE +SCOPE +TRUST +PERMISSIONS +RESTART +INTERCEPT-FAILURE +DESCRIPTION +DIRECTORY$/m,
  );
  assert.match(
    human.stdout,
    /^proj +1\.0\.0 +enabled +project +untrusted +unscoped +on-failure +allow +test extension proj /m,
  );
  assert.match(human.stdout, /^off +1\.0\.0 +disabled +global +- /m);
  assert.match(
    human.stdout,
    /^Warnings:\n {2}hello: project extension .*hello-local has the name/m,
  );
  assert.match(human.stderr, /will not run until trusted: review, then zot ext trust <name>/);
});

test('install: a path (also .), --force, a file:// git URL; the result loads', async () => {
  const s = sandbox();
  const src = join(s.project, 'work', 'my-ext');
  writeExtension(join(s.project, 'work'), { name: 'hello', commands: ['hi'] }, {}, 'my-ext');
  const installed = await s.run(['install', 'work/my-ext']);
  assert.equal(installed.code, 0, installed.stderr);
  // What was installed is the result, on stdout; stderr stays for problems.
  assert.match(installed.stdout, /^installed hello 1\.0\.0 in .*extensions\/hello\ncheck it with/);
  assert.equal(installed.stderr, '');
  assert.ok(existsSync(join(s.extensions, 'hello', 'ext.mjs')));

  const again = await s.run(['install', 'work/my-ext']);
  assert.equal(again.code, 1);
  assert.match(again.stderr, /already exists; pass --force/);

  writeFileSync(join(src, 'NEW'), 'x');
  const forced = await runZot(['ext', 'install', '.', '--force'], { home: s.home, cwd: src });
  assert.equal(forced.code, 0, forced.stderr);
  assert.match(forced.stdout, /replaced hello/);
  assert.ok(existsSync(join(s.extensions, 'hello', 'NEW')));

  const repo = join(s.project, 'repo');
  writeExtension(join(s.project), { name: 'from-git', commands: ['fromgit'] }, {}, 'repo');
  const url = commitAll(repo);
  const cloned = await s.run(['install', url]);
  assert.equal(cloned.code, 0, cloned.stderr);
  assert.ok(existsSync(join(s.extensions, 'from-git', 'ext.mjs')));
  assert.deepEqual(readdirSync(s.extensions).sort(), ['from-git', 'hello']);

  const doctor = await s.run(['doctor', '--json']);
  assert.equal(doctor.code, 0, doctor.stdout + doctor.stderr);
  const reports = JSON.parse(doctor.stdout).extensions as Array<{
    name: string;
    status: string;
    commands: string[];
  }>;
  assert.deepEqual(
    reports.map((r) => [r.name, r.status, r.commands]),
    [
      ['from-git', 'ready', ['fromgit']],
      ['hello', 'ready', ['hi']],
    ],
  );
});

test('install security: "-" URLs, escaping symlinks and manifest-less clones leave nothing behind', async () => {
  const s = sandbox();
  writeExtension(s.extensions, { name: 'existing' });
  const before = snapshot(s.extensions);

  const dash = await s.run(['install', '--', '--upload-pack=touch /tmp/zot-pwned']);
  assert.equal(dash.code, 1);
  assert.match(
    dash.stderr,
    /refusing source "--upload-pack=touch \/tmp\/zot-pwned": it begins with "-"/,
  );
  const dashUrl = await s.run(['install', '--', '-https://example.com/x.git']);
  assert.equal(dashUrl.code, 1);
  assert.match(dashUrl.stderr, /begins with "-"/);

  const evil = join(s.project, 'evil');
  writeExtension(s.project, { name: 'evil' });
  mkdirSync(join(evil, 'sub'));
  symlinkSync('../../../home/extensions/existing/extension.json', join(evil, 'sub', 'steal'));
  const symlinked = await s.run(['install', 'evil']);
  assert.equal(symlinked.code, 1);
  assert.match(
    symlinked.stderr,
    /sub\/steal is a symlink to .* points outside .*; refused; nothing was installed/,
  );

  const bare = join(s.project, 'bare');
  mkdirSync(bare);
  writeFileSync(join(bare, 'README.md'), 'not an extension');
  const url = commitAll(bare);
  const noManifest = await s.run(['install', url]);
  assert.equal(noManifest.code, 1);
  assert.match(noManifest.stderr, /has no extension\.json at its root; nothing was installed/);

  const badName = join(s.project, 'bad');
  writeExtension(s.project, { name: 'bad' }, { name: '../../escape' });
  const named = await s.run(['install', badName]);
  assert.equal(named.code, 1);
  assert.match(named.stderr, /invalid extension name/);

  assert.deepEqual(snapshot(s.extensions), before, 'the extensions directory is exactly as before');
  assert.ok(!existsSync('/tmp/zot-pwned'));
});

test('a failed install never deletes $ZOT_HOME or what others wrote there meanwhile', async () => {
  const s = sandbox();
  const home = join(s.home, 'fresh-home');
  const bare = join(s.project, 'bare');
  mkdirSync(bare);
  writeFileSync(join(bare, 'README.md'), 'not an extension');
  const url = commitAll(bare);
  // While the clone runs in a $ZOT_HOME the install just created, a concurrent `zot auth set`
  // stores a key there (git runs the post-checkout hook after cloning). The install then fails.
  const hooks = join(s.project, 'hooks');
  mkdirSync(hooks);
  writeFileSync(
    join(hooks, 'post-checkout'),
    `#!/bin/sh\nprintf 'sk-written-meanwhile' | "${process.execPath}" "${ZOT_BIN}" auth set anthropic\n`,
    { mode: 0o755 },
  );
  const gitConfig = join(s.project, 'gitconfig');
  writeFileSync(gitConfig, `[core]\n\thooksPath = ${hooks}\n`);
  const env = { ...GIT_ENV, GIT_CONFIG_GLOBAL: gitConfig };
  const failed = await runZot(['ext', 'install', url], { home, cwd: s.project, env });
  assert.equal(failed.code, 1, failed.stderr);
  assert.match(failed.stderr, /has no extension\.json at its root; nothing was installed/);
  const auth = JSON.parse(readFileSync(join(home, 'auth.json'), 'utf8'));
  assert.equal(auth.anthropic.key, 'sk-written-meanwhile');
  assert.deepEqual(readdirSync(join(home, 'extensions')), [], 'only the staging copy is gone');

  // And the plain order: a key stored first, then an install that fails.
  const second = join(s.home, 'second-home');
  const stored = await runZot(['auth', 'set', 'openai'], {
    home: second,
    cwd: s.project,
    input: 'sk-first',
  });
  assert.equal(stored.code, 0, stored.stderr);
  writeExtension(s.project, { name: 'bad' }, { name: 'Bad Name' }, 'bad-manifest');
  for (const source of [url, join(s.project, 'bad-manifest')]) {
    const result = await runZot(['ext', 'install', source], {
      home: second,
      cwd: s.project,
      env: GIT_ENV,
    });
    assert.equal(result.code, 1, result.stderr);
    assert.equal(
      JSON.parse(readFileSync(join(second, 'auth.json'), 'utf8')).openai.key,
      'sk-first',
    );
  }
});

test('remove: asks [y/N], honours --yes, and never deletes outside the extensions directory', async () => {
  const s = sandbox();
  writeExtension(s.extensions, { name: 'one' });
  writeExtension(s.extensions, { name: 'two' });
  const outside = join(s.project, 'precious');
  mkdirSync(outside);
  writeFileSync(join(outside, 'data'), 'keep me');
  symlinkSync(outside, join(s.extensions, 'linked'));

  const declined = await s.run(['remove', 'one'], 'n\n');
  assert.equal(declined.code, 1);
  assert.match(declined.stderr, /Remove the extension one .*\? \[y\/N\] \nnot removed/);
  assert.ok(existsSync(join(s.extensions, 'one')));
  const silent = await s.run(['remove', 'one'], '');
  assert.equal(silent.code, 1, 'no answer means no');
  assert.ok(existsSync(join(s.extensions, 'one')));

  const accepted = await s.run(['remove', 'one'], 'y\n');
  assert.equal(accepted.code, 0, accepted.stderr);
  assert.ok(!existsSync(join(s.extensions, 'one')));
  const yes = await s.run(['remove', 'two', '--yes']);
  assert.equal(yes.code, 0);
  assert.ok(!existsSync(join(s.extensions, 'two')));

  const link = await s.run(['remove', 'linked', '--yes']);
  assert.equal(link.code, 1);
  assert.match(link.stderr, /is a symlink, not an installed copy/);
  assert.equal(readFileSync(join(outside, 'data'), 'utf8'), 'keep me');
  const missing = await s.run(['remove', 'ghost', '--yes']);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /no extension named ghost is installed/);
});

test('enable/disable set "enabled" and keep every other field', async () => {
  const s = sandbox();
  const dir = writeExtension(s.extensions, { name: 'hello' }, { custom: { keep: [1, 2] } });
  const disabled = await s.run(['disable', 'hello']);
  assert.equal(disabled.code, 0, disabled.stderr);
  assert.match(disabled.stdout, /disabled hello/);
  assert.equal(disabled.stderr, '');
  const manifest = JSON.parse(readFileSync(join(dir, 'extension.json'), 'utf8'));
  assert.deepEqual(Object.keys(manifest), [
    'name',
    'version',
    'description',
    'exec',
    'args',
    'custom',
    'enabled',
  ]);
  assert.equal(manifest.enabled, false);
  assert.deepEqual(manifest.custom, { keep: [1, 2] });
  assert.equal(JSON.parse((await s.run(['list', '--json'])).stdout)[0].state, 'disabled');
  const doctor = await s.run(['doctor']);
  assert.equal(doctor.code, 0);
  assert.match(doctor.stdout, /^hello \[global\] disabled/m);

  const again = await s.run(['disable', 'hello']);
  assert.equal(again.code, 0);
  assert.match(again.stdout, /already disabled/);
  const enabled = await s.run(['enable', 'hello']);
  assert.equal(enabled.code, 0);
  assert.equal(JSON.parse(readFileSync(join(dir, 'extension.json'), 'utf8')).enabled, true);
  const missing = await s.run(['enable', 'ghost']);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /no extension named ghost/);
});

test('logs: prints the log, names a missing one, never reads outside $ZOT_HOME/logs', async () => {
  const s = sandbox();
  writeExtension(s.extensions, { name: 'noisy', stderr: 'noisy says hi' });
  assert.equal((await s.run(['doctor'])).code, 0);
  const logs = await s.run(['logs', 'noisy']);
  assert.equal(logs.code, 0, logs.stderr);
  assert.match(logs.stdout, /noisy says hi/);

  const missing = await s.run(['logs', 'ghost']);
  assert.equal(missing.code, 1);
  assert.ok(missing.stderr.includes(join(s.home, 'logs', 'ext-ghost.log')), missing.stderr);

  writeFileSync(join(s.project, 'secret.txt'), 'TOP SECRET');
  symlinkSync(join(s.project, 'secret.txt'), join(s.home, 'logs', 'ext-planted.log'));
  const planted = await s.run(['logs', 'planted']);
  assert.equal(planted.code, 1);
  assert.match(planted.stderr, /points outside .*logs; refused/);
  assert.doesNotMatch(planted.stdout, /TOP SECRET/);
});

test('list, doctor and logs show what extensions provide escaped; JSON and piped logs keep it', async (t) => {
  const s = sandbox();
  const hostile = 'evil\x1b]0;owned\x07\x1b[2J\r\u202e\x9b1m';
  writeExtension(
    s.extensions,
    { name: 'loud', hello: `other${hostile}`, stderr: `log says ${hostile}` },
    { description: `desc ${hostile}`, version: `1${hostile}` },
  );
  const raw = /[\x1b\x07\r\x9b\u202e]/;
  const escaped = 'evil\\x1b]0;owned\\x07\\x1b[2J\\r\\u202e\\x9b1m';

  const list = await s.run(['list']);
  assert.equal(list.code, 0, list.stderr);
  assert.doesNotMatch(list.stdout + list.stderr, raw);
  assert.match(
    list.stdout,
    /^loud +1evil\\x1b.* +enabled +global +- +unscoped +on-failure +allow +desc evil\\x1b/m,
  );
  assert.ok(list.stdout.includes(`desc ${escaped}`), list.stdout);
  const json = await s.run(['list', '--json']);
  assert.doesNotMatch(json.stdout, raw, 'JSON escapes them too (as \\u escapes)');
  assert.equal(JSON.parse(json.stdout)[0].description, `desc ${hostile}`, 'the data is unchanged');

  const doctor = await s.run(['doctor']);
  assert.equal(doctor.code, 0, doctor.stdout + doctor.stderr);
  assert.doesNotMatch(doctor.stdout + doctor.stderr, raw);
  assert.match(
    doctor.stdout,
    /^ {2}warning: {4}.*hello names "other.*" but the manifest says "loud"/m,
  );
  assert.ok(doctor.stdout.includes(escaped), doctor.stdout);
  const doctorJson = await s.run(['doctor', '--json']);
  assert.doesNotMatch(doctorJson.stdout, raw);
  assert.ok(JSON.parse(doctorJson.stdout).extensions[0].warnings.join('\n').includes(hostile));

  const piped = await s.run(['logs', 'loud']);
  assert.ok(piped.stdout.includes(`log says ${hostile}`), 'into a pipe the log is data: raw');
  if (!HAS_SCRIPT) return t.skip('no script(1) to provide a terminal');
  const shown = await runOnTerminal(['ext', 'logs', 'loud'], { home: s.home, cwd: s.project });
  assert.equal(shown.code, 0, shown.output);
  // The terminal turns LF into CRLF itself; any other control byte would be the log's.
  assert.doesNotMatch(shown.output.replace(/\r\n/g, '\n'), raw);
  assert.ok(shown.output.includes(`log says ${escaped}`), shown.output);
});

test('logs -f follows appended output until interrupted', async () => {
  const s = sandbox();
  const logPath = join(s.home, 'logs', 'ext-tail.log');
  mkdirSync(join(s.home, 'logs'), { recursive: true });
  writeFileSync(logPath, 'first line\n');
  const child = startZot(['ext', 'logs', 'tail', '-f'], { home: s.home, cwd: s.project });
  const result = collect(child, undefined, hangGuard(15_000));
  let seen = '';
  child.stdout.on('data', (chunk: Buffer) => (seen += chunk.toString('utf8')));
  const waitFor = async (text: string) => {
    const deadline = Date.now() + hangGuard(10_000);
    while (!seen.includes(text)) {
      assert.ok(
        Date.now() < deadline,
        `timed out waiting for ${JSON.stringify(text)}; got ${seen}`,
      );
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  };
  await waitFor('first line\n');
  appendFileSync(logPath, 'second line\n');
  await waitFor('second line\n');
  appendFileSync(logPath, 'third line\n');
  await waitFor('third line\n');
  child.kill('SIGINT');
  const done = await result;
  assert.equal(done.code, 0, done.stderr);
  assert.equal(done.stdout, 'first line\nsecond line\nthird line\n');
  assert.ok(statSync(logPath).size > 0);
});
