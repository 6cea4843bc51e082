// V8 code kept between runs for the bundle's chunks (util/code-cache.ts): real child processes
// compile real CommonJS chunks, once from source and then from the kept data; damaged, foreign
// or blocking cache files and an unwritable directory change nothing but speed.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { resolveCacheDir } from '../src/config/paths.js';
import { fakeLlmFlags, startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { hangGuard } from './support/timing.js';
import { makeSandbox, runZot } from './support/zot.js';

const CODE_CACHE = fileURLToPath(new URL('../src/util/code-cache.js', import.meta.url));
const box = makeSandbox();
let llm: FakeLlm;
before(async () => {
  llm = await startFakeLlm();
});
after(async () => {
  await llm.close();
  box.cleanup();
});

interface ChildRun {
  value: number | string;
  /** Whether node:crypto had loaded by the time the chunks had run (before the exit's writes). */
  crypto: boolean;
  fromCache: string[];
  compiled: string[];
  stderr: string;
}

/** A chunks directory with two CommonJS chunks, one requiring the other; returns its path. */
function writeChunks(name: string): string {
  const chunks = join(box.project, name, 'chunks');
  mkdirSync(chunks, { recursive: true });
  writeFileSync(join(chunks, 'helper-a1.js'), 'exports.base = 20;\n');
  writeFileSync(
    join(chunks, 'answer-b2.js'),
    "'use strict';\nfunction twice(n) { return n * 2; }\nexports.value = twice(require('./helper-a1.js').base) + 2;\n",
  );
  writeFileSync(join(box.project, name, 'outside.js'), 'exports.value = 7;\n');
  return chunks;
}

/**
 * Runs a child that uses the cache (its key in `<cache>-keys`, unless `keys` says otherwise) and
 * requires `file`; returns what it saw.
 */
function runChild(
  chunks: string,
  cache: string,
  file = join(chunks, 'answer-b2.js'),
  options: { keys?: string; cwd?: string } = {},
): ChildRun {
  const dirs = { cacheDir: cache, keyDir: options.keys ?? `${cache}-keys` };
  const script = [
    `import { useCodeCache } from ${JSON.stringify(CODE_CACHE)};`,
    "import { createRequire } from 'node:module';",
    `const stats = useCodeCache(${JSON.stringify(chunks)}, ${JSON.stringify(dirs)});`,
    `const { value } = createRequire(${JSON.stringify(file)})(${JSON.stringify(file)});`,
    "const crypto = process.moduleLoadList.includes('NativeModule crypto');",
    'process.stdout.write(JSON.stringify({ value, crypto, ...stats }));',
  ].join('\n');
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    encoding: 'utf8',
    timeout: hangGuard(10_000),
    ...(options.cwd ? { cwd: options.cwd } : {}),
  });
  assert.equal(child.status, 0, `the child ran: ${child.stderr}${String(child.error ?? '')}`);
  return { ...(JSON.parse(child.stdout) as Omit<ChildRun, 'stderr'>), stderr: child.stderr };
}

/** The cache files written for a cache directory: name -> path. */
function cacheFiles(cache: string): Map<string, string> {
  const found = new Map<string, string>();
  if (!existsSync(cache)) return found;
  for (const dir of readdirSync(cache)) {
    for (const name of readdirSync(join(cache, dir))) found.set(name, join(cache, dir, name));
  }
  return found;
}

const keyOf = (files: Map<string, string>, chunk: string) =>
  [...files.keys()].find((name) => name.startsWith(`${chunk}-`));

test('a chunk compiles from source once, then from the kept data, with the same result', () => {
  const chunks = writeChunks('fresh');
  const cache = join(box.project, 'fresh-cache');
  const first = runChild(chunks, cache);
  assert.equal(first.value, 42);
  assert.deepEqual(first.fromCache, []);
  assert.deepEqual(first.compiled.sort(), ['answer-b2.js', 'helper-a1.js']);
  const files = cacheFiles(cache);
  assert.equal(files.size, 2, `one file per chunk: ${[...files.keys()].join(', ')}`);
  for (const path of files.values()) {
    assert.equal(statSync(path).mode & 0o777, 0o600, `${path} is private`);
  }
  const second = runChild(chunks, cache);
  assert.equal(second.value, 42);
  assert.deepEqual(second.fromCache.sort(), ['answer-b2.js', 'helper-a1.js']);
  assert.deepEqual(second.compiled, []);
  assert.equal(second.stderr, '');
});

