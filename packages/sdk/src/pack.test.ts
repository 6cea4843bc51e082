// The packed SDK: `npm pack` gives a tarball without runtime dependencies that installs with
// no registry (`npm install --offline`), type-checks strictly from its own declarations, and
// runs an extension over real pipes with stdout carrying protocol only.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const sdkDir = fileURLToPath(new URL('../../', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'zot-sdk-pack-'));
after(() => rmSync(work, { recursive: true, force: true }));

function npm(args: string[], cwd: string) {
  const run = spawnSync('npm', args, { cwd, encoding: 'utf8', timeout: 120_000 });
  assert.equal(run.status, 0, `npm ${args.join(' ')}: ${run.stdout}\n${run.stderr}`);
  return run.stdout;
}

const EXTENSION = `import { createExtension, text, toolError, type HostInfo } from '@zot/sdk';

const ext = createExtension({ name: 'packed', version: '1.0.0' });
let host: HostInfo | undefined;
ext.onHello((info) => {
  host = info;
});
ext.tool(
  'shout',
  'Upper-cases a word.',
  { type: 'object', properties: { word: { type: 'string' } }, required: ['word'] },
  ({ word }) => (word === '' ? toolError('empty') : text(word.toUpperCase() + ' ' + host?.cwd)),
);
console.log('this goes to stderr');
void ext.run();
`;

test('npm pack: no runtime dependencies; installs offline; typed; runs over pipes', () => {
  npm(['pack', '--ignore-scripts', '--pack-destination', work, sdkDir], work);
  const tarball = readdirSync(work).find((f) => f.endsWith('.tgz'));
  assert.ok(tarball, 'a tarball');
  assert.match(tarball, /^zot-sdk-\d+\.\d+\.\d+\.tgz$/);

  const ext = join(work, 'ext');
  spawnSync('mkdir', ['-p', join(ext, 'src')]);
  writeFileSync(
    join(ext, 'package.json'),
    JSON.stringify({ name: 'packed', version: '1.0.0', type: 'module', private: true }),
  );
  npm(['install', '--offline', '--no-audit', '--no-fund', `../${tarball}`], ext);
  const installed = JSON.parse(
    readFileSync(join(ext, 'node_modules/@zot/sdk/package.json'), 'utf8'),
  );
  assert.equal(installed.dependencies, undefined, 'no runtime dependencies');
  assert.deepEqual(readdirSync(join(ext, 'node_modules')).sort(), ['.package-lock.json', '@zot']);

  // Strict type-check against the shipped declarations only (no skipLibCheck).
  writeFileSync(join(ext, 'src/index.ts'), EXTENSION);
  const typesNode = createRequire(import.meta.url).resolve('@types/node/package.json');
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
    noUncheckedIndexedAccess: true,
    outDir: join(ext, 'dist'),
    rootDir: join(ext, 'src'),
    types: ['node'],
    typeRoots: [dirname(dirname(typesNode))],
  };
  const program = ts.createProgram([join(ext, 'src/index.ts')], options);
  const diagnostics = ts
    .getPreEmitDiagnostics(program)
    .map((d) => `${d.file?.fileName}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
  assert.deepEqual(diagnostics, []);
  program.emit();

  const input = [
    { type: 'hello_ack', protocol_version: 2, cwd: '/p' },
    { type: 'tool_call', id: '1', name: 'shout', args: { word: 'hi' } },
    { type: 'tool_call', id: '2', name: 'shout', args: { word: '' } },
    { type: 'shutdown' },
  ];
  const run = spawnSync(process.execPath, ['dist/index.js'], {
    cwd: ext,
    input: input.map((f) => JSON.stringify(f) + '\n').join(''),
    encoding: 'utf8',
    timeout: 20_000,
  });
  assert.equal(run.status, 0, run.stderr);
  assert.equal(run.stderr, 'this goes to stderr\n');
  const frames = run.stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
  assert.deepEqual(frames, [
    {
      type: 'hello',
      name: 'packed',
      version: '1.0.0',
      protocol_version: 2,
      capabilities: ['tools'],
    },
    {
      type: 'register_tool',
      name: 'shout',
      description: 'Upper-cases a word.',
      schema: { type: 'object', properties: { word: { type: 'string' } }, required: ['word'] },
    },
    { type: 'ready' },
    { type: 'tool_result', id: '1', content: [{ type: 'text', text: 'HI /p' }] },
    { type: 'tool_result', id: '2', content: [{ type: 'text', text: 'empty' }], is_error: true },
    { type: 'shutdown_ack' },
  ]);
});

test('the packed bundle loads nothing but node built-ins', () => {
  const bundle = readFileSync(join(sdkDir, 'dist/pack/index.js'), 'utf8');
  const imports = [...bundle.matchAll(/(?:from|import)\s*\(?\s*["']([^"']+)["']/g)].map(
    (m) => m[1],
  );
  assert.ok(imports.length > 0);
  assert.deepEqual(
    imports.filter((spec) => !spec!.startsWith('node:')),
    [],
  );
});
