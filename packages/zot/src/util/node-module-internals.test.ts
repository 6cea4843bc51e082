// Fails when a Node upgrade changes the private compile step the code cache hooks: follow the
// change in node-module-internals.ts (and util/code-cache.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compileHookMismatch, hookCompile } from './node-module-internals.js';

test(`this Node (${process.version}) still has the compile step the code cache hooks`, () => {
  const mismatch = compileHookMismatch();
  assert.equal(mismatch, undefined, `Node ${process.version} changed: ${mismatch}`);
});

/** A module system shaped like Node's, with its compile step recording what it was given. */
function fakeModule(wrapper: string) {
  const calls: unknown[][] = [];
  // (content, filename, ...rest): length 2, as Node's
  const compile = function (
    this: unknown,
    content: unknown,
    filename: unknown,
    ...rest: unknown[]
  ) {
    calls.push([content, filename, ...rest]);
    return 'compiled';
  };
  return {
    calls,
    compile,
    module: {
      prototype: { _compile: compile as (...args: unknown[]) => unknown },
      wrap: (source: string) => `${wrapper}${source}\n});`,
    },
  };
}

test('a changed shape is left unpatched, with one note, and compiling goes on as before', () => {
  const changed = fakeModule('(function (exports, require, module, __filename, __dirname, x) { ');
  const notes: string[] = [];
  const hook = () => assert.fail('the hook must not run');
  assert.equal(
    hookCompile(hook, (line) => notes.push(line), changed.module),
    false,
  );
  assert.equal(
    hookCompile(hook, (line) => notes.push(line), changed.module),
    false,
  );
  assert.equal(notes.length, 1, 'the note is written once per process');
  assert.match(notes[0]!, /changed \(Module\.wrap makes .*__dirname, x\).*code cache is off/);
  assert.equal(changed.module.prototype._compile, changed.compile, 'nothing was patched');
  assert.match(compileHookMismatch({ prototype: {} }) ?? '', /_compile is gone/);
});

test('the hook gets every argument, and can hand a file back to Node unchanged', () => {
  const node = fakeModule('(function (exports, require, module, __filename, __dirname) { ');
  const seen: unknown[] = [];
  const hooked = hookCompile(
    (original, module, content, filename, ...rest) => {
      seen.push(content, filename, ...rest);
      return original(module, content, filename, ...rest);
    },
    () => assert.fail('no note for a known shape'),
    node.module,
  );
  assert.equal(hooked, true);
  const target = { exports: {} };
  assert.equal(node.module.prototype._compile.call(target, 'src', '/f.js', 'commonjs'), 'compiled');
  assert.deepEqual(seen, ['src', '/f.js', 'commonjs']);
  assert.deepEqual(node.calls, [['src', '/f.js', 'commonjs']]);
});