test('stack traces point at the right line and column, from source and from kept data', () => {
  const chunks = writeChunks('stacks');
  const cache = join(box.project, 'stacks-cache');
  const source =
    "'use strict';const where = () => new Error('here').stack.split('\\n')[1];\nexports.value = where();\n";
  const file = join(chunks, 'where-d4.js');
  writeFileSync(file, source);
  const column = source.indexOf('new Error') + 1;
  for (const expected of [['where-d4.js'], []]) {
    const run = runChild(chunks, cache, file);
    assert.deepEqual(run.compiled, expected);
    assert.match(String(run.value), new RegExp(`where-d4\\.js:1:${column}\\)?$`));
  }
});

test('files outside the chunks directory are left to Node', () => {
  const chunks = writeChunks('outside');
  const cache = join(box.project, 'outside-cache');
  const run = runChild(chunks, cache, join(chunks, '..', 'outside.js'));
  assert.equal(run.value, 7);
  assert.deepEqual([run.fromCache, run.compiled], [[], []]);
  assert.equal(cacheFiles(cache).size, 0);
});

test('damaged, empty and foreign cache files are ignored, and replaced by good ones', () => {
  const chunks = writeChunks('damaged');
  const cache = join(box.project, 'damaged-cache');
  runChild(chunks, cache);
  const files = cacheFiles(cache);
  const answer = files.get(keyOf(files, 'answer-b2.js')!)!;
  const helper = files.get(keyOf(files, 'helper-a1.js')!)!;
  writeFileSync(answer, 'not V8 data at all');
  writeFileSync(helper, '');
  const run = runChild(chunks, cache);
  assert.equal(run.value, 42);
  assert.deepEqual(run.compiled.sort(), ['answer-b2.js', 'helper-a1.js']);
  assert.notEqual(
    readFileSync(answer, 'utf8'),
    'not V8 data at all',
    'the damaged file was replaced',
  );
  assert.ok(statSync(helper).size > 0, 'the empty file was replaced');
  // Data made for another chunk: its tag names the other file (and V8 would refuse it too).
  writeFileSync(helper, readFileSync(answer));
  const again = runChild(chunks, cache);
  assert.equal(again.value, 42);
  assert.ok(again.compiled.includes('helper-a1.js'), 'the foreign data was not used');
});

test(
  'a cache file or directory that others may write to is not trusted',
  { skip: process.platform === 'win32' },
  () => {
    const chunks = writeChunks('shared');
    const cache = join(box.project, 'shared-cache');
    runChild(chunks, cache);
    const files = cacheFiles(cache);
    const answer = files.get(keyOf(files, 'answer-b2.js')!)!;
    chmodSync(answer, 0o666);
    const run = runChild(chunks, cache);
    assert.equal(run.value, 42);
    assert.deepEqual(run.fromCache, ['helper-a1.js'], 'only the private file was used');
    assert.equal(statSync(answer).mode & 0o777, 0o600, 'and the open one was replaced');
    if (process.getuid?.() === 0) {
      // (as root, the test can hand a file to another user)
      const helper = files.get(keyOf(files, 'helper-a1.js')!)!;
      chownSync(helper, 65534, 65534);
      assert.ok(runChild(chunks, cache).compiled.includes('helper-a1.js'), "another user's file");
    }
    const dir = dirname(answer);
    chmodSync(dir, 0o777);
    const before = readdirSync(dir).map((name) => [name, statSync(join(dir, name)).mtimeMs]);
    const open = runChild(chunks, cache);
    assert.equal(open.value, 42);
    assert.deepEqual([open.fromCache, open.compiled], [[], []], 'the directory is left alone');
    assert.deepEqual(
      readdirSync(dir).map((name) => [name, statSync(join(dir, name)).mtimeMs]),
      before,
      'nothing was written into it',
    );
  },
);

