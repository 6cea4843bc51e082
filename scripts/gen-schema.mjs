// Writes the committed files generated from the compiled TypeBox definitions: the JSON Schema
// documents and the protocol's precompiled validators (packages/protocol/src/generated/).
// Usage: node scripts/gen-schema.mjs [--check] [file-substring ...]   (run after `npm run build`)
//   --check  write nothing; exit 1 naming every stale or missing file.
// Output is deterministic: JSON keeps the definitions' key order, 2-space indent, trailing LF;
// generated source is formatted with the repository's pinned prettier and its config.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = new URL('..', import.meta.url).pathname;

// One row per generated file. To publish another schema, export a plain JSON document from
// a compiled module and add a row here. A `source` row's export is a function returning
// source text; as it is compiled itself, writing it is followed by a rebuild.
const TARGETS = [
  {
    module: 'packages/protocol/dist/src/schema-document.js',
    export: 'EXTENSION_PROTOCOL_SCHEMA_DOCUMENT',
    file: 'schema/extension-protocol.schema.json',
  },
  // Decoding uses these instead of TypeBox at runtime (see packages/protocol/src/decode.ts).
  {
    module: 'packages/protocol/dist/src/codegen.js',
    export: 'generateValidatorsSource',
    file: 'packages/protocol/src/generated/validators.ts',
    source: true,
  },
  // The CLI's RPC schema: skipped (no error) until packages/zot builds this module.
  {
    module: 'packages/zot/dist/src/modes/rpc-schema.js',
    export: 'RPC_SCHEMA_DOCUMENT',
    file: 'schema/rpc.schema.json',
    optional: true,
  },
];

const args = process.argv.slice(2);
const check = args.includes('--check');
const filters = args.filter((a) => a !== '--check');
const selected = TARGETS.filter(
  (t) => filters.length === 0 || filters.some((f) => t.file.includes(f)),
);

if (selected.length === 0) {
  console.error(`gen-schema: no target matches ${filters.join(', ')}`);
  process.exit(2);
}

// Formats generated source exactly as `prettier --check .` expects it.
async function formatSource(text, filePath) {
  const prettier = await import('prettier');
  const config = (await prettier.resolveConfig(filePath)) ?? {};
  return prettier.format(text, { ...config, filepath: filePath });
}

const stale = [];
let rebuild = false;
for (const target of selected) {
  const modulePath = join(root, target.module);
  if (!existsSync(modulePath)) {
    if (target.optional) continue;
    console.error(`gen-schema: ${target.module} not found; run \`npm run build\` first`);
    process.exit(2);
  }
  const mod = await import(pathToFileURL(modulePath).href);
  const value = mod[target.export];
  const expected = target.source ? 'function' : 'object';
  if (value === null || typeof value !== expected) {
    console.error(`gen-schema: ${target.module} does not export ${target.export}`);
    process.exit(2);
  }
  const filePath = join(root, target.file);
  const text = target.source
    ? await formatSource(value(), filePath)
    : JSON.stringify(value, null, 2) + '\n';
  const current = existsSync(filePath) ? readFileSync(filePath, 'utf8') : undefined;
  if (current === text) continue;
  if (check) stale.push(target);
  else {
    writeFileSync(filePath, text);
    console.log(`gen-schema: wrote ${target.file}`);
    rebuild ||= target.source === true;
  }
}

if (stale.length > 0) {
  for (const { file, source } of stale) {
    const what = source ? 'no longer matches the schemas it is generated from' : 'is stale';
    console.error(`gen-schema: ${file} ${what}; run \`npm run gen:schema\` and commit it`);
  }
  process.exit(1);
}
if (rebuild) {
  // The generated source is itself compiled: rebuild so dist/ uses it.
  const tsc = join(root, 'node_modules/typescript/bin/tsc');
  const run = spawnSync(process.execPath, [tsc, '-b', 'packages/protocol'], {
    cwd: root,
    stdio: 'inherit',
  });
  if (run.status !== 0) process.exit(run.status ?? 1);
  console.log('gen-schema: rebuilt packages/protocol');
}
