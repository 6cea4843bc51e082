// A Python extension served over WebSocket with the Python SDK's ext.listen(), in a process of
// its own on 127.0.0.1 (standard library only; sdk-python on PYTHONPATH).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const SDK_PYTHON = fileURLToPath(new URL('../../../../../sdk-python', import.meta.url));

export interface PythonServer {
  url: string;
  child: ChildProcess;
  stderr(): string;
  close(): Promise<void>;
}

/**
 * Runs `source` (Python that prints `LISTENING <url>` or `listening on <url>`, then calls
 * `wait()`) in `root/name/server.py`, unbuffered; resolves with the URL it listens on.
 */
export async function startPythonServer(
  root: string,
  name: string,
  source: string,
  env: NodeJS.ProcessEnv = {},
): Promise<PythonServer> {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'server.py'), source);
  const child = spawn('python3', ['server.py'], {
    cwd: dir,
    env: {
      ...process.env,
      PYTHONPATH: SDK_PYTHON,
      PYTHONDONTWRITEBYTECODE: '1',
      PYTHONUNBUFFERED: '1',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /(?:LISTENING|listening on) (\S+)/.exec(out);
      if (match) resolve(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`server ${name} exited (${code}): ${err}`)));
  });
  return {
    url,
    child,
    stderr: () => err,
    close: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const gone = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await gone;
    },
  };
}
