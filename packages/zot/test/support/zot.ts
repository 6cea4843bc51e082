// Runs the compiled zot CLI as a real subprocess with its own ZOT_HOME.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { fileURLToPath } from 'node:url';
import { checkOutputLine } from './rpc-schema.js';
import { hangGuard } from './timing.js';

// The bundled CLI, as installed; the per-file build beside it is what unit tests import.
export const ZOT_BIN = fileURLToPath(new URL('../../bundle/main.js', import.meta.url));

export interface ZotResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** What must stop before a sandbox's files go (a zot in tmux), by its ZOT_HOME. */
const stopBeforeCleanup = new Map<string, Array<() => void>>();

/**
 * Makes the cleanup() of the sandbox whose ZOT_HOME is `home` call `stop` first: a test's
 * after-hooks run in the order they were added, and the sandbox's usually comes first, while the
 * zot it removes files under may still be writing there.
 */
export function stopBeforeSandboxCleanup(home: string, stop: () => void): void {
  stopBeforeCleanup.set(home, [...(stopBeforeCleanup.get(home) ?? []), stop]);
}

/** A temporary ZOT_HOME and project directory, removed by cleanup(). */
export function makeSandbox(): { home: string; project: string; cleanup(): void } {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'zot-test-')));
  const home = join(base, 'home');
  const project = join(base, 'project');
  mkdirSync(home, { recursive: true });
  mkdirSync(project, { recursive: true });
  const cleanup = () => {
    for (const stop of stopBeforeCleanup.get(home) ?? []) stop();
    stopBeforeCleanup.delete(home);
    rmSync(base, { recursive: true, force: true });
  };
  return { home, project, cleanup };
}

export interface RunOptions {
  home: string;
  cwd?: string;
  input?: string;
  env?: Record<string, string | undefined>;
  timeoutMs?: number;
}

/** The XDG cache directory of every zot the tests run (util/code-cache.ts keeps code there). */
export const TEST_CACHE_HOME = join(tmpdir(), `zot-test-cache-${process.getuid?.() ?? 'user'}`);

/** Environment without the caller's provider keys, so tests never pick up real credentials. */
export function cleanEnv(
  home: string,
  extra: Record<string, string | undefined> = {},
): NodeJS.ProcessEnv {
  // HOME too: the user's own ~/.claude/skills or ~/.agents/skills must not reach a test's prompt.
  const userHome = join(home, '..', 'user-home');
  mkdirSync(userHome, { recursive: true });
  // One code cache for every test's zot, outside the sandboxes: the tests share it as separate
  // users' runs would, and a sandbox is never removed while a zot still writes into it at exit.
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ZOT_HOME: home,
    HOME: userHome,
    XDG_CACHE_HOME: TEST_CACHE_HOME,
    NO_COLOR: '1',
  };
  for (const key of [
    'ANTHROPIC_API_KEY',
    'OPENAI_API_KEY',
    'KIMI_API_KEY',
    'MOONSHOT_API_KEY',
    'OLLAMA_API_KEY',
    'LMSTUDIO_API_KEY',
    'VLLM_API_KEY',
    'LLAMACPP_API_KEY',
    // A developer's own servers must not receive the tests' requests.
    'ANTHROPIC_BASE_URL',
    'ZOT_OPENAI_BASE_URL',
    'OPENAI_BASE_URL',
    'ZOTCORE_RPC_TOKEN',
    // Saved tool outputs would go there: a test's stay in its own ZOT_HOME.
    'XDG_RUNTIME_DIR',
    // A developer's proxy settings would route the tests' local servers through the proxy.
    ...['http_proxy', 'https_proxy', 'all_proxy', 'no_proxy'].flatMap((name) => [
      name,
      name.toUpperCase(),
    ]),
  ]) {
    delete env[key];
  }
  for (const [key, value] of Object.entries(extra)) {
    if (value === undefined) delete env[key];
    else env[key] = value;
  }
  return env;
}

// A test that fails half-way leaves its zot running (stdin open): end them all with the file, so
// one failure is reported as that failure, not as a hung or cancelled test file.
const running = new Set<ChildProcessWithoutNullStreams>();
after(() => {
  for (const child of running) child.kill('SIGKILL');
});

export function startZot(args: string[], options: RunOptions): ChildProcessWithoutNullStreams {
  const child = spawn(process.execPath, [ZOT_BIN, ...args], {
    cwd: options.cwd ?? options.home,
    env: cleanEnv(options.home, options.env),
    stdio: 'pipe',
  });
  running.add(child);
  child.on('exit', () => running.delete(child));
  return child;
}

/** Runs zot to completion. Contract: rejects only when it outlives timeoutMs (then it is killed). */
export function runZot(args: string[], options: RunOptions): Promise<ZotResult> {
  const child = startZot(args, options);
  return collect(child, options.input, options.timeoutMs ?? hangGuard(30_000));
}

export function collect(
  child: ChildProcessWithoutNullStreams,
  input: string | undefined,
  timeoutMs: number,
): Promise<ZotResult> {
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  if (input !== undefined) child.stdin.end(input);
  else child.stdin.end();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new Error(`zot did not exit within ${timeoutMs} ms\nstdout: ${stdout}\nstderr: ${stderr}`),
      );
    }, timeoutMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** Parses JSON-mode output into events, each checked against schema/rpc.schema.json. */
export function jsonLines(stdout: string): Array<Record<string, unknown> & { type: string }> {
  return stdout
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => checkOutputLine(JSON.parse(line) as Record<string, unknown> & { type: string }));
}
