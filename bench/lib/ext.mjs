// Helpers shared by the extension suites: trivial extension programs, extension directories,
// an in-process ExtensionHost, a raw pipe peer speaking the same protocol, and cleanup checks.
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from './common.mjs';

/**
 * The compiled (unbundled) source tree the extension suites import the host from in-process;
 * BENCH_ZOT_SRC points them at another build's `dist/src` (A/B runs).
 */
export const DIST_SRC = process.env.BENCH_ZOT_SRC ?? join(ROOT, 'packages/zot/dist/src');
export const HOST_JS = join(DIST_SRC, 'extensions', 'host.js');
export const EXEC_RESOLVE_JS = join(DIST_SRC, 'ext-setup', 'exec-resolve.js');
export const NODE_FIXTURE = join(ROOT, 'packages/zot/test/fixtures/ext-fixture.mjs');
export const PY_FIXTURE = join(ROOT, 'packages/zot/test/fixtures/ext_fixture.py');

export const importHost = () => import(pathToFileURL(HOST_JS).href);
export const importExecResolve = () => import(pathToFileURL(EXEC_RESOLVE_JS).href);

/**
 * The environment for extension processes: PATH starts with the directory of the real Python
 * interpreter, so that `python3` is the interpreter itself and not a version-manager shim
 * (pyenv's shim is a shell script that costs more than Python's own start-up). The host and the
 * raw baselines get the same environment and therefore the same command lines.
 */
export function extensionEnv() {
  let pythonDir;
  try {
    const exe = execFileSync('python3', ['-c', 'import sys; print(sys.executable)'], {
      encoding: 'utf8',
    }).trim();
    if (exe) pythonDir = dirname(exe);
  } catch {
    // no python3: the Python rows will fail with a clear spawn error
  }
  const path = [pythonDir, dirname(process.execPath), process.env.PATH]
    .filter(Boolean)
    .join(delimiter);
  return { ...process.env, PATH: path };
}

/** A minimal Node extension: hello; on hello_ack one register_command then ready; tool echo. */
const TRIVIAL_NODE = `// Trivial bench extension (Node): hello, then on hello_ack one command and ready.
const name = process.argv[2] ?? 'trivial';
const out = (frame) => process.stdout.write(JSON.stringify(frame) + '\\n');
out({ type: 'hello', name, version: '1.0.0', capabilities: ['commands'] });
let buffer = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  buffer += chunk;
  let nl;
  while ((nl = buffer.indexOf('\\n')) !== -1) {
    const line = buffer.slice(0, nl);
    buffer = buffer.slice(nl + 1);
    if (line.trim() === '') continue;
    let frame;
    try {
      frame = JSON.parse(line);
    } catch {
      continue;
    }
    if (frame.type === 'hello_ack') {
      out({ type: 'register_command', name: 'hi', description: 'says hi' });
      out({ type: 'ready' });
    } else if (frame.type === 'command_invoked') {
      out({ type: 'command_response', id: frame.id, action: 'display', display: 'hi' });
    } else if (frame.type === 'shutdown') {
      process.stdout.write(JSON.stringify({ type: 'shutdown_ack' }) + '\\n', () => process.exit(0));
    }
  }
});
process.stdin.on('end', () => process.exit(0));
`;

const TRIVIAL_PY = `# Trivial bench extension (Python): hello, then on hello_ack one command and ready.
import json
import sys

name = sys.argv[1] if len(sys.argv) > 1 else "trivial"
out = sys.stdout


def send(frame):
    out.write(json.dumps(frame) + "\\n")
    out.flush()


send({"type": "hello", "name": name, "version": "1.0.0", "capabilities": ["commands"]})
for line in sys.stdin:
    line = line.strip()
    if not line:
        continue
    try:
        frame = json.loads(line)
    except ValueError:
        continue
    kind = frame.get("type")
    if kind == "hello_ack":
        send({"type": "register_command", "name": "hi", "description": "says hi"})
        send({"type": "ready"})
    elif kind == "command_invoked":
        send({"type": "command_response", "id": frame["id"], "action": "display", "display": "hi"})
    elif kind == "shutdown":
        send({"type": "shutdown_ack"})
        sys.exit(0)
`;

