// `zot ext new --lang python`: an extension on zot_sdk, the SDK copied at that moment from the
// zot that runs (its own sdk-python/zot_sdk, found relative to its bundle), working in the real
// host from the moment it is generated. And `"sdk": "python"`: zot's own SDK on PYTHONPATH.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import {
  appendFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { EXAMPLES, FAST_TIMEOUTS, expectNoLeftovers } from './support/extensions.js';
import { fakeLlmFlags, startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { hangGuard } from './support/timing.js';
import { cleanEnv, collect, jsonLines, makeSandbox, runZot, ZOT_BIN } from './support/zot.js';

const REPO = join(EXAMPLES, '..', '..');
const SDK = join(REPO, 'sdk-python', 'zot_sdk');

let llm: FakeLlm;
before(async () => {
  llm = await startFakeLlm();
});
after(() => llm.close());

const sdkModules = (dir: string) =>
  readdirSync(dir)
    .filter((name) => name.endsWith('.py'))
    .sort();

test('new --lang python: main.py on zot_sdk runs its command and its tool in the real host', async (t) => {
  const box = makeSandbox();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  const run = (args: string[]) =>
    runZot(args, {
      home: box.home,
      cwd: box.project,
      env: { ...FAST_TIMEOUTS, PYTHONPATH: undefined, PYTHONDONTWRITEBYTECODE: '1' },
    });
  const created = await run(['ext', 'new', 'greeter', '--lang', 'python']);
  assert.equal(created.code, 0, created.stderr);
  const dir = join(box.project, 'greeter');
  assert.ok(statSync(join(dir, 'main.py')).mode & 0o100, 'main.py is executable');
  assert.match(readFileSync(join(dir, 'main.py'), 'utf8'), /^from zot_sdk import Extension/m);
  // The SDK as this zot has it, module for module (and nothing else: no __pycache__).
  assert.deepEqual(readdirSync(join(dir, 'zot_sdk')).sort(), sdkModules(SDK));
  for (const name of sdkModules(SDK)) {
    assert.equal(
      readFileSync(join(dir, 'zot_sdk', name), 'utf8'),
      readFileSync(join(SDK, name), 'utf8'),
    );
  }
  const manifest = JSON.parse(readFileSync(join(dir, 'extension.json'), 'utf8'));
  assert.deepEqual([manifest.exec, manifest.args], ['python3', ['main.py']]);

  const shown = await run([
    '--json',
    '--no-session',
    ...fakeLlmFlags(llm.url),
    '--ext',
    dir,
    '/greeter there',
  ]);
  assert.equal(shown.code, 0, shown.stderr);
  const display = jsonLines(shown.stdout).find((event) => event.type === 'ext_display');
  assert.equal(display?.text, 'hello from greeter: there');

  llm.script(
    { toolCalls: [{ id: 'g1', name: 'greeter_greet', args: { name: 'Kim' } }] },
    { text: 'done' },
  );
  const called = await run([
    '--json',
    '--no-session',
    ...fakeLlmFlags(llm.url),
    '--ext',
    dir,
    'greet Kim',
  ]);
  assert.equal(called.code, 0, called.stderr);
  const result = jsonLines(called.stdout).find((event) => event.type === 'tool_result');
  assert.deepEqual(result?.content, [{ type: 'text', text: 'Hello, Kim!' }]);
  assert.equal(result?.extension, 'greeter');
});

/**
 * zot as `npm pack` ships it, unpacked elsewhere (made once: packing takes seconds). Its
 * node_modules is the repository's: the tarball has no dependencies of its own to install.
 */
let packed: string | undefined;
let packDir: string | undefined;
after(() => {
  if (packDir) rmSync(packDir, { recursive: true, force: true });
});
function packedZot(): string {
  if (packed !== undefined) return packed;
  const dir = mkdtempSync(join(tmpdir(), 'zot-packed-'));
  packDir = dir;
  const result = spawnSync(
    'npm',
    ['pack', '--ignore-scripts', '--json', '--pack-destination', dir],
    {
      cwd: REPO,
      encoding: 'utf8',
      env: { ...process.env, npm_config_loglevel: 'silent' },
    },
  );
  assert.equal(result.status, 0, result.stderr);
  const tarball = (JSON.parse(result.stdout) as Array<{ filename: string }>)[0]!.filename;
  const untar = spawnSync('tar', ['-xzf', join(dir, tarball), '-C', dir], { encoding: 'utf8' });
  assert.equal(untar.status, 0, untar.stderr);
  packed = join(dir, 'package');
  return packed;
}

/** A copy of the packed zot in `base`; returns its bin. Without its SDK if `withPythonSdk` is false. */
function installZot(base: string, withPythonSdk = true): string {
  const root = join(base, 'installed-zot');
  cpSync(packedZot(), root, { recursive: true });
  symlinkSync(join(REPO, 'node_modules'), join(root, 'node_modules'));
  const sdk = join(root, 'sdk-python', 'zot_sdk');
  if (withPythonSdk) {
    // Marks this copy, so the tests can tell it from the repository's.
    appendFileSync(join(sdk, '__init__.py'), '\nINSTALLED_COPY = True\n');
  } else {
    rmSync(sdk, { recursive: true });
  }
  return join(root, 'packages', 'zot', 'dist', 'bundle', 'main.js');
}

function runInstalled(bin: string, args: string[], home: string, cwd: string) {
  const child = spawn(process.execPath, [bin, ...args], {
    cwd,
    env: cleanEnv(home, { ...FAST_TIMEOUTS, PYTHONPATH: undefined, PYTHONDONTWRITEBYTECODE: '1' }),
    stdio: 'pipe',
  });
  return collect(child, undefined, hangGuard(30_000));
}

/** An extension declaring "sdk": "python" whose command says which zot_sdk it imported. */
function whichSdkExtension(dir: string): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'extension.json'),
    JSON.stringify({ name: 'which-sdk', exec: 'python3', args: ['main.py'], sdk: 'python' }),
  );
  writeFileSync(
    join(dir, 'main.py'),
    [
      'import zot_sdk',
      'from zot_sdk import Extension',
      'ext = Extension("which-sdk")',
      '@ext.command("which-sdk", "where zot_sdk is")',
      'def which(args):',
      '    return "%s installed=%s" % (zot_sdk.__file__, getattr(zot_sdk, "INSTALLED_COPY", False))',
      'ext.run()',
      '',
    ].join('\n'),
  );
}

