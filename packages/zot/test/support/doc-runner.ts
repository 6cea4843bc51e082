// Runs a document's shell blocks the way a reader would: in order, in one shell, from a fresh
// home directory, with the built zot on PATH as `zot`. Each block's output (stdout and stderr,
// as a terminal shows them) is kept, and a block documented as output is compared with it.
//
// How a page marks its blocks (an HTML comment on the line before the fence):
//   ```sh                         runs (in one bash, `set -e`: every command must succeed)
//   <!-- not run: why -->         before a ```sh block: shown, never run (the reason is required)
//   <!-- output -->               before a ```text block: what the shell block before it prints
//   <!-- file: path -->           before any block: the reader saves it as `path` (from the
//                                 shell's directory at that point), as the page asks
// Every other block (```text, ```json, ```ts, ```python ...) is not shell and is not run here.
// ZOT_DOC_KEEP=1 keeps the reader's directory (each block's output is in doc-run/<page>/out-N).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { hangGuard } from './timing.js';
import { cleanEnv, ZOT_BIN } from './zot.js';

export const REPO = fileURLToPath(new URL('../../../../../', import.meta.url));

export interface DocBlock {
  /** The fence's info string: `sh`, `text`, `json` ... ('' for none). */
  lang: string;
  code: string;
  /** The HTML comment on the line before the fence, without `<!--` and `-->`. */
  marker: string | undefined;
  /** 1-based line of the opening fence. */
  line: number;
}

/** Shell dialects that must be fenced as ```sh, so that every shell block is either run or marked. */
const OTHER_SHELLS = new Set(['bash', 'shell', 'console', 'zsh', 'shell-session', 'terminal']);

/** Fenced blocks (indented ones too) with the HTML comment on the line before each. */
export function docBlocks(markdown: string): DocBlock[] {
  const lines = markdown.split('\n');
  const found: DocBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)```([\w-]*)\s*$/.exec(lines[i]!);
    if (!open) continue;
    const indent = open[1]!.length;
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length && lines[j]!.trim() !== '```'; j++) body.push(lines[j]!.slice(indent));
    const comment = /^\s*<!--\s*(.*?)\s*-->\s*$/.exec(lines[i - 1] ?? '');
    found.push({ lang: open[2]!, code: body.join('\n') + '\n', marker: comment?.[1], line: i + 1 });
    i = j;
  }
  return found;
}

export type Step =
  | { kind: 'run'; block: DocBlock }
  | { kind: 'skip'; block: DocBlock; reason: string }
  | { kind: 'file'; block: DocBlock; path: string }
  | { kind: 'output'; block: DocBlock; of: DocBlock }
  | { kind: 'other'; block: DocBlock };

/**
 * What the runner does with each block of a page. Contract: throws naming the page and line
 * for a marker it does not know, a shell block fenced as anything but ```sh, a `not run` without
 * a reason, or an output block with no shell block before it.
 */
export function docSteps(doc: string, markdown: string): Step[] {
  const steps: Step[] = [];
  let lastRun: DocBlock | undefined;
  for (const block of docBlocks(markdown)) {
    const where = `${doc}:${block.line}`;
    if (OTHER_SHELLS.has(block.lang)) {
      throw new Error(`${where}: fence shell code as \`\`\`sh (it is run, or marked not run)`);
    }
    const marker = block.marker;
    const file = /^file:\s*(\S+)$/.exec(marker ?? '')?.[1];
    const notRun = /^not run(?::\s*(.*))?$/.exec(marker ?? '');
    if (file !== undefined) {
      steps.push({ kind: 'file', block, path: file });
    } else if (notRun) {
      if (block.lang !== 'sh') throw new Error(`${where}: "not run" marks only \`\`\`sh blocks`);
      if (!notRun[1])
        throw new Error(`${where}: say why the block is not run (<!-- not run: why -->)`);
      steps.push({ kind: 'skip', block, reason: notRun[1] });
    } else if (marker === 'serves') {
      // A program that serves an extension over the network: its language's doc test runs it
      // as a server and connects zot to it (sdk-py-docs.test.ts).
      if (block.lang === 'sh') throw new Error(`${where}: "serves" marks a program, not shell`);
      steps.push({ kind: 'other', block });
    } else if (marker === 'output') {
      if (!lastRun) throw new Error(`${where}: an output block with no shell block before it`);
      steps.push({ kind: 'output', block, of: lastRun });
    } else if (marker !== undefined) {
      throw new Error(`${where}: unknown marker <!-- ${marker} --> before a block`);
    } else if (block.lang === 'sh') {
      steps.push({ kind: 'run', block });
      lastRun = block;
    } else {
      steps.push({ kind: 'other', block });
    }
  }
  return steps;
}

export interface Reader {
  /** Everything lives below this; it stands for `/` in documented output. */
  base: string;
  /** $HOME: `<base>/home/kim`, shown as /home/kim. */
  home: string;
  /** The reader's zot checkout, `~/src/zot`: a scratch view of this repository. */
  checkout: string;
  /** A fresh directory for tutorials that start from nothing, `~/src`. */
  src: string;
  env: NodeJS.ProcessEnv;
  cleanup(): void;
}

