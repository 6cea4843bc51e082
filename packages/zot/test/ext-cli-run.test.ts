// `zot ext` commands that start extensions, end to end: doctor, the project trust gate, new.
import assert from 'node:assert/strict';
import {
  appendFileSync,
  chmodSync,
  existsSync,
  mkdirSync,
  readFileSync,
  realpathSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { after, test } from 'node:test';
import ts from 'typescript';
import { isAlive, startedExtensions, writeExtension } from './support/ext-fixtures.js';
import { HAS_SCRIPT, runOnTerminal } from './support/terminal.js';
import { FAST_TIMEOUTS } from './support/extensions.js';
import { hangGuard } from './support/timing.js';
import { makeSandbox, runZot } from './support/zot.js';

const boxes: Array<{ cleanup(): void }> = [];
after(() => boxes.forEach((box) => box.cleanup()));

function sandbox() {
  const box = makeSandbox();
  boxes.push(box);
  const marker = join(box.home, 'started.txt');
  const run = (args: string[], env: Record<string, string> = {}) =>
    runZot(['ext', ...args], {
      home: box.home,
      cwd: box.project,
      env: { ...FAST_TIMEOUTS, ZOT_TEST_MARKER: marker, ...env },
    });
  return {
    ...box,
    marker,
    run,
    extensions: join(box.home, 'extensions'),
    projectExtensions: join(box.project, '.zot', 'extensions'),
  };
}

interface Report {
  name: string;
  scope: string;
  status: string;
  dir: string;
  error?: string;
  shadowed_by?: string;
  commands: string[];
  tools: Array<{ name: string; deferred: boolean }>;
  events: string[];
  intercepts: string[];
  warnings: string[];
  log_path?: string;
}

test('doctor reports every outcome, conflicts and warnings, and leaves no process behind', async () => {
  const s = sandbox();
  writeExtension(s.extensions, {
    name: 'alpha',
    commands: ['hello', 'Shared'],
    tools: [{ name: 'lookup' }, { name: 'later', deferred: true }],
    events: ['turn_start', 'tool_call'],
    intercept: ['tool_call'],
  });
  writeExtension(s.extensions, {
    name: 'beta',
    hello: 'beta-other',
    commands: ['shared'],
    tools: [{ name: 'read' }],
    garbage: true,
  });
  writeExtension(s.extensions, { name: 'crash', exit: 3, stderr: 'boom' });
  writeExtension(s.extensions, { name: 'lazy', commands: ['lazy'], noReady: true });
  writeExtension(s.extensions, { name: 'off' }, { enabled: false });
  writeExtension(s.extensions, { name: 'gamma' });
  mkdirSync(join(s.extensions, 'broken'));
  writeFileSync(join(s.extensions, 'broken', 'extension.json'), '{"name": 42}');
  // exec with a separator that resolves outside the extension directory (design D4).
  const outside = join(s.home, 'outside.sh');
  writeFileSync(outside, '#!/bin/sh\necho pwned > "$ZOT_TEST_MARKER.pwned"\n');
  chmodSync(outside, 0o755);
  writeExtension(s.extensions, { name: 'escape' }, { exec: '../../outside.sh', args: [] });
  const flagDir = writeExtension(join(s.project, 'work'), { name: 'gamma', commands: ['g'] });

  // With --ext, the report is about that directory (and the installed one it shadows); the
  // others still start, as in a session, but neither show nor decide the exit status.
  const flagged = await s.run(['doctor', '--json', '--ext', 'work/gamma']);
  assert.equal(flagged.code, 0, flagged.stdout + flagged.stderr);
  const about = JSON.parse(flagged.stdout) as { ok: boolean; extensions: Report[] };
  assert.equal(about.ok, true);
  assert.deepEqual(
    about.extensions.map((r) => [r.scope, r.name, r.status, r.shadowed_by]),
    [
      ['flag', 'gamma', 'ready', undefined],
      ['global', 'gamma', 'shadowed', realpathSync(flagDir)],
    ],
  );
  const flaggedHuman = await s.run(['doctor', '--ext', 'work/gamma']);
  assert.equal(flaggedHuman.code, 0);
  assert.match(flaggedHuman.stdout, /^gamma \[--ext\] ready$/m);
  assert.match(
    flaggedHuman.stdout,
    /^gamma \[global\] shadowed by .*work\/gamma \(not spawned\)$/m,
  );
  assert.doesNotMatch(flaggedHuman.stdout, /alpha|crash/);
  assert.match(
    flaggedHuman.stdout,
    /^2 extension\(s\): 1 ready, 1 shadowed\n\(\d+ more started as in a session;/m,
  );

  const result = await s.run(['doctor', '--json']);
  assert.equal(result.code, 1, result.stderr);
  const { ok, extensions } = JSON.parse(result.stdout) as { ok: boolean; extensions: Report[] };
  assert.equal(ok, false);
  const by = new Map(extensions.map((r) => [`${r.scope}:${r.name}`, r]));

  const alpha = by.get('global:alpha')!;
  assert.equal(alpha.status, 'ready');
  assert.deepEqual(alpha.commands, ['hello', 'Shared']);
  assert.deepEqual(alpha.tools, [
    { name: 'lookup', deferred: false },
    { name: 'later', deferred: true },
  ]);
  assert.deepEqual(alpha.events, ['turn_start', 'tool_call']);
  assert.deepEqual(alpha.intercepts, ['tool_call']);
  assert.equal(alpha.log_path, join(s.home, 'logs', 'ext-alpha.log'));

  const beta = by.get('global:beta')!;
  assert.equal(beta.status, 'ready');
  const warnings = beta.warnings.join('\n');
  assert.match(warnings, /hello names "beta-other" but the manifest says "beta"/);
  assert.match(warnings, /malformed line/);
  assert.match(warnings, /command \/shared conflicts with \/Shared of extension alpha/);
  assert.match(warnings, /read/);

  const crash = by.get('global:crash')!;
  assert.equal(crash.status, 'failed');
  assert.match(crash.error ?? '', /status 3/);
  assert.match(readFileSync(crash.log_path!, 'utf8'), /boom/);

  assert.equal(by.get('global:lazy')?.status, 'auto-ready');
  assert.equal(by.get('global:off')?.status, 'disabled');
  const broken = extensions.find((r) => r.dir === realpathSync(join(s.extensions, 'broken')))!;
  assert.equal(broken.status, 'manifest-error');
  assert.match(broken.error ?? '', /"name" must be a string/);
  assert.equal(by.get('global:gamma')?.status, 'ready');

  const escape = by.get('global:escape')!;
  assert.equal(escape.status, 'failed');
  assert.match(
    escape.error ?? '',
    /"exec" "..\/..\/outside.sh" resolves outside the extension directory/,
  );
  assert.ok(!existsSync(`${s.marker}.pwned`), 'the escaping exec never ran');

  const started = startedExtensions(s.marker);
  // Both runs started the same set (the --ext run in a session's place).
  assert.deepEqual([...new Set(started.map((e) => e.name))].sort(), [
    'alpha',
    'beta',
    'crash',
    'gamma',
    'lazy',
  ]);
  const deadline = Date.now() + hangGuard(3000);
  while (started.some((e) => isAlive(e.pid)) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.deepEqual(
    started.filter((e) => isAlive(e.pid)),
    [],
    'doctor shut every extension down',
  );

  const human = await s.run(['doctor']);
  assert.equal(human.code, 1);
  assert.match(human.stdout, /^alpha \[global\] ready$/m);
  assert.match(human.stdout, /^ {2}commands: {3}\/hello, \/Shared$/m);
  assert.match(human.stdout, /^ {2}tools: {6}lookup, later \(deferred\)$/m);
  assert.match(human.stdout, /^ {2}events: {5}turn_start, tool_call$/m);
  assert.match(human.stdout, /^ {2}intercepts: tool_call$/m);
  assert.match(human.stdout, /^crash \[global\] FAILED$/m);
  assert.match(human.stdout, /^lazy \[global\] auto-ready/m);
  assert.match(human.stdout, /^ {2}log: {8}.*ext-alpha\.log$/m);
  assert.match(human.stdout, /^ {2}warning: {4}.*conflicts with \/Shared of extension alpha/m);
});

test('doctor with nothing installed, and with healthy extensions only, exits 0', async () => {
  const s = sandbox();
  const none = await s.run(['doctor']);
  assert.equal(none.code, 0);
  assert.match(none.stdout, /no extensions found/);
  writeExtension(s.extensions, { name: 'fine', commands: ['fine'] });
  const fine = await s.run(['doctor']);
  assert.equal(fine.code, 0, fine.stdout);
  assert.match(fine.stdout, /1 extension\(s\): 1 ready/);
});

test('trust: project extensions run only while their trusted content is unchanged', async () => {
  const s = sandbox();
  const dir = writeExtension(s.projectExtensions, { name: 'proj', commands: ['p'] });
  writeExtension(s.extensions, { name: 'glob' });
  const statusOf = async (env: Record<string, string> = {}) => {
    const result = await s.run(['doctor', '--json'], env);
    const reports = JSON.parse(result.stdout).extensions as Report[];
    return { code: result.code, proj: reports.find((r) => r.name === 'proj')! };
  };
  const startedProj = () => startedExtensions(s.marker).filter((e) => e.name === 'proj').length;

  const untrusted = await statusOf();
  assert.equal(untrusted.code, 1);
  assert.equal(untrusted.proj.status, 'untrusted');
  assert.match(
    untrusted.proj.error ?? '',
    /is not trusted, so it was not started; .*`zot ext trust proj`/,
  );
  assert.equal(startedProj(), 0, 'a cloned project extension never runs untrusted');

  const review = await s.run(['trust', 'proj', '--yes']);
  assert.equal(review.code, 0, review.stderr);
  assert.match(review.stdout, /^project extension proj \(.*proj\)$/m);
  assert.match(review.stdout, /^ {2}runs: {3}\S*node ext\.mjs$/m);
  assert.match(review.stdout, /^ {4}-- +ext\.mjs +sha256:[0-9a-f]{12} +\d+ bytes$/m);
  assert.match(review.stdout, /^ {4}-- +extension\.json +sha256:/m);
  assert.match(review.stdout, /^ {2}hash: {3}sha256:[0-9a-f]{64}$/m);
  assert.match(
    review.stdout,
    /^ {2}access: unscoped: no "permissions" block, so it runs with your full rights/m,
  );
  assert.match(review.stderr, /trusted proj/);
  const store = JSON.parse(readFileSync(join(s.home, 'trust.json'), 'utf8'));
  assert.equal(store.extensions[realpathSync(dir)].name, 'proj');

  const trusted = await statusOf();
  assert.equal(trusted.code, 0);
  assert.equal(trusted.proj.status, 'ready');
  assert.equal(startedProj(), 1);

  appendFileSync(join(dir, 'ext.mjs'), '\n// a change pulled from upstream\n');
  const changed = await statusOf();
  assert.equal(changed.code, 1);
  assert.equal(changed.proj.status, 'untrusted');
  assert.match(changed.proj.error ?? '', /changed since you trusted it/);
  assert.equal(startedProj(), 1, 'a project extension modified after trust is not spawned');
  assert.match((await s.run(['trust'])).stdout, /^proj +changed +/m);
  assert.match((await s.run(['list'])).stdout, /^proj .* project +changed /m);

  const ci = await statusOf({ ZOT_TRUST_PROJECT_EXTENSIONS: '1' });
  assert.equal(ci.proj.status, 'ready');
  assert.equal(startedProj(), 2);

  const all = await s.run(['trust', '--all', '--yes']);
  assert.equal(all.code, 0, all.stderr);
  assert.equal((await statusOf()).proj.status, 'ready');
  const untrust = await s.run(['untrust', 'proj']);
  assert.equal(untrust.code, 0, untrust.stderr);
  assert.equal((await statusOf()).proj.status, 'untrusted');
  const twice = await s.run(['untrust', 'proj']);
  assert.equal(twice.code, 1);
  assert.match(twice.stderr, /proj is not trusted/);

  const global = await s.run(['trust', 'glob']);
  assert.equal(global.code, 0);
  assert.match(global.stderr, /global extension .* always trusted/);
  const missing = await s.run(['trust', 'ghost']);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /no project extension named ghost/);
});

test('trust refuses a project extension whose symlink leaves its directory', async () => {
  const s = sandbox();
  const dir = writeExtension(s.projectExtensions, { name: 'sneaky' });
  writeFileSync(join(s.project, 'lib.mjs'), 'export {}');
  writeFileSync(
    join(dir, 'extension.json'),
    JSON.stringify({ name: 'sneaky', exec: 'node', args: ['lib.mjs'] }),
  );
  symlinkSync('../../../lib.mjs', join(dir, 'lib.mjs'));
  const result = await s.run(['trust', 'sneaky']);
  assert.equal(result.code, 1);
  assert.match(result.stderr, /cannot trust sneaky: .*lib\.mjs is a symlink .* points outside/);
  assert.ok(!existsSync(join(s.home, 'trust.json')));
});

test('trust pins the node_modules a project extension imports from, and refuses paths outside it', async () => {
  const s = sandbox();
  const dir = writeExtension(s.projectExtensions, { name: 'proj' });
  const program = readFileSync(join(dir, 'ext.mjs'), 'utf8');
  writeFileSync(join(dir, 'ext.mjs'), `import 'helper';\n${program}`);
  const helper = join(s.projectExtensions, 'node_modules', 'helper', 'index.js');
  mkdirSync(dirname(helper), { recursive: true });
  writeFileSync(helper, 'module.exports = 1;\n');
  const statusOf = async () => {
    const result = await s.run(['doctor', '--json']);
    return (JSON.parse(result.stdout).extensions as Report[]).find((r) => r.name === 'proj')!;
  };

  const review = await s.run(['trust', 'proj', '--yes']);
  assert.equal(review.code, 0, review.stderr);
  assert.match(review.stdout, /^ {2}covers: /m);
  assert.match(review.stdout, /^ {4}\.\.\/node_modules +node_modules +3 entries, \d+ bytes$/m);
  assert.match(review.stdout, /^ {4}-- +\.\.\/node_modules\/helper\/index\.js +sha256:/m);
  assert.equal((await statusOf()).status, 'ready');

  // The trusted extension's code is unchanged; the module it imports is not.
  writeFileSync(
    helper,
    `require('node:fs').writeFileSync(${JSON.stringify(`${s.marker}.pwned`)}, 'x');\n`,
  );
  const changed = await statusOf();
  assert.equal(changed.status, 'untrusted');
  assert.match(changed.error ?? '', /changed since you trusted it/);
  assert.ok(!existsSync(`${s.marker}.pwned`), 'the edited module never ran');

  // An argument naming a file outside the extension directory: refused at load and by trust.
  const evil = join(s.project, 'x.js');
  writeFileSync(
    evil,
    `require('node:fs').writeFileSync(${JSON.stringify(`${s.marker}.args`)}, 'x');\n`,
  );
  const argsDir = writeExtension(
    s.projectExtensions,
    { name: 'args' },
    { args: ['../../../x.js'] },
  );
  const args = await s.run(['doctor', '--json'], { ZOT_TRUST_PROJECT_EXTENSIONS: '1' });
  const report = (JSON.parse(args.stdout).extensions as Report[]).find((r) => r.name === 'args')!;
  assert.equal(report.status, 'manifest-error');
  assert.match(
    report.error ?? '',
    /"args"\[0\] "\.\.\/\.\.\/\.\.\/x\.js" names a path outside the extension directory/,
  );
  const refused = await s.run(['trust', 'args']);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /cannot trust args: .*"args"\[0\]/);
  assert.ok(!existsSync(`${s.marker}.args`), 'the file outside never ran');
  assert.ok(existsSync(argsDir));
});

test('a trusted Python project extension stays trusted after it ran (no __pycache__ written)', async () => {
  const s = sandbox();
  const dir = join(s.projectExtensions, 'py');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'extension.json'),
    JSON.stringify({ name: 'py', exec: 'python3', args: ['main.py'] }),
  );
  writeFileSync(join(dir, 'helper.py'), 'GREETING = "hi"\n');
  writeFileSync(
    join(dir, 'main.py'),
    [
      'import json, sys',
      'import helper',
      'def send(frame):',
      '    sys.stdout.write(json.dumps(frame) + "\\n")',
      '    sys.stdout.flush()',
      'send({"type": "hello", "name": "py", "version": "1.0.0"})',
      'for line in sys.stdin:',
      '    frame = json.loads(line)',
      '    if frame["type"] == "hello_ack":',
      '        send({"type": "ready"})',
      '    elif frame["type"] == "shutdown":',
      '        send({"type": "shutdown_ack"})',
      '        break',
      '',
    ].join('\n'),
  );
  assert.equal((await s.run(['trust', 'py', '--yes'])).code, 0);
  for (const run of ['first', 'second']) {
    // As for a user whose environment does not already turn bytecode off.
    const doctor = await runZot(['ext', 'doctor', '--json'], {
      home: s.home,
      cwd: s.project,
      env: { PYTHONDONTWRITEBYTECODE: undefined, ZOT_EXT_SHUTDOWN_GRACE_MS: '500' },
    });
    const report = (JSON.parse(doctor.stdout).extensions as Report[])[0]!;
    assert.equal(report.status, 'ready', `${run} run: ${report.error ?? ''}`);
  }
  assert.ok(!existsSync(join(dir, '__pycache__')));
});