test(
  'a FIFO where a cache file should be does not block the run',
  { skip: process.platform === 'win32' },
  () => {
    const chunks = writeChunks('fifo');
    const cache = join(box.project, 'fifo-cache');
    runChild(chunks, cache);
    const files = cacheFiles(cache);
    const answer = files.get(keyOf(files, 'answer-b2.js')!)!;
    const mkfifo = spawnSync('sh', ['-c', `rm -f "$1" && mkfifo "$1"`, 'sh', answer]);
    assert.equal(mkfifo.status, 0, 'mkfifo made the FIFO');
    const run = runChild(chunks, cache);
    assert.equal(run.value, 42);
    assert.ok(run.compiled.includes('answer-b2.js'));
    assert.ok(statSync(answer).isFile(), 'the FIFO was replaced by a regular file');
  },
);

/**
 * Writes V8 data for a different source of the same length as `answer-b2.js` (V8 checks only the
 * length) over its cache file, as whoever supplied the cache directory could: made by a child
 * started like runChild, so V8's flags match. `prefix` goes before the data.
 */
function plantEvil(chunks: string, cache: string, prefix: Buffer = Buffer.alloc(0)): void {
  const file = join(chunks, 'answer-b2.js');
  const files = cacheFiles(cache);
  const target = files.get(keyOf(files, 'answer-b2.js')!)!;
  const script = [
    "import Module from 'node:module';",
    "import { Script } from 'node:vm';",
    "import { readFileSync, writeFileSync } from 'node:fs';",
    `const file = ${JSON.stringify(file)};`,
    "const length = readFileSync(file, 'utf8').length;",
    "const evil = 'exports.value = 666; //'.padEnd(length - 1, 'x') + '\\n';",
    'const data = new Script(Module.wrap(evil), { filename: file }).createCachedData();',
    `writeFileSync(${JSON.stringify(target)}, Buffer.concat([Buffer.from(${JSON.stringify(prefix.toString('base64'))}, 'base64'), data]));`,
  ].join('\n');
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    encoding: 'utf8',
    timeout: hangGuard(10_000),
  });
  assert.equal(child.status, 0, child.stderr);
  chmodSync(target, 0o644); // a checked-out file: the user's, writable by no one else
}

test('V8 data zot did not write never runs: planted raw, with a forged tag, or signed with another key', () => {
  const chunks = writeChunks('planted');
  const cache = join(box.project, 'planted-cache');
  runChild(chunks, cache);
  assert.deepEqual(runChild(chunks, cache).fromCache.sort(), ['answer-b2.js', 'helper-a1.js']);
  const otherKey = randomBytes(32);
  const forged = [
    Buffer.alloc(0),
    randomBytes(32),
    // a tag made with a key of the planter's own, over the right name and the data
    createHmac('sha256', otherKey).update('x').digest(),
  ];
  for (const prefix of forged) {
    plantEvil(chunks, cache, prefix);
    const run = runChild(chunks, cache);
    assert.equal(run.value, 42, 'the planted code did not run');
    assert.deepEqual(run.compiled, ['answer-b2.js'], 'the chunk compiled from source');
    assert.deepEqual(run.fromCache, ['helper-a1.js'], 'the file zot wrote is still used');
  }
});

test('files zot wrote are known by their seals, so a start with kept code loads no node:crypto', () => {
  const chunks = writeChunks('sealed');
  const cache = join(box.project, 'sealed-cache');
  const keys = `${cache}-keys`;
  assert.equal(runChild(chunks, cache).compiled.length, 2);
  const sealed = runChild(chunks, cache);
  assert.deepEqual([sealed.fromCache.length, sealed.crypto], [2, false]);
  // Without the seals, the tags are checked (node:crypto loads), and the files sealed again.
  const seals = readdirSync(keys).filter((name) => name.endsWith('.seals'));
  assert.equal(seals.length, 1, readdirSync(keys).join(', '));
  assert.equal(statSync(join(keys, seals[0]!)).mode & 0o777, 0o600);
  rmSync(join(keys, seals[0]!));
  const checked = runChild(chunks, cache);
  assert.deepEqual([checked.fromCache.length, checked.crypto], [2, true]);
  const again = runChild(chunks, cache);
  assert.deepEqual([again.fromCache.length, again.crypto], [2, false]);
  // A file changed in place keeps its inode but not its change time: its tag is checked.
  const files = cacheFiles(cache);
  const answer = files.get(keyOf(files, 'answer-b2.js')!)!;
  writeFileSync(answer, readFileSync(answer));
  const rewritten = runChild(chunks, cache);
  assert.deepEqual([rewritten.fromCache.length, rewritten.crypto], [2, true]);
});

