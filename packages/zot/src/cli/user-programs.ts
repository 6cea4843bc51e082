// The user's own programs the TUI runs (their editor for ctrl+g, a clipboard program for
// /copy), started through zot's one launcher: its environment filter keeps provider keys and
// zot's tokens from them, as from every other child. No sandbox: they are the user's tools.
import { launchProcess, type LaunchRequest } from '../security/launcher.js';
import type { UserPrograms } from '../modes/interactive/terminal-handoff.js';

export function userPrograms(cwd: string, env: NodeJS.ProcessEnv = process.env): UserPrograms {
  const start = (argv: LaunchRequest['argv'], stdio: LaunchRequest['stdio']) =>
    launchProcess({ argv, cwd, env, stdio, detached: false, policy: {} }).child;
  return {
    onTerminal: (argv) =>
      new Promise((resolve, reject) => {
        const child = start(argv, ['inherit', 'inherit', 'inherit']);
        child.once('error', reject);
        child.once('exit', (code, signal) => resolve(code ?? signal ?? 'an unknown status'));
      }),
    withInput: (argv, input, timeoutMs) =>
      new Promise((resolve, reject) => {
        const child = start(argv, ['pipe', 'ignore', 'ignore']);
        // A clipboard program that hangs (no display to reach) is ended, not waited for.
        const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
        timer.unref();
        child.once('error', (error) => {
          clearTimeout(timer);
          reject(error);
        });
        child.once('exit', (code, signal) => {
          clearTimeout(timer);
          resolve(code ?? signal ?? 'an unknown status');
        });
        child.stdin?.on('error', () => undefined);
        child.stdin?.end(input);
      }),
  };
}