/** A fresh temporary root for one suite; `root.cleanup()` removes it. */
export function tempRoot(label) {
  const dir = mkdtempSync(join(tmpdir(), `zot-bench-${label}-`));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Writes trivial.mjs and trivial.py into `dir`; returns their absolute paths. */
export function writeTrivialPrograms(dir) {
  mkdirSync(dir, { recursive: true });
  const node = join(dir, 'trivial.mjs');
  const python = join(dir, 'trivial.py');
  writeFileSync(node, TRIVIAL_NODE);
  writeFileSync(python, TRIVIAL_PY);
  return { node, python };
}

/** Writes `<root>/<name>/extension.json` running `exec args...`; returns the directory. */
export function makeExtension(root, name, exec, args) {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'extension.json'),
    JSON.stringify({ name, version: '1.0.0', exec, args }, null, 2),
  );
  return dir;
}

/** A trivial extension (Node or Python) in `<root>/<name>`. */
export function makeTrivial(root, programs, language, name) {
  return language === 'python'
    ? makeExtension(root, name, 'python3', [programs.python, name])
    : makeExtension(root, name, 'node', [programs.node, name]);
}

/** A fixture extension (test/fixtures) in `<root>/<name>`. */
export function makeFixture(root, name, scenario, options = {}, language = 'node') {
  const program = language === 'python' ? PY_FIXTURE : NODE_FIXTURE;
  const exec = language === 'python' ? 'python3' : 'node';
  return makeExtension(root, name, exec, [program, scenario, JSON.stringify({ name, ...options })]);
}

/**
 * The command line the host runs for an extension directory, resolved the way the host does
 * (`resolveExec`), so a raw baseline spawns exactly the same program.
 */
export async function commandLine(dir, env) {
  const { resolveExec } = await importExecResolve();
  const { readFileSync } = await import('node:fs');
  const manifestPath = join(dir, 'extension.json');
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
  const resolved = resolveExec(
    { exec: manifest.exec, args: manifest.args ?? [], dir, manifestPath },
    env,
  );
  if (!resolved.ok) throw new Error(resolved.error);
  return { command: resolved.command, args: resolved.args, cwd: dir, name: manifest.name };
}

/** An ExtensionHost for `dirs` (as --ext paths, discovery of installed ones off). */
export async function createHost(root, dirs, { env, timeouts } = {}) {
  const { ExtensionHost } = await importHost();
  return new ExtensionHost({
    cwd: root,
    zotHome: join(root, 'zot-home'),
    logsDir: join(root, 'logs'),
    extPaths: dirs,
    noExt: true,
    version: '0.0.0-bench',
    model: () => ({ provider: 'anthropic', model: 'bench-model' }),
    builtins: { commands: new Set(), tools: new Set() },
    ...(env ? { env } : {}),
    ...(timeouts ? { timeouts } : {}),
  });
}

/** Starts a host and checks every extension is ready; returns the host. */
export async function startHost(root, dirs, options) {
  const host = await createHost(root, dirs, options);
  const reports = await host.start();
  const bad = reports.filter((report) => report.status !== 'ready');
  if (bad.length > 0) {
    await host.shutdown();
    throw new Error(
      `extensions not ready: ${bad.map((r) => `${r.name} ${r.status} ${r.error ?? ''}`).join('; ')}`,
    );
  }
  return host;
}

/**
 * A raw peer: the same program spawned the way the host spawns it (own process group, pipes),
 * with LF-split stdout lines handed to waiters in order. No protocol package, no validation.
 */
