// Writes the committed JSON Schema files from the compiled TypeBox definitions.
// Usage: node scripts/gen-schema.mjs [--check] [file-substring ...]   (run after `npm run build`)
//   --check  write nothing; exit 1 naming every stale or missing file.
// Output is deterministic: key order is the definitions' order, 2-space indent, trailing LF.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = new URL('..', import.meta.url).pathname;

// One row per generated file. To publish another schema, export a plain JSON document from
// a compiled module and add a row here.
const TARGETS = [
  {
    module: 'packages/protocol/dist/src/schema-document.js',
    export: 'EXTENSION_PROTOCOL_SCHEMA_DOCUMENT',
    file: 'schema/extension-protocol.schema.json',
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

const stale = [];
for (const target of selected) {
  const modulePath = join(root, target.module);
  if (!existsSync(modulePath)) {
    if (target.optional) continue;
    console.error(`gen-schema: ${target.module} not found; run \`npm run build\` first`);
    process.exit(2);
  }
  const mod = await import(pathToFileURL(modulePath).href);
  const document = mod[target.export];
  if (document === null || typeof document !== 'object') {
    console.error(`gen-schema: ${target.module} does not export ${target.export}`);
    process.exit(2);
  }
  const text = JSON.stringify(document, null, 2) + '\n';
  const filePath = join(root, target.file);
  const current = existsSync(filePath) ? readFileSync(filePath, 'utf8') : undefined;
  if (current === text) continue;
  if (check) stale.push(target.file);
  else {
    writeFileSync(filePath, text);
    console.log(`gen-schema: wrote ${target.file}`);
  }
}

if (stale.length > 0) {
  for (const file of stale) {
    console.error(`gen-schema: ${file} is stale; run \`npm run gen:schema\` and commit it`);
  }
  process.exit(1);
}