test(
  'a key others may read, or in a directory others may enter, is not used',
  { skip: process.platform === 'win32' },
  () => {
    const chunks = writeChunks('keys');
    const cache = join(box.project, 'keys-cache');
    const keys = `${cache}-keys`;
    runChild(chunks, cache);
    const key = join(keys, 'code-cache.key');
    assert.equal(statSync(key).mode & 0o777, 0o600, 'the key is private');
    assert.equal(statSync(keys).mode & 0o777, 0o700, 'and so is its directory');
    assert.equal(readFileSync(key).length, 32);
    assert.equal(runChild(chunks, cache).fromCache.length, 2);
    chmodSync(key, 0o644);
    assert.deepEqual(runChild(chunks, cache).fromCache, [], 'a readable key is no key');
    chmodSync(key, 0o600);
    chmodSync(keys, 0o755);
    assert.deepEqual(runChild(chunks, cache).fromCache, [], 'nor one in an open directory');
    chmodSync(keys, 0o700);
    assert.equal(runChild(chunks, cache).fromCache.length, 2, 'private again: used again');
  },
);

test(
  'a cache inside the project, or below a directory others may write to, is not used',
  { skip: process.platform === 'win32' },
  () => {
    const chunks = writeChunks('placed');
    // the project: a repository, with the cache (say, a cloned HOME's .cache) inside it
    const project = join(box.project, 'cloned-home');
    mkdirSync(join(project, '.git'), { recursive: true });
    const inside = join(project, '.cache', 'zot');
    const keys = join(box.project, 'placed-keys');
    for (let i = 0; i < 2; i++) {
      const run = runChild(chunks, inside, undefined, { keys, cwd: join(project) });
      assert.equal(run.value, 42);
      assert.deepEqual([run.fromCache, run.compiled], [[], []], 'left to Node');
    }
    assert.ok(!existsSync(inside), 'nothing was written inside the project');
    // the same cache, used from elsewhere, works
    assert.equal(runChild(chunks, inside, undefined, { keys }).compiled.length, 2);
    // a parent others may write to (not sticky): anyone could swap the directory below it
    const open = join(box.project, 'open-parent');
    mkdirSync(open);
    chmodSync(open, 0o777);
    const below = join(open, 'cache');
    for (let i = 0; i < 2; i++) {
      const run = runChild(chunks, below, undefined, { keys });
      assert.deepEqual([run.fromCache, run.compiled], [[], []], 'left to Node');
    }
    assert.ok(!existsSync(below), 'nothing was written below it');
    // a sticky one (like /tmp) is fine: others cannot rename what is not theirs
    chmodSync(open, 0o1777);
    runChild(chunks, below, undefined, { keys });
    assert.equal(runChild(chunks, below, undefined, { keys }).fromCache.length, 2);
  },
);

test('an edited chunk gets a new key, and its old data is removed', () => {
  const chunks = writeChunks('edited');
  const cache = join(box.project, 'edited-cache');
  runChild(chunks, cache);
  const before = keyOf(cacheFiles(cache), 'answer-b2.js');
  writeFileSync(join(chunks, 'answer-b2.js'), 'exports.value = 43;\n');
  const later = new Date(Date.now() + 5_000);
  utimesSync(join(chunks, 'answer-b2.js'), later, later);
  const run = runChild(chunks, cache);
  assert.equal(run.value, 43, 'the new source ran, not the old data');
  assert.deepEqual(run.compiled, ['answer-b2.js']);
  const after = cacheFiles(cache);
  const now = keyOf(after, 'answer-b2.js');
  assert.ok(now && now !== before, 'a new key');
  assert.ok(!after.has(before!), 'the old key was removed');
  assert.equal(after.size, 2);
});

