// Runs support/pty-driver.py: a command in a real pseudo-terminal, timed as a user sees it.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const DRIVER = fileURLToPath(new URL('../support/pty-driver.py', import.meta.url));
/** pi-tui ends every frame with the end of synchronized output. */
export const FRAME_END = '\x1b[?2026l';

/** Resolves with the driver's result; rejects when the first frame or any key's frame is missing. */
export function drivePty(spec) {
  return new Promise((resolve, reject) => {
    const child = spawn('python3', [DRIVER, JSON.stringify(spec)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.on('error', reject);
    child.on('close', () => {
      try {
        const result = JSON.parse(out);
        if (result.ready_ms === null)
          throw new Error(`no first frame: ${JSON.stringify(result.output)}`);
        if (result.key_ms.length !== (spec.keys?.length ?? 0))
          throw new Error(`a key got no frame: ${JSON.stringify(result.output ?? '')}`);
        resolve(result);
      } catch (error) {
        reject(new Error(`pty driver: ${error.message}\n${out}`));
      }
    });
  });
}