test('trust asks [y/N] on a terminal; without --yes and without a terminal it records nothing', async (t) => {
  const s = sandbox();
  writeExtension(s.projectExtensions, { name: 'proj' });
  writeExtension(s.projectExtensions, { name: 'other' });
  const trustFile = join(s.home, 'trust.json');

  const piped = await s.run(['trust', 'proj']);
  assert.equal(piped.code, 2, piped.stderr);
  assert.match(piped.stdout, /^ {2}hash: {3}sha256:[0-9a-f]{64}$/m, 'the review is shown');
  assert.match(
    piped.stderr,
    /not trusted: proj; stdin is not a terminal, so zot cannot ask\. Read the review above, then run `zot ext trust proj --yes`/,
  );
  const all = await s.run(['trust', '--all']);
  assert.equal(all.code, 2);
  assert.match(all.stderr, /not trusted: other, proj; .*`zot ext trust --all --yes`/);
  assert.ok(!existsSync(trustFile), 'nothing recorded');

  if (!HAS_SCRIPT) return t.skip('no script(1) to provide a terminal');
  const onTerminal = (args: string[], text: string) =>
    runOnTerminal(['ext', ...args], {
      home: s.home,
      cwd: s.project,
      env: { ZOT_TEST_MARKER: s.marker },
      answer: { prompt: '[y/N]', text },
    });
  const declined = await onTerminal(['trust', 'proj'], 'n\n');
  assert.equal(declined.code, 1, declined.output);
  assert.match(
    declined.output,
    /Trust proj and let it run with your full rights\? \[y\/N\] n\r?\n/,
  );
  assert.match(declined.output, /proj was not trusted/);
  assert.ok(!existsSync(trustFile));
  const accepted = await onTerminal(['trust', 'proj'], 'y\n');
  assert.equal(accepted.code, 0, accepted.output);
  assert.match(accepted.output, /trusted proj; it will run from the next start/);
  const store = JSON.parse(readFileSync(trustFile, 'utf8'));
  assert.deepEqual(
    Object.values(store.extensions).map((r) => (r as { name: string }).name),
    ['proj'],
  );
  const again = await s.run(['trust', 'proj']);
  assert.equal(again.code, 0, 'already trusted with this content: nothing to ask');
  assert.match(again.stderr, /proj is already trusted with this content/);
});

