// Running git for checkpoints: through the one launcher, with an environment that holds none of
// the caller's GIT_* variables (a GIT_DIR or GIT_OBJECT_DIRECTORY inherited from a hook would
// send our objects into the user's repository), and with settings that keep content byte-exact.
import { launchProcess } from '../../security/launcher.js';
import { launchFailureText } from '../../util/errors.js';

/** Most output zot reads from one git command (a listing of a very large tree fits). */
const MAX_OUTPUT_BYTES = 256 * 1024 * 1024;

/** Settings every checkpoint command runs with, whatever the user's configuration says. */
export const FIXED_CONFIG = [
  '-c',
  'core.autocrlf=false',
  '-c',
  'core.safecrlf=false',
  '-c',
  'core.fsmonitor=false',
  '-c',
  'core.symlinks=true',
  '-c',
  'core.quotepath=false',
  '-c',
  'gc.auto=0',
  '-c',
  'maintenance.auto=false',
];

export class GitError extends Error {
  constructor(
    message: string,
    readonly code: number | null,
    readonly stderr: string,
  ) {
    super(message);
  }
}

export interface GitRun {
  args: string[];
  cwd: string;
  /** GIT_* variables to set (everything else named GIT_* is removed). */
  git?: Record<string, string>;
  input?: Buffer | string;
  /** Exit codes that are not a failure (git diff --quiet's 1, say). */
  okCodes?: number[];
}

/** The environment of a checkpoint git command: no inherited GIT_*, no prompts, no pager. */
export function gitEnvironment(extra: Record<string, string> | undefined): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!name.startsWith('GIT_')) env[name] = value;
  }
  return {
    ...env,
    GIT_TERMINAL_PROMPT: '0',
    GIT_OPTIONAL_LOCKS: '0',
    GIT_PAGER: 'cat',
    GIT_AUTHOR_NAME: 'zot',
    GIT_AUTHOR_EMAIL: 'zot@localhost',
    GIT_COMMITTER_NAME: 'zot',
    GIT_COMMITTER_EMAIL: 'zot@localhost',
    LC_ALL: 'C',
    ...extra,
  };
}

/**
 * Runs git and returns its stdout. Contract: rejects with a GitError naming the command and
 * git's message when git is missing, fails, or writes more than MAX_OUTPUT_BYTES.
 */
export function runGit(run: GitRun): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const what = `git ${run.args.find((arg) => !arg.startsWith('-')) ?? ''}`.trim();
    let child;
    try {
      child = launchProcess({
        argv: ['git', ...FIXED_CONFIG, ...run.args],
        cwd: run.cwd,
        env: gitEnvironment(run.git),
        stdio: ['pipe', 'pipe', 'pipe'],
        detached: false,
        policy: { scrubEnv: (env) => env },
      }).child;
    } catch (error) {
      reject(new GitError(`cannot run ${what}: ${(error as Error).message}`, null, ''));
      return;
    }
    const out: Buffer[] = [];
    let outBytes = 0;
    let stderr = '';
    let overflow = false;
    child.stdout!.on('data', (chunk: Buffer) => {
      outBytes += chunk.length;
      if (outBytes > MAX_OUTPUT_BYTES) {
        overflow = true;
        child.kill('SIGKILL');
        return;
      }
      out.push(chunk);
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      if (stderr.length < 16 * 1024) stderr += chunk.toString('utf8');
    });
    child.stdin!.on('error', () => {}); // git may exit before reading everything; close says why
    child.on('error', (error) => {
      const neededFor = 'checkpoints need it (or turn them off with --no-checkpoints)';
      reject(new GitError(launchFailureText(error, 'git', neededFor, what), null, ''));
    });
    child.on('close', (code, signal) => {
      if (overflow) {
        reject(new GitError(`${what} wrote more than ${MAX_OUTPUT_BYTES} bytes`, code, stderr));
      } else if (code === 0 || (code !== null && run.okCodes?.includes(code))) {
        resolve(Buffer.concat(out));
      } else {
        const how = signal ? `was killed by ${signal}` : `exited with status ${code}`;
        const detail = stderr.trim().split('\n').slice(0, 4).join('; ');
        reject(new GitError(`${what} ${how}${detail ? `: ${detail}` : ''}`, code, stderr));
      }
    });
    child.stdin!.end(run.input ?? '');
  });
}

/** Splits NUL-terminated git output into strings (paths are bytes; git gives them as UTF-8). */
export function nulList(output: Buffer): string[] {
  const text = output.toString('utf8');
  const items = text.split('\0');
  if (items[items.length - 1] === '') items.pop();
  return items;
}
