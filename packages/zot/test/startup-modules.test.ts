// Start-up stays fast because the print/JSON path loads none of the heavy or extension-only
// modules. Asserts on which modules load (a preload lists them at exit), not on wall-clock time.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, sep } from 'node:path';
import { after, before, test } from 'node:test';
import { fakeLlmFlags, startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { makeExtension } from './support/extensions.js';
import { makeSandbox, runZot, ZOT_BIN } from './support/zot.js';

let llm: FakeLlm;
const box = makeSandbox();
before(async () => {
  llm = await startFakeLlm();
});
after(async () => {
  await llm.close();
  box.cleanup();
});

// The bundle is CommonJS and loads everything with require(), packages included (a test below
// checks that no import() is left in it), so require's cache names every file a run loaded, and
// Node's own list names the built-in modules.
const LOADED_AT_EXIT = `
const { writeSync } = require('node:fs');
process.on('exit', () => {
  for (const file of Object.keys(require.cache)) writeSync(2, 'loaded ' + file + '\\n');
  writeSync(2, 'builtins ' + JSON.stringify(process.moduleLoadList) + '\\n');
});
`;
/** The same list, taken when the first HTTP request (the model request) is sent. */
const LOADED_AT_REQUEST = `
const { writeSync } = require('node:fs');
const http = require('node:http');
const end = http.ClientRequest.prototype.end;
let listed = false;
http.ClientRequest.prototype.end = function (...args) {
  if (!listed) {
    listed = true;
    for (const file of Object.keys(require.cache)) writeSync(2, 'loaded ' + file + '\\n');
  }
  return end.apply(this, args);
};
`;
/** fetch's HTTP client, whose load and WebAssembly compile cost a short run ~250 ms. */
const UNDICI = 'NativeModule internal/deps/undici/undici';
/** node:crypto, fs.promises and net.BlockList, each loaded by its first use only. */
const LAZY_BUILTINS = [
  'NativeModule crypto',
  'NativeModule internal/fs/promises',
  'NativeModule internal/blocklist',
];

/** The built-in modules a run listed through BUILTINS_AT_EXIT. */
function builtinsOf(stderr: string): string[] {
  const line = stderr.split('\n').find((l) => l.startsWith('builtins '));
  assert.ok(line, 'the preload listed the built-in modules');
  return JSON.parse(line.slice('builtins '.length)) as string[];
}

// What must stay off the --json path, and how loading it would show. The bundle leaves these
// packages in node_modules, so they load from their own directory:
const EXTERNAL = ['ajv', 'diff', '@sinclair/typebox'];
// and inlines our own modules into chunks; the build's module map (dist/bundle-modules.json, from
// Rollup's output) names every module a chunk holds (bounds.js, a small JSON guard, is meant
// to load).
const INLINED = [
  'packages/protocol/dist/src/decode.js',
  'packages/protocol/dist/src/generated/validators.js',
  'packages/zot/src/agent/generated/json-schema-meta.ts',
  'packages/zot/src/extensions/host.ts',
  'packages/zot/src/agent/validation-pool.ts',
];
/** Worker threads: only a tool call too costly to check on the event loop starts one. */
const WORKER_THREADS = 'NativeModule worker_threads';
const MODULES: Record<string, string[]> = JSON.parse(
  readFileSync(join(dirname(ZOT_BIN), '..', 'bundle-modules.json'), 'utf8'),
);

/** The directory a package loads from, as Node resolves it from the bundle. */
function packageDirectory(name: string): string {
  const paths = createRequire(ZOT_BIN).resolve.paths(name) ?? [];
  const base = paths.find((dir) => existsSync(join(dir, name, 'package.json')));
  assert.ok(base, `${name} resolves from the bundle`);
  return realpathSync(join(base, name)) + sep;
}

/** The source modules the given chunk files hold. */
function markersIn(files: string[]): Set<string> {
  const bundle = dirname(ZOT_BIN);
  return new Set(
    files.flatMap(
      (file) =>
        MODULES[
          file
            .slice(bundle.length + 1)
            .split(sep)
            .join('/')
        ] ?? [],
    ),
  );
}

/** The preload that lists what a process loaded, written into the sandbox; returns its path. */
function writePreload(when: 'exit' | 'request' = 'exit'): string {
  const preload = join(box.project, `loaded-at-${when}.cjs`);
  writeFileSync(preload, when === 'exit' ? LOADED_AT_EXIT : LOADED_AT_REQUEST);
  return preload;
}

const CACHE_HOME = join(box.project, '..', 'xdg-cache');

/** What a zot run loaded: the bundle chunks' source modules, and files from the packages. */
async function loadedBy(
  args: string[],
  input?: string,
  home = box.home,
  when: 'exit' | 'request' = 'exit',
): Promise<{ modules: Set<string>; files: string[]; stdout: string; stderr: string }> {
  const preload = writePreload(when);
  const result = await runZot([...args, '--no-session', ...fakeLlmFlags(llm.url)], {
    home,
    cwd: box.project,
    // A code cache of this file's own: files other tests' zot wrote carry other keys.
    env: { NODE_OPTIONS: `--require ${preload}`, XDG_CACHE_HOME: CACHE_HOME },
    ...(input === undefined ? {} : { input }),
  });
  assert.equal(result.code, 0, result.stderr);
  const files = result.stderr
    .split('\n')
    .filter((line) => line.startsWith('loaded /'))
    .map((line) => line.slice('loaded '.length));
  const bundle = dirname(ZOT_BIN);
  const chunks = files.filter((file) => file.startsWith(bundle));
  assert.ok(chunks.includes(ZOT_BIN), 'the bundle ran');
  return { modules: markersIn(chunks), files, stdout: result.stdout, stderr: result.stderr };
}

/** Asserts that none of the packages in `external` nor the `inlined` modules loaded. */
function assertNoneLoaded(
  loaded: { modules: Set<string>; files: string[]; stderr: string },
  external: string[],
  inlined: string[],
): void {
  // The needles can match: the markers are in the bundle and the packages resolve from it.
  const bundle = dirname(ZOT_BIN);
  const every = markersIn(
    readdirSync(join(bundle, 'chunks')).map((f) => join(bundle, 'chunks', f)),
  );
  for (const module of inlined) assert.ok(every.has(module), `the bundle holds ${module}`);
  const directories = external.map(packageDirectory);
  for (const module of inlined)
    assert.ok(!loaded.modules.has(module), `${module} stays off the start-up path`);
  // fetch (undici) stays unloaded: the providers talk node:http.
  assert.ok(!builtinsOf(loaded.stderr).includes(UNDICI), 'fetch (undici) stays off the path');
  assert.ok(!builtinsOf(loaded.stderr).includes(WORKER_THREADS), 'no worker thread either');
  for (const directory of directories) {
    const from = loaded.files.filter((file) => realpathSync(file).startsWith(directory));
    assert.deepEqual(from, [], `${directory} stays off the start-up path`);
  }
}

test('the bundle is CommonJS that loads with require() only, so the preload sees every file', () => {
  const bundle = dirname(ZOT_BIN);
  const pkg = JSON.parse(readFileSync(join(bundle, 'package.json'), 'utf8')) as { type?: string };
  assert.equal(pkg.type, 'commonjs');
  const files = [
    ZOT_BIN,
    ...readdirSync(join(bundle, 'chunks')).map((f) => join(bundle, 'chunks', f)),
  ];
  for (const file of files) {
    assert.doesNotMatch(readFileSync(file, 'utf8'), /\bimport\(/, `${file} has no import()`);
  }
  // A package loaded by require() shows in the preload's list.
  const probe = spawnSync(process.execPath, ['--require', writePreload(), '-e', "require('ajv')"], {
    encoding: 'utf8',
    cwd: bundle,
  });
  const ajv = packageDirectory('ajv');
  assert.ok(
    probe.stderr.split('\n').some((line) => line.startsWith(`loaded ${ajv}`)),
    'the preload lists a package that loaded',
  );
});

test('a --json run without extensions loads no Ajv, diff, TypeBox, protocol decoder, extension host, fetch or lazy built-ins', async () => {
  // The run measured is a second one, as most runs are: a first run may write state (a lock
  // file whose token comes from node:crypto) that later runs only read.
  llm.script({ text: 'hi' });
  await loadedBy(['--json', 'hello']);
  llm.script({ text: 'hi' });
  const loaded = await loadedBy(['--json', 'hello']);
  // The needles match in a process that touches fetch and the lazily loaded built-ins.
  const probe = spawnSync(
    process.execPath,
    [
      '--require',
      writePreload(),
      '-e',
      "require('crypto'); require('fs').promises; require('net').BlockList; require('worker_threads'); fetch('http://127.0.0.1:1').catch(() => {})",
    ],
    { encoding: 'utf8' },
  );
  const probed = builtinsOf(probe.stderr);
  for (const needle of [UNDICI, WORKER_THREADS, ...LAZY_BUILTINS]) {
    assert.ok(probed.includes(needle), `the needle ${needle} matches when it loads`);
  }
  // Built-ins that only some runs need load on first use (util/builtins.ts; the file tools use
  // fs.promises). The code cache knows the files it wrote by their seals: no node:crypto either.
  const builtins = builtinsOf(loaded.stderr);
  for (const needle of LAZY_BUILTINS) assert.ok(!builtins.includes(needle), `${needle} stays off`);
  // The scan sees what did load.
  for (const module of ['packages/zot/src/session/session.ts', 'packages/zot/src/modes/json.ts']) {
    assert.ok(loaded.modules.has(module), `the scan sees ${module}`);
  }
  assertNoneLoaded(loaded, EXTERNAL, INLINED);
});

test('a print run with one read tool call loads no Ajv: the built-in tools bring generated validators', async () => {
  writeFileSync(join(box.project, 'notes.txt'), 'one\ntwo\n');
  llm.script({ toolCalls: [{ name: 'read', args: { path: 'notes.txt' } }] }, { text: 'read it' });
  const before = llm.requests.length;
  const loaded = await loadedBy(['-p', 'read notes.txt']);
  for (const module of [
    'packages/zot/src/tools/read.ts',
    'packages/zot/src/tools/generated/arg-validators.ts',
    'packages/zot/src/agent/tool-call.ts',
  ]) {
    assert.ok(loaded.modules.has(module), `the scan sees ${module}`);
  }
  assertNoneLoaded(loaded, EXTERNAL, INLINED);
  const requests = llm.requests.slice(before);
  assert.equal(requests.length, 2, 'the tool result went back to the model');
  assert.match(JSON.stringify(requests[1]!.body), /1\\t?one/, 'with the file read');
});

test('an RPC run with one read tool call loads no Ajv, TypeBox, protocol decoder or extension host', async () => {
  writeFileSync(join(box.project, 'notes.txt'), 'one\ntwo\n');
  llm.script({ toolCalls: [{ name: 'read', args: { path: 'notes.txt' } }] }, { text: 'read it' });
  const request = { type: 'prompt', id: 'p1', message: 'read notes.txt' };
  const loaded = await loadedBy(['rpc'], JSON.stringify(request) + '\n');
  const events = loaded.stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { type: string; is_error?: boolean });
  const result = events.find((event) => event.type === 'tool_result');
  assert.equal(result?.is_error, false, 'the read ran');
  assert.ok(loaded.modules.has('packages/zot/src/modes/rpc-decode.ts'), 'the scan sees RPC');
  assertNoneLoaded(loaded, EXTERNAL, INLINED);
});

test('a print run with one extension tool call checks its arguments on the event loop: no worker thread', async () => {
  const own = makeSandbox();
  try {
    makeExtension(join(own.home, 'extensions'), 'small', 'well-behaved', {
      tools: [
        {
          name: 'lookup',
          schema: { type: 'object', properties: { key: { type: 'string' } }, required: ['key'] },
        },
      ],
    });
    llm.script({ toolCalls: [{ name: 'lookup', args: { key: 'k' } }] }, { text: 'looked' });
    const before = llm.requests.length;
    const loaded = await loadedBy(['-p', 'look up k'], undefined, own.home);
    const ajv = packageDirectory('ajv');
    assert.ok(
      loaded.files.some((file) => realpathSync(file).startsWith(ajv)),
      'the scan sees Ajv, which checked the arguments',
    );
    assert.ok(
      !loaded.modules.has('packages/zot/src/agent/validation-pool.ts'),
      'the validation pool stays unloaded',
    );
    assert.ok(!builtinsOf(loaded.stderr).includes(WORKER_THREADS), 'no worker thread started');
    assert.match(JSON.stringify(llm.requests.slice(before)[1]!.body), /lookup:/, 'the tool ran');
  } finally {
    own.cleanup();
  }
});

test('a print run with a remembered extension loads no tool-schema check before its model request', async () => {
  const own = makeSandbox();
  try {
    makeExtension(join(own.home, 'extensions'), 'small', 'well-behaved', {
      tools: [
        { name: 'lookup', schema: { type: 'object', properties: { key: { type: 'string' } } } },
      ],
    });
    // The first run waits for the extension, checks the tool's schema and remembers (and
    // seals) what it registered. (The same preload in both runs: the environment is part of
    // what zot remembers an extension by.)
    llm.script({ text: 'first' });
    const first = await loadedBy(['-p', 'hi'], undefined, own.home, 'request');
    assert.ok(
      first.modules.has('packages/zot/src/agent/schema-check.ts'),
      'the scan sees the schema check, which checked the live registration',
    );
    llm.script({ text: 'second' });
    const before = llm.requests.length;
    const second = await loadedBy(['-p', 'hi'], undefined, own.home, 'request');
    assert.match(JSON.stringify(llm.requests.slice(before)[0]!.body), /lookup/, 'tool offered');
    for (const module of [
      'packages/zot/src/agent/schema-check.ts',
      'packages/zot/src/agent/generated/json-schema-meta.ts',
      'packages/zot/src/util/safe-regex.ts',
    ])
      assert.ok(!second.modules.has(module), `${module} waits for the extension's first frame`);
  } finally {
    own.cleanup();
  }
});