// Shared with the repository (links: only what no documented command writes to) or copied (an
// extension keeps its data in its directory, pip and npm build in the source tree). Never link a
// directory a build writes into: a block that builds would write into this repository.
const LINKED = ['node_modules', 'docs', 'README.md'];
const COPIED = [
  'examples',
  'sdk-python',
  // `npm pack` of the SDK builds it first, from the protocol's sources too.
  'packages/sdk',
  'packages/protocol',
  'tsconfig.base.json',
  'package.json',
  'package-lock.json',
];

/**
 * A new reader: a home directory with nothing of zot's in it (no ZOT_HOME: the default state
 * directory), the built zot on PATH as `zot`, and a checkout of zot in `~/src/zot`.
 */
export function newReader(env: Record<string, string | undefined> = {}): Reader {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'zot-doc-')));
  const home = join(base, 'home', 'kim');
  const src = join(home, 'src');
  const checkout = join(src, 'zot');
  const bin = join(base, 'bin');
  mkdirSync(checkout, { recursive: true });
  mkdirSync(bin);
  for (const name of LINKED) symlinkSync(join(REPO, name), join(checkout, name));
  for (const name of COPIED) {
    cpSync(join(REPO, name), join(checkout, name), {
      recursive: true,
      filter: (source) => !/[/\\](__pycache__|node_modules|dist-test)$/.test(source),
    });
  }
  // A clone: the repository root for AGENTS.md, skills and trust, and no further up.
  mkdirSync(join(checkout, '.git'));
  writeFileSync(join(checkout, '.git', 'HEAD'), 'ref: refs/heads/main\n');
  writeFileSync(join(bin, 'zot'), `#!/bin/sh\nexec "${process.execPath}" "${ZOT_BIN}" "$@"\n`);
  chmodSync(join(bin, 'zot'), 0o755);
  const full = cleanEnv(join(base, 'unused-zot-home'), {
    HOME: home,
    ZOT_HOME: undefined,
    XDG_STATE_HOME: undefined,
    XDG_CONFIG_HOME: undefined,
    XDG_DATA_HOME: undefined,
    PATH: `${bin}:${process.env['PATH']}`,
    PYTHONDONTWRITEBYTECODE: '1',
    PYTHONPATH: undefined,
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false',
    ...env,
  });
  return {
    base,
    home,
    checkout,
    src,
    env: full,
    cleanup: () => {
      if (process.env['ZOT_DOC_KEEP'] === '1') console.log(`ZOT_DOC_KEEP: kept ${base}`);
      else rmSync(base, { recursive: true, force: true });
    },
  };
}

export interface BlockRun {
  block: DocBlock;
  /** stdout and stderr together, in the order a terminal shows them. */
  output: string;
}

export interface RunOptions {
  /** The page, relative to the repository (`docs/mcp.md`). */
  doc: string;
  reader: Reader;
  /** Where the reader starts. */
  cwd: string;
  /**
   * Shell code run first and not part of the page: stand-ins for what the reader's machine has
   * and a test cannot (a local model server, npm's cache). Keep it short and say why.
   */
  prelude?: string;
  /** A hang guard for the whole page when idle (default 60 s per block that runs). */
  idleMsPerBlock?: number;
}

const FILE_END = '__ZOT_DOC_FILE_END__';

