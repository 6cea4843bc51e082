// `zot ext new <name> [--lang ts|python|node] [--dir DIR]`: a working extension to start from.
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  renameSync,
  rmSync,
  rmdirSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { UsageError, errorMessage } from '../../util/errors.js';
import { fail, nameArgument, out, parseOptions, type ExtCommand } from './common.js';
import { nodeProgram, sdkFiles, toolNameFor, tsCompiled, tsProgram } from './scaffold-js.js';
import { pythonFiles } from './scaffold-python.js';

export type Lang = 'node' | 'ts' | 'python';

const LANGS: Record<string, Lang> = {
  node: 'node',
  js: 'node',
  javascript: 'node',
  ts: 'ts',
  typescript: 'ts',
  python: 'python',
  py: 'python',
};

interface File {
  path: string;
  content: string;
  executable?: boolean;
}

function manifest(name: string, lang: Lang): string {
  const run: Record<Lang, { exec: string; args: string[]; language: string }> = {
    node: { exec: 'node', args: ['index.mjs'], language: 'javascript' },
    ts: { exec: 'node', args: ['dist/index.js'], language: 'typescript' },
    python: { exec: 'python3', args: ['main.py'], language: 'python' },
  };
  const { exec, args, language } = run[lang];
  const fields = {
    name,
    version: '0.1.0',
    description: `say hello (${name})`,
    exec,
    args,
    language,
    enabled: true,
  };
  return JSON.stringify(fields, null, 2) + '\n';
}

function readme(name: string, lang: Lang, tool: string): string {
  const files: Record<Lang, string> = {
    node: '- `index.mjs`: the extension (plain ESM, Node built-ins only, no dependencies)',
    python: [
      '- `main.py`: the extension (Python 3, standard library only)',
      '- `zot_sdk/`: the Python SDK, copied from the zot that created this extension, so it',
      '  runs with nothing installed',
    ].join('\n'),
    ts: [
      '- `src/index.ts`: the extension source, on `@zot/sdk` (the TypeScript SDK)',
      '- `dist/index.js`: the compiled program zot runs (`node dist/index.js`)',
      '- `vendor/zot-sdk/`: the SDK, copied from your zot; `package.json` depends on it',
      '  (`file:vendor/zot-sdk`), so installing needs no registry. `node_modules/@zot/sdk`',
      '  holds the same copy, so the extension runs before any `npm install`',
      '- `package.json`, `tsconfig.json`: the build (`npm run build`)',
    ].join('\n'),
  };
  const build =
    lang === 'ts'
      ? `
## Building

zot runs \`dist/index.js\`, never the TypeScript source, so the extension needs no
compiler at run time. \`zot ext new\` wrote \`dist/index.js\` already compiled (it is
exactly what \`tsc\` emits for \`src/index.ts\`), so it works at once. After editing
\`src/index.ts\`, rebuild:

\`\`\`sh
npm install      # typescript and @types/node, once (--offline works from npm's cache)
npm run build    # tsc -p .  ->  dist/index.js
\`\`\`

The SDK is vendored, not fetched: to move to the SDK of a newer zot, run
\`npm install <zot repository>/packages/sdk\` (a link) or \`npm install ./zot-sdk-x.y.z.tgz\`
(a copy made with \`npm pack <zot repository>/packages/sdk\`). See docs/sdk-typescript.md.

Keep \`dist/\` with the extension when you install or share it.
`
      : '';
  return `# ${name}

A zot extension: the command \`/${name}\` and the tool \`${tool}\`.

${files[lang]}
- \`extension.json\`: the manifest (\`exec\` and \`args\` say how zot starts it)

## Try it

\`\`\`sh
zot ext doctor --ext .    # start it once and show what it registered
zot --ext . -p "/${name} there"
zot ext install .         # copy it into $ZOT_HOME/extensions for every session
zot ext logs ${name}      # its stderr
\`\`\`

## How it works

zot starts the program and exchanges one JSON object per line over stdin/stdout.
The program sends \`hello\` first; zot answers \`hello_ack\`; the program registers
its commands and tools and sends \`ready\`. After that zot sends
\`command_invoked\` and \`tool_call\` frames, each answered with the same \`id\`,
and finally \`shutdown\`, answered with \`shutdown_ack\`. Anything printed to stdout
must be protocol; write diagnostics to stderr.
${build}`;
}

