// The start-up snapshot experiment (issue 14), kept so its figures can be reproduced: builds
// a user-land V8 snapshot (`node --build-snapshot`) holding the interactive path's modules
// evaluated, then times spawn -> first TUI frame through the pty driver, interleaved:
//   bundle    node packages/zot/dist/bundle/main.js        (what ships)
//   snapshot  node --snapshot-blob zot.blob -- ...          (needs a shell launcher to ship)
//   relaunch  node launcher.mjs ... spawning the snapshot   (a JavaScript launcher)
// Usage: node bench/support/snapshot-experiment.mjs [rounds]   (after `npm run build`)
// Experiment only: the snapshot build patches what cannot be serialized (module-level
// Intl.Segmenter and TextDecoder objects become lazy shims; file-lock's SharedArrayBuffer is
// made lazy) and freezes module-level state at build time. See docs/architecture.md.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const MAIN = join(ROOT, 'packages/zot/dist/bundle/main.js');
const DRIVER = join(ROOT, 'bench/support/pty-driver.py');
const rounds = Number(process.argv[2] ?? 12);
const dir = mkdtempSync(join(tmpdir(), 'zot-snapshot-'));

// Lazy stand-ins, live only while the snapshot is built: ICU-backed objects cannot be serialized.
const BANNER = `{const S=Intl.Segmenter;Intl.Segmenter=function(...a){let r;const g=()=>r??=new S(...a);return{segment:(s)=>g().segment(s),resolvedOptions:()=>g().resolvedOptions()}};
const D=TextDecoder;globalThis.TextDecoder=class{constructor(...a){this.a=a}get r(){return this._r??=new D(...this.a)}decode(b,o){return this.r.decode(b,o)}get encoding(){return this.r.encoding}get fatal(){return this.r.fatal}get ignoreBOM(){return this.r.ignoreBOM}};
globalThis.__zotRestore=()=>{Intl.Segmenter=S;globalThis.TextDecoder=D}}`;

const ENTRY = `import { exitAfterFlush, runCli } from ${JSON.stringify(join(ROOT, 'packages/zot/src/cli/run.ts'))};
import ${JSON.stringify(join(ROOT, 'packages/zot/src/modes/interactive/app.ts'))};
import * as v8 from 'node:v8';
v8.startupSnapshot.setDeserializeMainFunction(() => {
  globalThis.__zotRestore();
  void runCli(process.argv.slice(1)).then(exitAfterFlush);
});
`;

async function buildSnapshot() {
  const entry = join(dir, 'entry.ts');
  writeFileSync(entry, ENTRY);
  const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  const script = join(dir, 'snapshot-entry.cjs');
  await build({
    entryPoints: [entry],
    outfile: script,
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    external: ['ajv', 'diff', 'cli-highlight', '@sinclair/typebox', '@sinclair/typebox/*'],
    define: {
      __ZOT_VERSION__: JSON.stringify(version),
      'import.meta.url': JSON.stringify(`file://${MAIN}`),
    },
    banner: { js: BANNER },
    minifyWhitespace: true,
    minifySyntax: true,
    logLevel: 'error',
    nodePaths: [join(ROOT, 'node_modules')],
    plugins: [
      {
        name: 'snapshot-patches',
        setup(b) {
          b.onResolve({ filter: /^yaml$/ }, () => ({
            path: join(ROOT, 'node_modules/yaml/browser/index.js'),
          }));
          b.onLoad({ filter: /util[/\\]file-lock\.ts$/ }, (args) => ({
            loader: 'ts',
            contents: readFileSync(args.path, 'utf8')
              .replace('const sleeper = new Int32Array(new SharedArrayBuffer(4));', 'let sleeper;')
              .replace(
                'Atomics.wait(sleeper,',
                'Atomics.wait((sleeper ??= new Int32Array(new SharedArrayBuffer(4))),',
              ),
          }));
        },
      },
    ],
  });
  const blob = join(dir, 'zot.blob');
  const made = spawnSync(process.execPath, ['--snapshot-blob', blob, '--build-snapshot', script], {
    encoding: 'utf8',
  });
  if (made.status !== 0) throw new Error(`--build-snapshot failed:\n${made.stderr.slice(-2000)}`);
  const launcher = join(dir, 'launcher.mjs');
  writeFileSync(
    launcher,
    `import { spawn } from 'node:child_process';
const child = spawn(process.execPath, ['--snapshot-blob', ${JSON.stringify(blob)}, '--', ...process.argv.slice(2)], { stdio: 'inherit' });
child.on('exit', (code) => process.exit(code ?? 1));
`,
  );
  return { blob, launcher };
}

function firstFrame(argv, home, cwd) {
  const spec = {
    columns: 120,
    rows: 40,
    ready: '\x1b[?2026l',
    echo: '\x1b[?2026l',
    timeout_ms: 20_000,
    argv: [...argv, '--no-session', '--api-key', 'k', '--base-url', 'http://127.0.0.1:9'],
    cwd,
    env: { ZOT_HOME: home },
    keys: [],
    key_gap_ms: 40,
    quit: '\x03\x03\x03',
  };
  return new Promise((resolve, reject) => {
    const child = spawn('python3', [DRIVER, JSON.stringify(spec)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.on('close', () => {
      const result = JSON.parse(out);
      if (result.ready_ms === null) reject(new Error(`no first frame: ${out}`));
      else resolve(result.ready_ms);
    });
  });
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

try {
  const { blob, launcher } = await buildSnapshot();
  const home = join(dir, 'home');
  const cwd = join(dir, 'work');
  mkdirSync(home);
  mkdirSync(cwd);
  const variants = {
    bundle: [process.execPath, MAIN],
    snapshot: [process.execPath, '--snapshot-blob', blob, '--'],
    relaunch: [process.execPath, launcher],
  };
  const samples = Object.fromEntries(Object.keys(variants).map((name) => [name, []]));
  for (const argv of Object.values(variants)) await firstFrame(argv, home, cwd); // warm-up
  for (let round = 0; round < rounds; round++) {
    for (const [name, argv] of Object.entries(variants))
      samples[name].push(await firstFrame(argv, home, cwd));
  }
  for (const [name, values] of Object.entries(samples)) {
    const ms = median(values).toFixed(1);
    console.log(`${name.padEnd(9)} spawn -> first frame: median ${ms} ms (n ${values.length})`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