test('zot unpacked from npm pack copies and provides its own SDK, found relative to its bundle; --lang ts works there too', async (t) => {
  const box = makeSandbox();
  t.after(() => box.cleanup());
  const bin = installZot(join(box.home, '..'));
  assert.notEqual(bin, ZOT_BIN);
  const sdk = join(bin, '..', '..', '..', '..', '..', 'sdk-python', 'zot_sdk');

  const created = await runInstalled(
    bin,
    ['ext', 'new', 'greeter', '--lang', 'python'],
    box.home,
    box.project,
  );
  assert.equal(created.code, 0, created.stderr);
  assert.match(
    readFileSync(join(box.project, 'greeter', 'zot_sdk', '__init__.py'), 'utf8'),
    /INSTALLED_COPY = True/,
  );

  const ext = join(box.project, 'which-sdk');
  whichSdkExtension(ext);
  const shown = await runInstalled(
    bin,
    ['-p', '--no-session', ...fakeLlmFlags(llm.url), '--ext', ext, '/which-sdk'],
    box.home,
    box.project,
  );
  assert.equal(shown.code, 0, shown.stderr);
  assert.equal(shown.stdout, `${join(sdk, '__init__.py')} installed=True\n`);

  // The TypeScript scaffold takes its SDK from the same package (packages/sdk/dist/pack).
  const typed = await runInstalled(
    bin,
    ['ext', 'new', 'typed', '--lang', 'ts'],
    box.home,
    box.project,
  );
  assert.equal(typed.code, 0, typed.stderr);
  assert.ok(
    existsSync(join(box.project, 'typed', 'vendor', 'zot-sdk', 'dist', 'pack', 'index.js')),
  );
});

test('without its Python SDK, zot says what is missing: ext new fails, an "sdk" extension does not start', async (t) => {
  const box = makeSandbox();
  t.after(() => box.cleanup());
  const bin = installZot(join(box.home, '..'), false);
  const missing = join(bin, '..', '..', '..', '..', '..', 'sdk-python', 'zot_sdk', '__init__.py');

  const created = await runInstalled(
    bin,
    ['ext', 'new', 'greeter', '--lang', 'python'],
    box.home,
    box.project,
  );
  assert.equal(created.code, 1);
  assert.ok(created.stderr.includes(`${missing} is missing from this zot`), created.stderr);
  assert.throws(() => statSync(join(box.project, 'greeter')), /ENOENT/);

  const ext = join(box.project, 'which-sdk');
  whichSdkExtension(ext);
  const doctor = await runInstalled(bin, ['ext', 'doctor', '--ext', ext], box.home, box.project);
  assert.notEqual(doctor.code, 0);
  assert.ok(
    doctor.stdout.includes(`"sdk": "python" asks for zot's Python SDK, but ${missing} is missing`),
    doctor.stdout + doctor.stderr,
  );
});
