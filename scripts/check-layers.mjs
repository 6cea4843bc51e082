// Enforces the import layering of docs/architecture.md: layers import only downwards, and
// TypeBox (the schema definitions) never loads at run time outside the schema modules.
// Each import is read from TypeScript's own parser, so `import type`, `import { type X }`,
// `export ... from`, side-effect imports, dynamic `import()` and `require()` are told apart.
// Usage: node scripts/check-layers.mjs [--root DIR] (DIR holds packages/*/src; tests use it).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';

const ts = createRequire(import.meta.url)('typescript');

const rootFlag = process.argv.indexOf('--root');
const root =
  rootFlag >= 0
    ? resolve(process.argv[rootFlag + 1])
    : resolve(new URL('..', import.meta.url).pathname);
const src = join(root, 'packages/zot/src');

// What each layer of packages/zot/src may import (besides itself).
// `contract` (the event, state and content definitions) sits at the bottom beside util: every
// layer may use it. Modes are thin adapters: they see the contract, widgets and util only.
const ALLOWED = {
  contract: [],
  util: [],
  config: ['util', 'contract'],
  providers: ['util', 'contract'],
  tui: ['util', 'contract'],
  // Permission rules, the sandbox, the one process launcher and environment scrubbing.
  security: ['util', 'contract', 'config'],
  agent: ['util', 'contract', 'config', 'providers', 'security'],
  tools: ['util', 'contract', 'config', 'providers', 'security', 'agent'],
  // Extensions on disk, before any runs: discovery, manifests, install, trust and what a start
  // would resolve (exec, shipped SDK, project runtime). It knows nothing of running ones.
  'ext-setup': ['util', 'contract', 'config', 'security'],
  // Running extensions: the transport, peer, supervisor, interception, registry and UI router.
  extensions: ['util', 'contract', 'config', 'providers', 'security', 'agent', 'ext-setup'],
  session: ['util', 'contract', 'config', 'providers', 'security', 'agent', 'tools', 'extensions'],
  // The conformance kit (`zot ext test`) drives one extension through the host's own transport,
  // validation and timeouts; it reads the session's built-in command names, nothing above.
  conformance: [
    'util',
    'contract',
    'config',
    'providers',
    'security',
    'agent',
    'tools',
    'ext-setup',
    'extensions',
    'session',
  ],
  // Front ends see the runtime through contract/'s ports only (contract/front-end.ts).
  modes: ['util', 'contract', 'tui'],
  cli: [
    'util',
    'contract',
    'config',
    'providers',
    'security',
    'tui',
    'agent',
    'tools',
    'ext-setup',
    'extensions',
    'session',
    'conformance',
    'modes',
  ],
  main: ['cli'],
};
// Layer pairs that may import each other with `import type` only (erased at build, nothing
// loads): the lower layer's code is handed in by the composition root (cli/), never loaded.
const TYPE_ONLY = {
  // The loop is handed a StreamFn; it never picks or loads a provider.
  agent: ['providers'],
  // Tools and the extension host name the conversation's content types; they call no provider.
  tools: ['providers'],
  extensions: ['providers'],
  // The kit names JSON Schema types; it calls no provider.
  conformance: ['providers'],
  // cli builds the extension host and the tools and hands them to the session.
  session: ['extensions', 'tools'],
  // Widgets know nothing of agents: they may name a contract type, never load one.
  tui: ['contract'],
};
// Which of our packages each package may import (a subpath allows that module only).
const PACKAGE_RULES = {
  protocol: [],
  sdk: ['@zot/protocol'],
  // The RPC client gets its types generated from zot's RPC schema, never from zot itself, and
  // only the protocol's light modules: its index would load the frame decoder and TypeBox.
  'rpc-client': ['@zot/protocol/jsonl', '@zot/protocol/bounds', '@zot/protocol/constants'],
  zot: ['@zot/protocol'],
};
// Packages that may import nothing from npm besides Node's built-ins and the packages above.
const NO_DEPENDENCIES = new Set(['rpc-client']);

// Every process zot starts goes through security/launcher.ts (environment scrubbing, the
// sandbox): nothing else may import node:child_process for real (type imports are fine).
const SPAWNERS = new Set([
  'security',
  // `zot ext test` reads the process table with ps: it starts no program of anyone's choosing.
  'conformance/procs.ts',
]);

// TypeBox builds the schemas; loading it costs start-up time, so it loads only where schemas are
// built: in contract/ and in the RPC schema (read by scripts/gen-schema.mjs and the validators'
// test; `zot rpc` imports it with `import type` only, see modes/rpc-light-import.test.ts).
// A module that loads TypeBox, directly or through another such module, is a schema module;
// every other file may import a schema module with `import type` only.
const TYPEBOX = /^@sinclair\/typebox(?:\/|$)/;
const SCHEMA_BUILDERS = new Set(['modes/rpc-schema.ts', 'modes/rpc-schema-document.ts']);

function files(dir) {
  const out = [];
  if (!existsSync(dir)) return out;
  for (const entry of readdirSync(dir)) {
    const full = join(dir, entry);
    if (statSync(full).isDirectory()) out.push(...files(full));
    else if (entry.endsWith('.ts') && !entry.endsWith('.d.ts')) out.push(full);
  }
  return out;
}

/**
 * Every module `file` names: { spec, line, typeOnly }. Under verbatimModuleSyntax only
 * `import type` / `export type` are erased; `import { type X } from` still loads the module.
 */
