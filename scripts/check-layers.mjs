// Enforces the import layering of ARCHITECTURE.md: layers import only downwards.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

const root = resolve(new URL('..', import.meta.url).pathname);
const src = join(root, 'packages/zot/src');

// What each layer of packages/zot/src may import (besides itself).
// `contract` (the event, state and content definitions) sits at the bottom beside util: every
// layer may use it. Modes are thin adapters: they see the session runtime, widgets and util only.
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
  extensions: ['util', 'contract', 'config', 'providers', 'security', 'agent'],
  session: ['util', 'contract', 'config', 'providers', 'security', 'agent', 'tools', 'extensions'],
  modes: ['util', 'contract', 'tui', 'session'],
  cli: [
    'util',
    'contract',
    'config',
    'providers',
    'security',
    'tui',
    'agent',
    'tools',
    'extensions',
    'session',
    'modes',
  ],
  main: ['cli'],
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
  'cli/ext/conformance/procs.ts',
]);
const CHILD_PROCESS =
  /import\s+(?!type\b)[^'"]*?from\s*['"](?:node:)?child_process['"]|import\(\s*['"](?:node:)?child_process['"]\s*\)|require\(\s*['"](?:node:)?child_process['"]\s*\)/;

const IMPORT =
  /(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\s*\(\s*['"]([^'"]+)['"]\s*\)|import\s+['"]([^'"]+)['"]/g;

function files(dir) {
  const out = [];
  for (const entry of readdirSync(dir)) {
    const full = join(dir, entry);
    if (statSync(full).isDirectory()) out.push(...files(full));
    else if (entry.endsWith('.ts') && !entry.endsWith('.d.ts')) out.push(full);
  }
  return out;
}

function layerOf(file) {
  const rel = relative(src, file).split(sep);
  return rel.length === 1 ? rel[0].replace(/\.ts$/, '') : rel[0];
}

const problems = [];
for (const pkg of Object.keys(PACKAGE_RULES)) {
  const dir = join(root, 'packages', pkg, 'src');
  for (const file of files(dir)) {
    // Template literals (generated source in codegen) hold import text that is not an import.
    const text = readFileSync(file, 'utf8').replace(/`[^`]*`/g, '``');
    const isTest = file.endsWith('.test.ts');
    if (pkg === 'zot' && !isTest && CHILD_PROCESS.test(text)) {
      const rel = relative(src, file).split(sep).join('/');
      if (!SPAWNERS.has(rel.split('/')[0]) && !SPAWNERS.has(rel))
        problems.push(
          `${relative(root, file)}: starts processes itself; use launchProcess (security/launcher.ts)`,
        );
    }
    for (const match of text.matchAll(IMPORT)) {
      const spec = match[1] ?? match[2] ?? match[3];
      const where = relative(root, file);
      if (
        spec.startsWith('@zot/') &&
        !PACKAGE_RULES[pkg].some((allowed) => spec === allowed || spec.startsWith(allowed + '/'))
      ) {
        problems.push(`${where}: package ${pkg} must not import ${spec}`);
      }
      if (
        NO_DEPENDENCIES.has(pkg) &&
        !spec.startsWith('.') &&
        !spec.startsWith('node:') &&
        !spec.startsWith('@zot/')
      ) {
        problems.push(`${where}: package ${pkg} must not depend on ${spec} (Node built-ins only)`);
      }
      if (!spec.startsWith('.')) continue;
      if (pkg !== 'zot') {
        // Every other package: a relative import must stay inside the package's own src/.
        const own = join(root, 'packages', pkg, 'src');
        if (!resolve(dirname(file), spec).startsWith(own + sep))
          problems.push(`${where}: imports ${spec}, outside ${relative(root, own)}`);
        continue;
      }
      const target = resolve(dirname(file), spec);
      if (!target.startsWith(src + sep)) {
        if (!isTest) problems.push(`${where}: imports ${spec}, outside src/`);
        continue;
      }
      const from = layerOf(file);
      const to = layerOf(target);
      if (from === to) continue;
      if (!ALLOWED[from]) problems.push(`${where}: unknown layer "${from}"`);
      else if (!ALLOWED[from].includes(to))
        problems.push(`${where}: layer ${from} must not import ${to} (${spec})`);
    }
  }
}
if (problems.length > 0) {
  console.error(`check-layers: ${problems.length} violation(s)\n${problems.join('\n')}`);
  process.exit(1);
}
console.log('check-layers: ok');
