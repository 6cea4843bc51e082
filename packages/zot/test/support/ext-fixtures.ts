// Self-contained test extensions for the `zot ext` tests: the program lives inside the extension
// directory (install copies it, trust hashes it), configured by a JSON spec.
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

export interface ExtSpec {
  name: string;
  /** The name sent in `hello` (defaults to `name`). */
  hello?: string;
  commands?: string[];
  tools?: Array<{ name: string; deferred?: boolean }>;
  events?: string[];
  intercept?: string[];
  /** Exit with this status before saying hello. */
  exit?: number;
  /** Written to stderr at start. */
  stderr?: string;
  /** Print a malformed line after hello_ack. */
  garbage?: boolean;
  /** Register but never send `ready` (auto-ready). */
  noReady?: boolean;
}

/**
 * The program: appends "<name> <pid>" to $ZOT_TEST_MARKER when it starts (outside its own
 * directory, so trust hashes stay put), then speaks just enough protocol for `spec`.
 */
export function extensionProgram(spec: ExtSpec): string {
  return `import { appendFileSync } from 'node:fs';
const spec = ${JSON.stringify(spec)};
if (process.env.ZOT_TEST_MARKER) appendFileSync(process.env.ZOT_TEST_MARKER, spec.name + ' ' + process.pid + '\\n');
if (spec.stderr) process.stderr.write(spec.stderr + '\\n');
if (spec.exit !== undefined) process.exit(spec.exit);
const send = (frame) => process.stdout.write(JSON.stringify(frame) + '\\n');
send({ type: 'hello', name: spec.hello ?? spec.name, version: '1.0.0' });
let buffer = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  buffer += chunk;
  for (let i = buffer.indexOf('\\n'); i >= 0; i = buffer.indexOf('\\n')) {
    const line = buffer.slice(0, i);
    buffer = buffer.slice(i + 1);
    if (!line.trim()) continue;
    const frame = JSON.parse(line);
    if (frame.type === 'hello_ack') {
      for (const name of spec.commands ?? []) send({ type: 'register_command', name, description: name });
      for (const tool of spec.tools ?? [])
        send({ type: 'register_tool', name: tool.name, description: tool.name, schema: { type: 'object', properties: {} }, deferred: tool.deferred === true });
      if (spec.events || spec.intercept) send({ type: 'subscribe', events: spec.events ?? [], intercept: spec.intercept ?? [] });
      if (spec.garbage) process.stdout.write('this is not json\\n');
      if (!spec.noReady) send({ type: 'ready' });
    } else if (frame.type === 'shutdown') {
      send({ type: 'shutdown_ack' });
      process.exit(0);
    }
  }
});
process.stdin.on('end', () => process.exit(0));
`;
}

/** Writes `<parent>/<dirName>` with extension.json (exec node ext.mjs) and the program. */
export function writeExtension(
  parent: string,
  spec: ExtSpec,
  manifest: Record<string, unknown> = {},
  dirName = spec.name,
): string {
  const dir = join(parent, dirName);
  mkdirSync(dir, { recursive: true });
  const fields = {
    name: spec.name,
    version: '1.0.0',
    description: `test extension ${spec.name}`,
    exec: 'node',
    args: ['ext.mjs'],
    ...manifest,
  };
  writeFileSync(join(dir, 'extension.json'), JSON.stringify(fields, null, 2));
  writeFileSync(join(dir, 'ext.mjs'), extensionProgram(spec));
  return dir;
}

/** Lines "<name> <pid>" appended by started test extensions. */
export function startedExtensions(marker: string): Array<{ name: string; pid: number }> {
  if (!existsSync(marker)) return [];
  return readFileSync(marker, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [name, pid] = line.split(' ');
      return { name: name!, pid: Number(pid) };
    });
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Everything below `dir` with modes (or 'absent'), for before/after comparisons. */
export function snapshot(dir: string): string[] | 'absent' {
  if (!existsSync(dir)) return 'absent';
  const out: string[] = [];
  const walk = (rel: string) => {
    for (const name of readdirSync(join(dir, rel)).sort()) {
      const path = rel ? `${rel}/${name}` : name;
      const stat = lstatSync(join(dir, path));
      out.push(`${path}:${stat.mode.toString(8)}:${stat.isFile() ? stat.size : ''}`);
      if (stat.isDirectory()) walk(path);
    }
  };
  walk('');
  return out;
}

export const GIT_ENV = {
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 'Test',
  GIT_AUTHOR_EMAIL: 'test@example.com',
  GIT_COMMITTER_NAME: 'Test',
  GIT_COMMITTER_EMAIL: 'test@example.com',
};

/** `git init` + commit of everything in `dir`; returns its file:// URL. */
export function commitAll(dir: string): string {
  for (const args of [
    ['init', '-q'],
    ['add', '-A'],
    ['commit', '-q', '-m', 'init'],
  ]) {
    const result = spawnSync('git', args, {
      cwd: dir,
      env: { ...process.env, ...GIT_ENV },
      encoding: 'utf8',
    });
    if (result.status !== 0) throw new Error(`git ${args.join(' ')} failed: ${result.stderr}`);
  }
  return pathToFileURL(dir).href;
}
