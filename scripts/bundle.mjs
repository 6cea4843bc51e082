// Bundles the CLI into a few ESM files (one per lazily loaded part) so start-up reads tens of
// modules fewer; `tsc -b` still type-checks and emits the per-file build the tests import.
import { build } from 'esbuild';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';

const root = new URL('..', import.meta.url).pathname;
const { version } = JSON.parse(readFileSync(`${root}package.json`, 'utf8'));
// yaml's Node entry is CommonJS that requires "process", which an ESM bundle cannot; its ESM
// build (the package's default export condition) is the same parser without that.
const yamlAsEsm = {
  name: 'yaml-esm',
  setup(build) {
    build.onResolve({ filter: /^yaml$/ }, () => ({
      path: `${root}node_modules/yaml/browser/index.js`,
    }));
  },
};
const outdir = `${root}packages/zot/dist/bundle`;
rmSync(outdir, { recursive: true, force: true });
const result = await build({
  entryPoints: [`${root}packages/zot/src/main.ts`],
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // Third-party code stays in node_modules: it is loaded lazily (ajv, diff) or only by
  // developer tooling (typebox), and bundling it would not make start-up faster.
  // cli-highlight is CommonJS that requires Node built-ins at run time, which an ESM chunk
  // cannot; it is imported lazily, once code shows up in an answer.
  external: ['ajv', 'diff', 'cli-highlight', '@sinclair/typebox', '@sinclair/typebox/*'],
  define: { __ZOT_VERSION__: JSON.stringify(version) },
  chunkNames: 'chunks/[name]-[hash]',
  // Less to parse at every start (the TUI's chunk is ~390 KB unminified); names are kept so
  // that stack traces stay readable.
  minifyWhitespace: true,
  minifySyntax: true,
  logLevel: 'warning',
  plugins: [yamlAsEsm],
  metafile: true,
});
// Which source modules each chunk holds (minified chunks carry no path comments): the start-up
// test reads it to tell what a run loaded.
writeFileSync(
  `${root}packages/zot/dist/bundle-modules.json`,
  JSON.stringify(
    Object.fromEntries(
      Object.entries(result.metafile.outputs).map(([file, output]) => [
        file.replace(/^packages\/zot\/dist\/bundle\//, ''),
        Object.keys(output.inputs),
      ]),
    ),
    null,
    1,
  ),
);