test('a temporary file left by a killed run is removed; one being written is not', () => {
  const chunks = writeChunks('leftovers');
  const cache = join(box.project, 'leftovers-cache');
  runChild(chunks, cache);
  const dir = dirname([...cacheFiles(cache).values()][0]!);
  const abandoned = join(dir, 'answer-b2.js-1-1.v8.4242.tmp');
  const live = join(dir, 'answer-b2.js-1-1.v8.4343.tmp');
  writeFileSync(abandoned, 'partial');
  writeFileSync(live, 'partial');
  const old = new Date(Date.now() - 10 * 60_000);
  utimesSync(abandoned, old, old);
  // an edit makes the next run write, and tidy up after itself
  writeFileSync(join(chunks, 'helper-a1.js'), 'exports.base = 21;\n');
  const later = new Date(Date.now() + 5_000);
  utimesSync(join(chunks, 'helper-a1.js'), later, later);
  assert.equal(runChild(chunks, cache).value, 44);
  assert.ok(!existsSync(abandoned), 'the abandoned file is gone');
  assert.ok(existsSync(live), 'a file another run may be writing stays');
});

test('an unwritable cache directory changes nothing but speed', () => {
  const chunks = writeChunks('unwritable');
  const blocker = join(box.project, 'a-file');
  writeFileSync(blocker, 'x');
  for (let i = 0; i < 2; i++) {
    const run = runChild(chunks, join(blocker, 'cache'));
    assert.equal(run.value, 42);
    assert.equal(run.stderr, '', 'nothing is reported');
    assert.deepEqual(run.fromCache, []);
  }
});

test('the cache directory follows XDG_CACHE_HOME, then the platform, never ZOT_HOME', () => {
  assert.equal(resolveCacheDir({ ZOT_HOME: '/z', XDG_CACHE_HOME: '/x' }, 'linux'), '/x/zot');
  assert.equal(resolveCacheDir({ ZOT_HOME: '/z', HOME: '/h' }, 'linux'), '/h/.cache/zot');
  assert.equal(resolveCacheDir({ XDG_CACHE_HOME: '/x', HOME: '/h' }, 'darwin'), '/x/zot');
  assert.equal(resolveCacheDir({ HOME: '/h' }, 'linux'), '/h/.cache/zot');
  assert.equal(
    resolveCacheDir({ XDG_CACHE_HOME: 'relative', HOME: '/h' }, 'linux'),
    '/h/.cache/zot',
    'a relative XDG_CACHE_HOME is invalid and ignored',
  );
  assert.equal(resolveCacheDir({ HOME: '/h' }, 'darwin'), '/h/Library/Caches/zot');
  assert.equal(
    resolveCacheDir({ HOME: '/h', LOCALAPPDATA: '/l' }, 'win32'),
    join('/l', 'zot', 'cache'),
  );
});

test('zot keeps its chunks compiled under $XDG_CACHE_HOME/zot; ZOT_CODE_CACHE=0 keeps nothing', async () => {
  const home = join(box.project, 'zot-home');
  const xdg = join(box.project, 'xdg-cache');
  const off = join(box.project, 'xdg-cache-off');
  // the project is a directory of its own: a cache inside the project is never used
  const work = join(box.project, 'work');
  mkdirSync(home, { recursive: true });
  mkdirSync(work, { recursive: true });
  const outputs: string[] = [];
  for (let i = 0; i < 2; i++) {
    llm.script({ text: 'cached hello' });
    const result = await runZot(['-p', 'hi', '--no-session', ...fakeLlmFlags(llm.url)], {
      home,
      cwd: work,
      env: { XDG_CACHE_HOME: xdg },
    });
    assert.equal(result.code, 0, result.stderr);
    outputs.push(result.stdout);
  }
  assert.deepEqual(outputs, ['cached hello\n', 'cached hello\n']);
  assert.ok(!existsSync(join(home, 'cache')), 'ZOT_HOME holds no cache');
  assert.equal(statSync(join(home, 'keys', 'code-cache.key')).mode & 0o777, 0o600, 'but its key');
  const kept = [...cacheFiles(join(xdg, 'zot', 'code')).keys()];
  assert.ok(
    kept.some((name) => name.startsWith('run-')),
    `the run chunk's code is kept: ${kept.join(', ')}`,
  );
  llm.script({ text: 'uncached' });
  const result = await runZot(['-p', 'hi', '--no-session', ...fakeLlmFlags(llm.url)], {
    home,
    cwd: work,
    env: { XDG_CACHE_HOME: off, ZOT_CODE_CACHE: '0' },
  });
  assert.equal(result.stdout, 'uncached\n');
  assert.ok(!existsSync(off), 'nothing was kept');
});