function quote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * Runs the page's shell blocks in one bash and checks each documented output.
 * Contract: throws (an assertion naming the page's line and command) when a command fails, the
 * page outlives its hang guard, or an output block differs from what its block printed.
 */
export async function runDoc(options: RunOptions): Promise<BlockRun[]> {
  const markdown = readFileSync(join(REPO, options.doc), 'utf8');
  const steps = docSteps(options.doc, markdown);
  const runs = steps.filter((s) => s.kind === 'run').map((s) => s.block);
  const dir = join(options.reader.base, 'doc-run', options.doc.replace(/[/\\]/g, '_'));
  mkdirSync(dir, { recursive: true });
  // Script line -> page line, for the command that failed.
  const origin = new Map<number, number>();
  const script: string[] = [
    'set -eE',
    `__zot_doc=${quote(dir)}`,
    // The failing line, and the lines that called the function it failed in (a prelude's).
    `trap 'echo "$LINENO \${BASH_LINENO[*]}" > "$__zot_doc/failed-line"' ERR`,
  ];
  script.push(...(options.prelude ?? '').split('\n'));
  for (const step of steps) {
    if (step.kind === 'file') {
      const path = quote(step.path);
      if (step.block.code.split('\n').includes(FILE_END)) throw new Error(`${FILE_END} in a block`);
      script.push(`mkdir -p "$(dirname ${path})"`, `cat > ${path} <<'${FILE_END}'`);
      script.push(...step.block.code.replace(/\n$/, '').split('\n'), FILE_END);
    } else if (step.kind === 'run') {
      const n = runs.indexOf(step.block);
      script.push(`echo ${n} > "$__zot_doc/current"`, '{');
      step.block.code
        .replace(/\n$/, '')
        .split('\n')
        .forEach((line, i) => {
          origin.set(script.length + 1, step.block.line + 1 + i);
          script.push(line);
        });
      script.push(`} > "$__zot_doc/out-${n}" 2>&1`);
    }
  }
  script.push('echo done > "$__zot_doc/current"');
  const scriptFile = join(dir, 'script.sh');
  writeFileSync(scriptFile, script.join('\n') + '\n');

  const limit = hangGuard((options.idleMsPerBlock ?? 60_000) * Math.max(1, runs.length));
  const child = spawn('bash', [scriptFile], {
    cwd: options.cwd,
    env: options.reader.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let stray = '';
  child.stdout.on('data', (chunk: Buffer) => (stray += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stray += chunk.toString('utf8')));
  let timedOut = false;
  const code = await new Promise<number | null>((resolve) => {
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child.pid!);
    }, limit);
    child.on('close', (status) => (clearTimeout(timer), resolve(status)));
  });
  // Whatever a block left running (it should be nothing) ends with the page.
  killGroup(child.pid!);

  const read = (name: string) =>
    existsSync(join(dir, name)) ? readFileSync(join(dir, name), 'utf8') : '';
  const results: BlockRun[] = runs.map((block, n) => ({ block, output: read(`out-${n}`) }));
  const current = read('current').trim();
  if (timedOut || code !== 0 || current !== 'done') {
    const failed = runs[Number(current)];
    const line = read('failed-line')
      .trim()
      .split(/\s+/)
      .map((n) => origin.get(Number(n)))
      .find((n) => n !== undefined);
    const what = timedOut ? `did not finish within ${limit} ms` : `exited with status ${code}`;
    const command = line !== undefined ? markdown.split('\n')[line - 1]!.trim() : '(the prelude)';
    assert.fail(
      `${options.doc}:${line ?? failed?.line ?? '?'}: \`${command}\` ${what}, run as a reader ` +
        `would (one shell, in order, from ${options.cwd})\n` +
        `--- its block's output ---\n${failed ? results[Number(current)]!.output : ''}` +
        (stray ? `\n--- outside the blocks ---\n${stray}` : ''),
    );
  }
  for (const step of steps) {
    if (step.kind !== 'output') continue;
    const ran = results.find((r) => r.block === step.of)!;
    const problem = compareOutput(step.block.code, ran.output, options.reader.base);
    if (problem) {
      assert.fail(
        `${options.doc}:${step.block.line}: the documented output differs from what ` +
          `${options.doc}:${step.of.line} printed\n${problem}`,
      );
    }
  }
  return results;
}

/** Every block that ran, with what it printed: for a failure message. */
export function transcript(runs: BlockRun[]): string {
  return runs.map((run) => `$ ${run.block.code.trim()}\n${run.output}`).join('\n');
}

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/**
 * The same text as a reader's terminal would show it anywhere: paths below `base` as from `/`,
 * and what differs between runs (durations, dates and times, process ids, interpreter paths)
 * replaced by one placeholder each. Applied to the page and to the real output alike.
 */
export function normaliseOutput(text: string, base?: string): string[] {
  let out = base ? text.split(base).join('') : text;
  out = out
    .replace(/(?:\/[\w.+-]+)+\/(node|python3)(?=[\s)'"]|$)/gm, '$1')
    .replace(/\b\d{4}-\d{2}-\d{2}T[\d:.]+Z\b/g, 'TIMESTAMP')
    .replace(/\b\d{4}-\d{2}-\d{2}\b/g, 'YYYY-MM-DD')
    .replace(/\b\d{1,2}:\d{2}(?::\d{2})?(?:\.\d+)?\b/g, 'HH:MM')
    .replace(/\b(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day\b/g, 'DAY')
    .replace(/\b\d+(?:\.\d+)? ?(ms|s)\b/g, 'N $1')
    .replace(/\b(pid|process group) \d+\b/g, '$1 N');
  const lines = out.split('\n').map((line) => line.trimEnd());
  while (lines.length > 0 && lines[0] === '') lines.shift();
  while (lines.length > 0 && lines.at(-1) === '') lines.pop();
  return lines;
}

/** Line-by-line, where a line `...` in `expected` stands for any number of lines. */
function linesMatch(expected: string[], actual: string[]): boolean {
  const memo = new Map<string, boolean>();
  const go = (e: number, a: number): boolean => {
    const key = `${e},${a}`;
    const known = memo.get(key);
    if (known !== undefined) return known;
    let result: boolean;
    if (e === expected.length) result = a === actual.length;
    else if (expected[e] === '...') result = go(e + 1, a) || (a < actual.length && go(e, a + 1));
    else result = a < actual.length && expected[e] === actual[a] && go(e + 1, a + 1);
    memo.set(key, result);
    return result;
  };
  return go(0, 0);
}

/** Undefined when they match; otherwise both texts as compared. */
export function compareOutput(expected: string, actual: string, base?: string): string | undefined {
  const want = normaliseOutput(expected);
  const have = normaliseOutput(actual, base);
  if (linesMatch(want, have)) return undefined;
  return `--- documented (normalised) ---\n${want.join('\n')}\n--- printed (normalised) ---\n${have.join('\n')}`;
}