function files(name: string, lang: Lang): File[] {
  const tool = toolNameFor(name);
  const common: File[] = [
    { path: 'extension.json', content: manifest(name, lang) },
    { path: 'README.md', content: readme(name, lang, tool) },
  ];
  switch (lang) {
    case 'node':
      return [...common, { path: 'index.mjs', content: nodeProgram(name, tool) }];
    case 'python':
      return [...common, ...pythonFiles(name, tool)];
    case 'ts': {
      const sdk = sdkFiles();
      return [
        ...common,
        { path: 'src/index.ts', content: tsProgram(name, tool) },
        { path: 'dist/index.js', content: tsCompiled(name, tool) },
        { path: 'package.json', content: packageJson(name) },
        { path: 'tsconfig.json', content: TSCONFIG },
        { path: '.gitignore', content: 'node_modules/\n' },
        ...sdk.map((f) => ({ path: `vendor/zot-sdk/${f.path}`, content: f.content })),
        ...sdk.map((f) => ({ path: `node_modules/@zot/sdk/${f.path}`, content: f.content })),
      ];
    }
  }
}

function packageJson(name: string): string {
  const fields = {
    name,
    version: '0.1.0',
    private: true,
    type: 'module',
    scripts: { build: 'tsc -p .' },
    dependencies: { '@zot/sdk': 'file:vendor/zot-sdk' },
    devDependencies: { '@types/node': '20.19.43', typescript: '5.9.3' },
  };
  return JSON.stringify(fields, null, 2) + '\n';
}

const TSCONFIG = `{
  "compilerOptions": {
    "target": "ES2022",
    "module": "NodeNext",
    "moduleResolution": "NodeNext",
    "strict": true,
    "rootDir": "src",
    "outDir": "dist",
    "types": ["node"],
    "skipLibCheck": true
  },
  "include": ["src"]
}
`;

/** Writes the files into a hidden sibling first, then renames it into place (all or nothing). */
function writeScaffold(dir: string, content: File[]): void {
  const parent = dirname(dir);
  mkdirSync(parent, { recursive: true });
  const staging = mkdtempSync(join(parent, `.zot-new-${basename(dir)}-`));
  try {
    chmodSync(staging, 0o755);
    for (const file of content) {
      const path = join(staging, ...file.path.split('/'));
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, file.content, { mode: file.executable ? 0o755 : 0o644 });
    }
    if (isEmptyDir(dir)) rmdirSync(dir);
    renameSync(staging, dir);
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    throw error;
  }
}

function isEmptyDir(dir: string): boolean {
  try {
    return statSync(dir).isDirectory() && readdirSync(dir).length === 0;
  } catch {
    return false;
  }
}

export const newCommand: ExtCommand = {
  name: 'new',
  help: `Usage: zot ext new <name> [--lang node|ts|python] [--dir DIR]

Creates a working extension in ./<name> (or DIR): extension.json, the program and
a README. It registers the command /<name> and a tool <name>_greet, and passes
\`zot ext doctor --ext <dir>\` as generated.

Options:
  --lang node     index.mjs: plain ESM, Node built-ins only (default)
  --lang ts       src/index.ts on @zot/sdk plus its compiled dist/index.js (zot
                  runs the compiled file; rebuild with npm run build after
                  editing); the SDK is vendored, so no registry is needed
  --lang python   main.py on zot_sdk, the Python SDK (standard library only),
                  copied from this zot into zot_sdk/
  --dir DIR       create the extension here instead of ./<name>
`,
  async run(args, context) {
    const parsed = parseOptions('new', args, [
      { names: ['--lang'], kind: 'value' },
      { names: ['--dir'], kind: 'value' },
    ]);
    const name = nameArgument('new', parsed);
    const langArg = parsed.values.get('--lang') ?? 'node';
    const lang = LANGS[langArg.toLowerCase()];
    if (!lang) throw new UsageError(`ext new: --lang must be node, ts or python; got "${langArg}"`);
    const dir = resolve(context.cwd, parsed.values.get('--dir') ?? name);
    let exists = false;
    try {
      statSync(dir);
      exists = true;
    } catch {
      // A new directory: the normal case.
    }
    if (exists && !isEmptyDir(dir)) {
      return fail(
        context,
        `${dir} already exists and is not an empty directory; choose another --dir`,
      );
    }
    let content: File[];
    try {
      content = files(name, lang);
    } catch (error) {
      return fail(context, `cannot create ${name}: ${errorMessage(error)}`);
    }
    try {
      writeScaffold(dir, content);
    } catch (error) {
      return fail(context, `cannot create ${dir}: ${errorMessage(error)}`);
    }
    // What was made is the command's result: stdout (failures and warnings go to stderr).
    out(context, `created ${name} (${lang}) in ${dir}:`);
    for (const file of content) {
      if (!/^(vendor|node_modules|zot_sdk)\//.test(file.path)) out(context, `  ${file.path}`);
    }
    if (lang === 'ts') out(context, '  vendor/zot-sdk/, node_modules/@zot/sdk/: the SDK');
    if (lang === 'python') out(context, '  zot_sdk/: the SDK, copied from this zot');
    out(context, `try it: zot ext doctor --ext ${dir}`);
    return 0;
  },
};
