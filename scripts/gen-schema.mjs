// Writes the committed files generated from the compiled TypeBox definitions: the JSON Schema
// documents, the precompiled validators (packages/protocol/src/generated/ for the frames,
// packages/zot/src/modes/generated/ for the RPC requests) and @zot/rpc-client's types.
// Usage: node scripts/gen-schema.mjs [--check] [file-substring ...]   (run after `npm run build`)
//   --check  write nothing; exit 1 naming every stale or missing file.
// Output is deterministic: JSON keeps the definitions' key order, 2-space indent, trailing LF;
// generated source is formatted with the repository's pinned prettier and its config.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = new URL('..', import.meta.url).pathname;
const CODEGEN = 'packages/protocol/dist/src/codegen.js';
const CODEGEN_PYTHON = 'packages/protocol/dist/src/codegen-python.js';
const RPC_SCHEMA = 'packages/zot/dist/src/modes/rpc-schema.js';
const RPC_DOCUMENT = 'packages/zot/dist/src/modes/rpc-schema-document.js';

// One row per generated file: `generate(load)` returns a plain JSON document (`json` rows)
// or source text (TypeScript, formatted with prettier; `python` rows as generated), reading
// compiled modules through `load(module, export)`. A TypeScript file is compiled itself, so
// writing one is followed by a rebuild of its package (`tsc -b`) and of the CLI bundle. An
// `optional` row is skipped (no error) while its module is not built yet.
const TARGETS = [
  {
    file: 'schema/extension-protocol.schema.json',
    json: true,
    generate: (load) =>
      load('packages/protocol/dist/src/schema-document.js', 'EXTENSION_PROTOCOL_SCHEMA_DOCUMENT'),
  },
  // Decoding uses these instead of TypeBox at runtime (see packages/protocol/src/decode.ts).
  {
    file: 'packages/protocol/src/generated/validators.ts',
    rebuild: 'packages/protocol',
    generate: async (load) => (await load(CODEGEN, 'generateValidatorsSource'))(),
  },
  // The Python SDK's copy of the protocol's vocabulary.
  {
    file: 'sdk-python/zot_sdk/_protocol.py',
    python: true,
    generate: async (load) => (await load(CODEGEN_PYTHON, 'generatePythonProtocolSource'))(),
  },
  // The CLI's RPC schema.
  {
    file: 'schema/rpc.schema.json',
    json: true,
    optional: RPC_SCHEMA,
    generate: async (load) => (await load(RPC_DOCUMENT, 'rpcSchemaDocument'))(),
  },
  // RPC mode checks requests with these instead of TypeBox (packages/zot/src/modes/rpc-decode.ts).
  // The protocol's codegen is given zot's table: the protocol itself never imports zot.
  {
    file: 'packages/zot/src/modes/generated/rpc-validators.ts',
    rebuild: 'packages/zot',
    optional: RPC_SCHEMA,
    generate: async (load) => {
      const generate = await load(CODEGEN, 'generateValidatorTableSource');
      return generate(await load(RPC_SCHEMA, 'RPC_REQUESTS'), {
        exportName: 'RPC_VALIDATORS',
        doc: 'Validators of the RPC requests, keyed by `type`, in RPC_REQUESTS order.',
        from: 'RPC_REQUESTS in src/modes/rpc-schema.ts',
        typesFrom: '@zot/protocol',
      });
    },
  },
  // @zot/rpc-client's types: the same RPC definitions, as TypeScript (the client loads no
  // TypeBox and imports nothing of zot's).
  {
    file: 'packages/rpc-client/src/generated/rpc-types.ts',
    rebuild: 'packages/zot',
    optional: RPC_SCHEMA,
    generate: async (load) => {
      const generate = await load(
        'packages/protocol/dist/src/codegen-types.js',
        'generateTypesSource',
      );
      return generate(await load(RPC_DOCUMENT, 'RPC_CLIENT_TYPES'), {
        from: 'packages/zot/src/modes/rpc-schema.ts',
      });
    },
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

// One export of a compiled module; exits naming what is missing.
async function load(module, name) {
  const modulePath = join(root, module);
  if (!existsSync(modulePath)) {
    console.error(`gen-schema: ${module} not found; run \`npm run build\` first`);
    process.exit(2);
  }
  const value = (await import(pathToFileURL(modulePath).href))[name];
  if (value === null || (typeof value !== 'object' && typeof value !== 'function')) {
    console.error(`gen-schema: ${module} does not export ${name}`);
    process.exit(2);
  }
  return value;
}

// Formats generated source exactly as `prettier --check .` expects it.
async function formatSource(text, filePath) {
  const prettier = await import('prettier');
  const config = (await prettier.resolveConfig(filePath)) ?? {};
  return prettier.format(text, { ...config, filepath: filePath });
}

const stale = [];
const rebuild = [];
for (const target of selected) {
  if (target.optional && !existsSync(join(root, target.optional))) continue;
  const filePath = join(root, target.file);
  const value = await target.generate(load);
  if (typeof value !== (target.json ? 'object' : 'string')) {
    console.error(`gen-schema: ${target.file}: the generator returned ${typeof value}`);
    process.exit(2);
  }
  const text = target.json
    ? JSON.stringify(value, null, 2) + '\n'
    : target.python
      ? value
      : await formatSource(value, filePath);
  const current = existsSync(filePath) ? readFileSync(filePath, 'utf8') : undefined;
  if (current === text) continue;
  if (check) stale.push(target);
  else {
    mkdirSync(dirname(filePath), { recursive: true });
    writeFileSync(filePath, text);
    console.log(`gen-schema: wrote ${target.file}`);
    if (target.rebuild) rebuild.push(target.rebuild);
  }
}

if (stale.length > 0) {
  for (const { file, json } of stale) {
    const what = json ? 'is stale' : 'no longer matches the schemas it is generated from';
    console.error(`gen-schema: ${file} ${what}; run \`npm run gen:schema\` and commit it`);
  }
  process.exit(1);
}
if (rebuild.length > 0) {
  // The generated source is itself compiled: rebuild so dist/ (and the bundle) use it.
  const steps = [
    [join(root, 'node_modules/typescript/bin/tsc'), '-b', ...new Set(rebuild)],
    [join(root, 'scripts/bundle.mjs')],
    [join(root, 'scripts/chmod-bin.mjs')],
  ];
  for (const step of steps) {
    const run = spawnSync(process.execPath, step, { cwd: root, stdio: 'inherit' });
    if (run.status !== 0) process.exit(run.status ?? 1);
  }
  console.log(`gen-schema: rebuilt ${[...new Set(rebuild)].join(', ')} and the bundle`);
}