function importsOf(file) {
  const text = readFileSync(file, 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found = [];
  const add = (node, literal, typeOnly) => {
    if (!literal || !ts.isStringLiteralLike(literal)) return;
    const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
    found.push({ spec: literal.text, line, typeOnly });
  };
  const visit = (node) => {
    if (ts.isImportDeclaration(node)) {
      add(node, node.moduleSpecifier, node.importClause?.isTypeOnly === true);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier) {
      add(node, node.moduleSpecifier, node.isTypeOnly);
    } else if (
      ts.isImportEqualsDeclaration(node) &&
      ts.isExternalModuleReference(node.moduleReference)
    ) {
      add(node, node.moduleReference.expression, node.isTypeOnly);
    } else if (ts.isCallExpression(node)) {
      const callee = node.expression;
      const isImport = callee.kind === ts.SyntaxKind.ImportKeyword;
      const isRequire = ts.isIdentifier(callee) && callee.text === 'require';
      if (isImport || isRequire) add(node, node.arguments[0], false);
    }
    // `import('x').T` in a type position (ts.ImportTypeNode) loads nothing: not recorded.
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

const srcRel = (file) => relative(src, file).split(sep).join('/');
const resolveTs = (file, spec) => resolve(dirname(file), spec).replace(/\.js$/, '.ts');

function layerOf(file) {
  const rel = relative(src, file).split(sep);
  return rel.length === 1 ? rel[0].replace(/\.ts$/, '') : rel[0];
}

const problems = [];
const report = (file, line, rule, message) =>
  problems.push(`${relative(root, file)}:${line}: [${rule}] ${message}`);

const mayLoadSchemas = (file) => layerOf(file) === 'contract' || SCHEMA_BUILDERS.has(srcRel(file));

// Pass 1: zot's schema modules (contract/ modules and schema builders whose run-time imports
// reach TypeBox).
const zotFiles = files(src).filter((file) => !file.endsWith('.test.ts'));
const imports = new Map(zotFiles.map((file) => [file, importsOf(file)]));
const schemaModules = new Set();
for (let grew = true; grew; ) {
  grew = false;
  for (const [file, list] of imports) {
    // Outside contract/ and the schema builders a run-time schema import is itself reported
    // below; it does not make the importer a schema module (one planted line, one report).
    if (schemaModules.has(file) || !mayLoadSchemas(file)) continue;
    const loadsSchema = list.some(
      (entry) =>
        !entry.typeOnly &&
        (TYPEBOX.test(entry.spec) ||
          (entry.spec.startsWith('.') && schemaModules.has(resolveTs(file, entry.spec)))),
    );
    if (loadsSchema) {
      schemaModules.add(file);
      grew = true;
    }
  }
}

for (const pkg of Object.keys(PACKAGE_RULES)) {
  const dir = join(root, 'packages', pkg, 'src');
  for (const file of files(dir)) {
    const isTest = file.endsWith('.test.ts');
    for (const { spec, line, typeOnly } of imports.get(file) ?? importsOf(file)) {
      if (
        pkg === 'zot' &&
        !isTest &&
        !typeOnly &&
        /^(?:node:)?child_process$/.test(spec) &&
        !SPAWNERS.has(layerOf(file)) &&
        !SPAWNERS.has(srcRel(file))
      ) {
        report(
          file,
          line,
          'launcher',
          'starts processes itself; use launchProcess (security/launcher.ts)',
        );
      }
      if (
        spec.startsWith('@zot/') &&
        !PACKAGE_RULES[pkg].some((allowed) => spec === allowed || spec.startsWith(allowed + '/'))
      ) {
        report(file, line, 'packages', `package ${pkg} must not import ${spec}`);
      }
      if (
        NO_DEPENDENCIES.has(pkg) &&
        !spec.startsWith('.') &&
        !spec.startsWith('node:') &&
        !spec.startsWith('@zot/')
      ) {
        report(
          file,
          line,
          'dependencies',
          `package ${pkg} must not depend on ${spec} (Node built-ins only)`,
        );
      }
      if (pkg === 'zot' && !isTest && !typeOnly && !mayLoadSchemas(file)) {
        if (TYPEBOX.test(spec))
          report(
            file,
            line,
            'type-only',
            `loads TypeBox (${spec}) at run time; schemas live in contract/`,
          );
        else if (spec.startsWith('.') && schemaModules.has(resolveTs(file, spec)))
          report(
            file,
            line,
            'type-only',
            `loads the schema module ${spec} at run time (it loads TypeBox); use \`import type\``,
          );
      }
      if (!spec.startsWith('.')) continue;
      if (pkg !== 'zot') {
        // Every other package: a relative import must stay inside the package's own src/.
        const own = join(root, 'packages', pkg, 'src');
        if (!resolve(dirname(file), spec).startsWith(own + sep))
          report(file, line, 'inside-package', `imports ${spec}, outside ${relative(root, own)}`);
        continue;
      }
      const target = resolve(dirname(file), spec);
      if (!target.startsWith(src + sep)) {
        if (!isTest) report(file, line, 'layers', `imports ${spec}, outside src/`);
        continue;
      }
      const from = layerOf(file);
      const to = layerOf(target);
      if (from === to) continue;
      if (!ALLOWED[from]) report(file, line, 'layers', `unknown layer "${from}"`);
      else if (!ALLOWED[from].includes(to))
        report(file, line, 'layers', `layer ${from} must not import ${to} (${spec})`);
      else if (!typeOnly && !isTest && TYPE_ONLY[from]?.includes(to))
        report(
          file,
          line,
          'type-only',
          `layer ${from} may import ${to} with \`import type\` only (${spec})`,
        );
    }
  }
}
if (problems.length > 0) {
  console.error(`check-layers: ${problems.length} violation(s)\n${problems.join('\n')}`);
  process.exit(1);
}
console.log('check-layers: ok');