test('the trust review shows escape sequences from the manifest and file names escaped', async () => {
  const s = sandbox();
  const dir = writeExtension(
    s.projectExtensions,
    { name: 'hostile' },
    {
      description: 'nice\x1b]0;owned\x07 \u202eevil\x9b2J',
      args: ['ext.mjs', '\x1b[1K\rinnocent', '--x=\x1b[8m'],
    },
  );
  writeFileSync(join(dir, 'evil\x1b[2J.txt'), 'x');
  symlinkSync('ext.mjs\x1b[0m', join(dir, 'link\x1b[31m'));
  for (const args of [['trust', 'hostile'], ['trust', 'hostile', '--yes'], ['trust']]) {
    const result = await s.run(args);
    const text = result.stdout + result.stderr;
    assert.ok(result.code === 0 || result.code === 2, text);
    assert.doesNotMatch(text, /[\x1b\x07\r\x9b\u202e]/, `${args.join(' ')}: no raw control`);
    if (args.length === 1) continue;
    assert.ok(text.includes("'\\x1b[1K\\rinnocent'"), text);
    assert.ok(text.includes('evil\\x1b[2J.txt'), text);
    assert.match(text, /link\\x1b\[31m +-> ext\.mjs\\x1b\[0m/);
    assert.ok(text.includes('nice\\x1b]0;owned\\x07 \\u202eevil\\x9b2J'), text);
  }
});

test('new scaffolds node, python and ts extensions that pass doctor --ext at once', async () => {
  const s = sandbox();
  const langs = ['node', 'python', 'ts'] as const;
  const created = await Promise.all(
    langs.map((lang) => s.run(['new', `demo-${lang}`, '--lang', lang])),
  );
  created.forEach((result, i) => assert.equal(result.code, 0, `${langs[i]}: ${result.stderr}`));
  // What was made is the command's result: stdout; nothing on stderr when all went well.
  created.forEach((result, i) => {
    assert.match(result.stdout, new RegExp(`^created demo-${langs[i]} \\(${langs[i]}\\) in `));
    assert.match(result.stdout, /^try it: zot ext doctor --ext /m);
    assert.equal(result.stderr, '');
  });
  for (const lang of langs) {
    const dir = join(s.project, `demo-${lang}`);
    assert.ok(existsSync(join(dir, 'extension.json')));
    assert.match(readFileSync(join(dir, 'README.md'), 'utf8'), new RegExp(`^# demo-${lang}`));
  }
  const args = langs.flatMap((lang) => ['--ext', `demo-${lang}`]);
  const doctor = await s.run(['doctor', '--json', ...args]);
  assert.equal(doctor.code, 0, doctor.stdout + doctor.stderr);
  const reports = JSON.parse(doctor.stdout).extensions as Report[];
  assert.deepEqual(
    reports.map((r) => [r.name, r.status, r.commands, r.tools, r.warnings]),
    langs.map((lang) => [
      `demo-${lang}`,
      'ready',
      [`demo-${lang}`],
      [{ name: `demo-${lang}_greet`, deferred: false }],
      [],
    ]),
  );

  const custom = await s.run(['new', 'other', '--dir', 'nested/place']);
  assert.equal(custom.code, 0, custom.stderr);
  assert.ok(existsSync(join(s.project, 'nested', 'place', 'index.mjs')));
  const taken = await s.run(['new', 'other', '--dir', 'nested/place']);
  assert.equal(taken.code, 1);
  assert.match(taken.stderr, /already exists and is not an empty directory/);
});

test('new --lang ts: dist/index.js is exactly what tsc emits for src/index.ts, which type-checks', async () => {
  const s = sandbox();
  assert.equal((await s.run(['new', 'typed.ext', '--lang', 'ts'])).code, 0);
  const dir = join(s.project, 'typed.ext');
  const typesNode = createRequire(import.meta.url).resolve('@types/node/package.json');
  const config = ts.readConfigFile(join(dir, 'tsconfig.json'), (path) => ts.sys.readFile(path));
  assert.equal(config.error, undefined);
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, dir, {
    typeRoots: [dirname(dirname(typesNode))],
  });
  const program = ts.createProgram({ rootNames: parsed.fileNames, options: parsed.options });
  const diagnostics = ts.getPreEmitDiagnostics(program);
  assert.deepEqual(
    diagnostics.map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n')),
    [],
  );
  const emitted = new Map<string, string>();
  program.emit(undefined, (path, text) => emitted.set(path, text));
  assert.equal(
    emitted.get(join(dir, 'dist', 'index.js')),
    readFileSync(join(dir, 'dist', 'index.js'), 'utf8'),
  );
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  assert.equal(pkg.scripts.build, 'tsc -p .');
  assert.equal(pkg.type, 'module');
});
