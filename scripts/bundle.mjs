// Bundles the CLI from the per-file ESM build that `tsc -b` emits into a few CommonJS files, one
// per lazily loaded part (docs/architecture.md, "Start-up", has the measurements):
// - CommonJS, because Node 20's ESM loader costs a short run about 5 ms to start and about
//   0.4 ms per file, and the CommonJS loader neither; the bundle never loads the ESM loader, as
//   every dynamic import, of our chunks and of the packages left outside, becomes a require();
// - Rollup, not esbuild, does the chunking: a module that every importer of a lazily loaded part
//   has already loaded stays in the importer's chunk instead of becoming a chunk of its own.
//   With esbuild's splitting a `zot -p` run loaded 25 files; now it loads 4;
// - esbuild then minifies each chunk (whitespace and syntax only, so that names stay readable
//   in stack traces);
// - a worker thread's file (`new URL('./x-worker.js', import.meta.url)`) is a bundle of its own
//   beside main.js (see workerFiles).
import { builtinModules } from 'node:module';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import commonjs from '@rollup/plugin-commonjs';
import { nodeResolve } from '@rollup/plugin-node-resolve';
import { transform } from 'esbuild';
import { rollup } from 'rollup';

const root = new URL('..', import.meta.url).pathname;
const { version } = JSON.parse(readFileSync(`${root}package.json`, 'utf8'));
const outdir = `${root}packages/zot/dist/bundle`;

// Third-party code that stays in node_modules: it is loaded lazily (ajv, diff) or only by
// developer tooling (typebox); cli-highlight is CommonJS, imported once code shows up; the bash
// parser (tree-sitter) loads its WebAssembly files from its own package directory; ws loads
// with the first remote extension only.
const EXTERNAL = new Set([
  'ajv',
  'ws',
  'diff',
  'cli-highlight',
  '@sinclair/typebox',
  '@vscode/tree-sitter-wasm',
  ...builtinModules,
]);
const isExternal = (id) =>
  id.startsWith('node:') || EXTERNAL.has(id) || id.startsWith('@sinclair/typebox/');

/** yaml's Node entry is CommonJS that requires "process"; its ESM build is the same parser. */
const yamlAsEsm = {
  name: 'yaml-esm',
  resolveId: (id) => (id === 'yaml' ? `${root}node_modules/yaml/browser/index.js` : null),
};

/** The version is built in, so that `zot --version` reads no package.json. */
const builtInVersion = {
  name: 'zot-version',
  transform(code) {
    if (!code.includes('__ZOT_VERSION__')) return null;
    return code
      .replace(/typeof __ZOT_VERSION__ === 'string'/g, 'true')
      .replace(/__ZOT_VERSION__/g, JSON.stringify(version));
  },
};

const minify = {
  name: 'minify',
  async renderChunk(code) {
    const result = await transform(code, {
      target: 'node20',
      minifyWhitespace: true,
      minifySyntax: true,
    });
    return { code: result.code, map: null };
  },
};

/**
 * Worker threads: `new URL('./name-worker.js', import.meta.url)` in a module names a file that
 * runs on its own thread. Each is bundled on its own into one self-contained file (sharing no
 * chunk with the CLI, so the CLI's chunks and start-up stay as they are), emitted at the top of
 * the bundle, and the URL is rewritten to point at it from wherever the module ends up.
 */
const workerFiles = {
  name: 'worker-files',
  async transform(code, id) {
    const pattern = /new URL\((['"])\.\/([\w-]+-worker\.js)\1,\s*import\.meta\.url\)/g;
    const found = [...code.matchAll(pattern)];
    if (found.length === 0) return null;
    let out = code;
    for (const [whole, , name] of found) {
      const source = await bundleWorker(join(dirname(id), name));
      const ref = this.emitFile({ type: 'asset', fileName: name, source });
      out = out.replace(whole, `new URL(import.meta.ROLLUP_FILE_URL_${ref})`);
    }
    return { code: out, map: null };
  },
};

/** How the CLI and its workers read their sources (fresh instances for each build). */
function sourcePlugins() {
  return [
    yamlAsEsm,
    nodeResolve({ preferBuiltins: true, exportConditions: ['node', 'import'] }),
    // the generated validators import Ajv's small CommonJS runtime helpers; a default import is
    // module.exports, as in Node
    commonjs({ defaultIsModuleExports: true }),
  ];
}

function onwarn(warning, warn) {
  // cycles between source modules are legal ESM and are checked by the layer script; zod
  // (under the ACP SDK) places pure annotations Rollup drops, harmlessly
  if (warning.code === 'CIRCULAR_DEPENDENCY') return;
  if (warning.code === 'INVALID_ANNOTATION' && warning.id?.includes('/node_modules/zod/')) return;
  warn(warning);
}

/** One worker entry and everything it imports, as one CommonJS file's text. */
async function bundleWorker(input) {
  const bundle = await rollup({
    input,
    external: isExternal,
    plugins: [...sourcePlugins(), minify],
    onwarn,
  });
  const { output } = await bundle.generate({
    format: 'cjs',
    dynamicImportInCjs: false,
    interop: 'default',
    inlineDynamicImports: true,
  });
  await bundle.close();
  return output[0].code;
}

rmSync(outdir, { recursive: true, force: true });
const bundle = await rollup({
  input: `${root}packages/zot/dist/src/main.js`,
  external: isExternal,
  plugins: [...sourcePlugins(), builtInVersion, workerFiles, minify],
  onwarn,
});
const { output } = await bundle.write({
  dir: outdir,
  format: 'cjs',
  // import() of a package or built-in becomes require() too (all of them ship CommonJS), and a
  // default import is module.exports, as when Node's ESM loader imports CommonJS
  dynamicImportInCjs: false,
  interop: 'default',
  entryFileNames: '[name].js',
  chunkFileNames: 'chunks/[name]-[hash].js',
});
await bundle.close();
// The package is "type": "module"; this directory's .js files are CommonJS.
writeFileSync(`${outdir}/package.json`, '{ "type": "commonjs" }\n');

/** A bundled module as the start-up test names it: the source file, relative to the root. */
function sourceName(id) {
  const path = relative(root, id.replace(/^\0/, '').replace(/\?.*$/, ''));
  return path.replace(/^packages\/zot\/dist\/src\/(.*)\.js$/, 'packages/zot/src/$1.ts');
}

// Which source modules each chunk holds (minified chunks carry no path comments): the start-up
// test reads it to tell what a run loaded.
writeFileSync(
  `${root}packages/zot/dist/bundle-modules.json`,
  JSON.stringify(
    Object.fromEntries(
      output
        .filter((item) => item.type === 'chunk')
        .map((chunk) => [
          chunk.fileName,
          chunk.moduleIds.filter((id) => !id.startsWith('\0')).map(sourceName),
        ]),
    ),
    null,
    1,
  ),
);