export class RawPeer {
  constructor({ command, args, cwd }, env) {
    this.child = spawn(command, args, {
      cwd,
      env,
      detached: true,
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    this.exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.stdin.on('error', () => undefined);
    this.child.once('error', (error) => this.fail(error));
    this.buffer = '';
    this.lines = [];
    this.waiters = [];
    this.error = undefined;
    this.child.stdout.setEncoding('utf8');
    this.child.stdout.on('data', (chunk) => this.onData(chunk));
    this.child.stdout.on('end', () => this.fail(new Error('raw peer: stdout closed')));
  }

  onData(chunk) {
    this.buffer += chunk;
    let nl;
    while ((nl = this.buffer.indexOf('\n')) !== -1) {
      const line = this.buffer.slice(0, nl);
      this.buffer = this.buffer.slice(nl + 1);
      const waiter = this.waiters.shift();
      if (waiter) waiter.resolve(line);
      else this.lines.push(line);
    }
  }

  fail(error) {
    this.error ??= error;
    for (const waiter of this.waiters.splice(0)) waiter.reject(error);
  }

  /** The next stdout line (without LF). */
  nextLine() {
    if (this.lines.length > 0) return Promise.resolve(this.lines.shift());
    if (this.error) return Promise.reject(this.error);
    return new Promise((resolve, reject) => this.waiters.push({ resolve, reject }));
  }

  /** Lines until one whose JSON `type` is `type`; returns that frame. */
  async until(type) {
    for (;;) {
      const frame = JSON.parse(await this.nextLine());
      if (frame.type === type) return frame;
    }
  }

  send(frame) {
    this.child.stdin.write(JSON.stringify(frame) + '\n');
  }

  /** Raw round trip: one JSON line out, the next line back, parsed. */
  async roundTrip(frame) {
    this.child.stdin.write(JSON.stringify(frame) + '\n');
    return JSON.parse(await this.nextLine());
  }

  /** hello, hello_ack, then everything up to ready (registrations skipped). */
  async handshake(dir) {
    const hello = await this.until('hello');
    this.send({
      type: 'hello_ack',
      protocol_version: 1,
      zot_version: '0.0.0-bench',
      provider: 'anthropic',
      model: 'bench-model',
      cwd: dir,
      extension_dir: dir,
      data_dir: dir,
    });
    await this.until('ready');
    return hello;
  }

  /** Kills the process group and waits for the exit. */
  async kill() {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      try {
        process.kill(-this.child.pid, 'SIGKILL');
      } catch {
        this.child.kill('SIGKILL');
      }
    }
    this.child.stdin.destroy();
    this.child.stdout.destroy();
    await this.exited;
  }
}

/**
 * Throws when a live process still mentions `needle` in its command line (leftover children),
 * after waiting up to `timeoutMs` for asynchronous shutdowns to finish.
 */
export async function assertNoLeftovers(needle, timeoutMs = 5000) {
  const live = () =>
    execFileSync('ps', ['-eo', 'pid=,stat=,args='], { encoding: 'utf8' })
      .split('\n')
      .filter((line) => line.includes(needle) && !line.includes('ps -eo'))
      .filter((line) => !/^\s*\d+\s+Z/.test(line));
  const deadline = Date.now() + timeoutMs;
  let left = live();
  while (left.length > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    left = live();
  }
  if (left.length > 0) throw new Error(`leftover processes:\n${left.join('\n')}`);
}

/** Median of a numeric array (for notes and custom targets). */
export function medianOf(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Runs `fn(i)` `total` times in blocks of `block`, alternating between named variants. */
export async function alternateBlocks(total, block, variants) {
  const names = Object.keys(variants);
  const samples = Object.fromEntries(names.map((name) => [name, []]));
  for (let done = 0, round = 0; done < total; done += block, round++) {
    const count = Math.min(block, total - done);
    for (let i = 0; i < names.length; i++) {
      const name = names[(round + i) % names.length];
      for (let k = 0; k < count; k++) samples[name].push(await variants[name](done + k));
    }
  }
  return samples;
}

/** The arguments of the i-th echo call the round-trip suites make. */
export const echoArgs = (i) => ({ path: 'src/index.ts', line: i, pattern: 'hello world' });

/**
 * A timed call of the echo tool `name` through `host` (`tool.execute`, as the agent calls it):
 * `(i) => ms`; throws unless the output is exactly `${prefix}:${JSON of the arguments}`.
 */
export function timedToolCall(host, name, cwd, prefix = 'echo') {
  const tool = host.toolSource.find(name);
  if (!tool) throw new Error(`tool ${name} not registered`);
  const signal = new AbortController().signal;
  let seq = 0;
  return async (i) => {
    const args = echoArgs(i);
    const start = performance.now();
    const output = await tool.execute(args, {
      cwd,
      toolCallId: `call_${++seq}`,
      signal,
      onProgress: () => undefined,
    });
    const ms = performance.now() - start;
    if (output.isError || output.content[0]?.text !== `${prefix}:${JSON.stringify(args)}`)
      throw new Error(`unexpected tool output: ${JSON.stringify(output)}`);
    return ms;
  };
}
